/**
 * The followed tasks of one client, as a {@link PushTarget}: which ids to ask the server to push, where a pushed
 * task goes (its handle, exactly like a `tasks/get` result), and each task's poll cadence (the floor, or the safety
 * poll at {@link DEFAULT_SAFETY_POLL_MULTIPLE} × the floor once the server acknowledged it).
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-status-notifications)
 *
 * @module
 */
import type { DetailedTask } from '../../protocol/tasks.js';
import {
  DEFAULT_SAFETY_POLL_MULTIPLE,
  PushChannel,
  type ListenFn,
  type PushCadence,
  type PushChannelOptions,
  type PushTarget,
} from './push-channel.js';

/** What the tracker needs of a task handle. */
export interface PushFollowable {
  readonly taskId: string;
  readonly done: boolean;
  /** Applies a pushed DetailedTask as if a poll had returned it. */
  applyPushed(task: DetailedTask): void;
  /** Polls at `multiple` × the floor from now on (1 = the floor). */
  setPollMultiple(multiple: number): void;
}

/** Options of {@link PushTracker}. */
export interface PushTrackerOptions extends PushChannelOptions {
  /** @default DEFAULT_SAFETY_POLL_MULTIPLE */
  safetyPollMultiple?: number;
}

/** One client's push: a {@link PushChannel} fed by the handles it follows. */
export class PushTracker implements PushTarget {
  readonly #tasks = new Map<string, PushFollowable>();
  readonly #channel: PushChannel;
  readonly #multiple: number;
  readonly #onError: (error: unknown) => void;

  constructor(listen: ListenFn, onError: (error: unknown) => void, options: PushTrackerOptions = {}) {
    this.#channel = new PushChannel(this, listen, options);
    this.#multiple = options.safetyPollMultiple ?? DEFAULT_SAFETY_POLL_MULTIPLE;
    this.#onError = onError;
  }

  /** Starts following `handle` until it is done (then call {@link unfollow}). */
  follow(handle: PushFollowable): void {
    if (handle.done || this.#tasks.has(handle.taskId)) return;
    this.#tasks.set(handle.taskId, handle);
    this.#channel.changed();
  }

  unfollow(taskId: string): void {
    if (this.#tasks.delete(taskId)) this.#channel.changed();
  }

  followedTaskIds(): readonly string[] {
    return [...this.#tasks.keys()];
  }

  apply(task: DetailedTask): void {
    const handle = this.#tasks.get(task.taskId);
    if (!handle) return;
    handle.applyPushed(task);
    if (handle.done) this.unfollow(task.taskId);
  }

  setCadence(taskId: string, cadence: PushCadence): void {
    this.#tasks.get(taskId)?.setPollMultiple(cadence === 'push' ? this.#multiple : 1);
  }

  onError(error: unknown): void {
    this.#onError(error);
  }

  close(): void {
    this.#channel.close();
    this.#tasks.clear();
  }
}
