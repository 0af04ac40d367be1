/**
 * Push merged with polling, for one server: one `subscriptions/listen` stream asking for `notifications/tasks` about
 * the tasks being followed. The stream is re-opened (debounced) when tasks it does not cover are added, kept open
 * until its replacement is acknowledged, closed when nothing is followed, and re-opened with backoff when it drops.
 * One stream is opening at a time: tasks added while one waits for its acknowledgement are asked for once it is
 * acknowledged, so a burst of new tasks never replaces a stream before its acknowledgement could arrive.
 * Each `notifications/tasks` is handed to the host exactly as a `tasks/get` result would be; tasks the server
 * acknowledged switch to a slow safety poll, and every other task keeps polling at its floor.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-status-notifications,
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions)
 *
 * @module
 */
import { HttpError, McpError } from '../../errors.js';
import { ErrorCode } from '../../protocol/constants.js';
import type { JsonRpcNotification } from '../../protocol/jsonrpc.js';
import { parseDetailedTask, type DetailedTask } from '../../protocol/tasks.js';

/** Acknowledged tasks are still polled, at this multiple of their interval, so a silently dead stream loses nothing. */
export const DEFAULT_SAFETY_POLL_MULTIPLE = 10;
/** Changes to the followed set within this window re-open the stream once. */
export const DEFAULT_PUSH_DEBOUNCE_MS = 50;
/** At most this many task ids in one `subscriptions/listen`; the rest keep polling at their floor. */
export const DEFAULT_MAX_PUSH_TASK_IDS = 1_000;
/** Backoff before re-opening a dropped stream: doubles from the first to the last value. */
export const PUSH_BACKOFF_MS: readonly [number, number] = [500, 30_000];

/** How a followed task is observed: `push` (acknowledged: safety poll only) or `poll` (at its floor). */
export type PushCadence = 'push' | 'poll';

/** What the channel needs from the client; the tracker of followed tasks implements it. */
export interface PushTarget {
  /** The ids of the tasks on this server still being followed (not terminal). */
  followedTaskIds(): readonly string[];
  /** Applies a pushed task exactly like a `tasks/get` result (ordering, input dedupe, terminal stays final). */
  apply(task: DetailedTask): void;
  /** Switches a task between its safety poll (`push`) and its floor (`poll`). */
  setCadence(taskId: string, cadence: PushCadence): void;
  /** A push failure the client survives (bad notification, dropped stream); never thrown. */
  onError(error: unknown): void;
}

/**
 * Opens one `subscriptions/listen` stream for `taskIds`: each notification on it goes to `onNotification`; settles
 * when the stream ends (resolves on the server's graceful close, rejects on a drop or error), or when `signal`
 * aborts.
 */
export type ListenFn = (taskIds: readonly string[], onNotification: (notification: JsonRpcNotification) => void, signal: AbortSignal) => Promise<unknown>;

/** Options of {@link PushChannel}. */
export interface PushChannelOptions {
  /** @default DEFAULT_PUSH_DEBOUNCE_MS */
  debounceMs?: number;
  /** @default DEFAULT_MAX_PUSH_TASK_IDS */
  maxTaskIds?: number;
  /** Random source in [0, 1) for backoff jitter. @default Math.random */
  random?: () => number;
}

/** The server does not offer task push: no such method, a capability it wants, or an HTTP status saying so. */
function refusesListen(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.MethodNotFound || error.code === ErrorCode.MissingRequiredClientCapability;
  return error instanceof HttpError && [400, 404, 405, 501].includes(error.status);
}

/** The stream of one server: opened, re-opened and closed as the followed set changes. */
export class PushChannel {
  readonly #target: PushTarget;
  readonly #listen: ListenFn;
  readonly #debounceMs: number;
  readonly #maxTaskIds: number;
  readonly #random: () => number;
  #stream: AbortController | undefined;
  /** Ids asked for on the current stream, and those the server acknowledged. */
  #requested = new Set<string>();
  #acked = new Set<string>();
  /** The stream being replaced: kept open until the new one is acknowledged, so no change falls in a gap. */
  #previous: { stream: AbortController; requested: Set<string> } | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The current stream has not been acknowledged yet; `#waiting`: the followed set changed meanwhile. */
  #opening = false;
  #waiting = false;
  #failures = 0;
  #unsupported = false;
  #closed = false;

  constructor(target: PushTarget, listen: ListenFn, options: PushChannelOptions = {}) {
    this.#target = target;
    this.#listen = listen;
    this.#debounceMs = options.debounceMs ?? DEFAULT_PUSH_DEBOUNCE_MS;
    this.#maxTaskIds = options.maxTaskIds ?? DEFAULT_MAX_PUSH_TASK_IDS;
    this.#random = options.random ?? Math.random;
  }

  /** False once the server refused `subscriptions/listen` (every task then polls at its floor). */
  get supported(): boolean {
    return !this.#unsupported;
  }

  /** Ids the server currently pushes for. */
  get acknowledged(): ReadonlySet<string> {
    return this.#acked;
  }

  /** The followed set changed (a task started, ended or was dropped): after the debounce, re-opens the stream if it
   * misses a followed task, or closes it if nothing is followed. */
  changed(): void {
    if (this.#closed || this.#unsupported || this.#timer !== undefined) return;
    this.#arm(this.#debounceMs);
  }

  /** Closes the stream and stops re-opening it. Acknowledged tasks go back to their floor. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#stop();
  }

  #arm(delayMs: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#open();
    }, delayMs);
  }

  /** Ends the current stream (and one being replaced); every acknowledged task returns to polling at its floor. */
  #stop(): void {
    this.#dropPrevious();
    this.#stream?.abort();
    this.#stream = undefined;
    this.#opening = false;
    this.#waiting = false;
    const acked = [...this.#acked];
    this.#acked = new Set();
    this.#requested = new Set();
    for (const id of acked) this.#target.setCadence(id, 'poll');
  }

  #dropPrevious(): void {
    this.#previous?.stream.abort();
    this.#previous = undefined;
  }

  /**
   * Opens a stream for the followed set, unless the current one already covers it: tasks that ended need no new
   * stream (the server pushes nothing more for a terminal task), only tasks not yet asked for do. A stream being
   * replaced stays open until the new one is acknowledged (make before break). While the current stream waits for
   * its acknowledgement nothing is opened: the change is taken up when the acknowledgement arrives.
   */
  #open(): void {
    if (this.#closed || this.#unsupported) return;
    const wanted = this.#target.followedTaskIds().slice(0, this.#maxTaskIds);
    if (wanted.length === 0) return this.#stop();
    if (this.#stream && wanted.every((id) => this.#requested.has(id))) return;
    if (this.#opening) {
      this.#waiting = true;
      return;
    }
    if (this.#stream) {
      this.#dropPrevious();
      this.#previous = { stream: this.#stream, requested: this.#requested };
    }
    const stream = new AbortController();
    this.#stream = stream;
    this.#requested = new Set(wanted);
    this.#opening = true;
    this.#waiting = false;
    this.#listen(wanted, (n) => this.#onNotification(stream, n), stream.signal).then(
      () => this.#ended(stream, undefined),
      (error: unknown) => this.#ended(stream, error),
    );
  }

  #onNotification(stream: AbortController, notification: JsonRpcNotification): void {
    const previous = this.#previous?.stream === stream ? this.#previous : undefined;
    if (stream !== this.#stream && !previous) return; // a stream we already left
    const params = (notification.params ?? {}) as Record<string, unknown>;
    if (notification.method === 'notifications/subscriptions/acknowledged') {
      if (previous) return;
      const agreed = (params.notifications as { taskIds?: unknown } | undefined)?.taskIds;
      const ids = Array.isArray(agreed) ? agreed.filter((id): id is string => typeof id === 'string' && this.#requested.has(id)) : [];
      const before = this.#acked;
      this.#acked = new Set(ids);
      this.#failures = 0;
      this.#dropPrevious();
      for (const id of before) if (!this.#requested.has(id)) this.#target.setCadence(id, 'poll');
      for (const id of this.#requested) this.#target.setCadence(id, this.#acked.has(id) ? 'push' : 'poll');
      this.#opening = false;
      // Tasks added while this stream was opening waited at least one debounce already: asked for at once.
      if (this.#waiting && !this.#closed) this.#arm(0);
      this.#waiting = false;
      return;
    }
    if (notification.method !== 'notifications/tasks') return;
    const { _meta: _ignored, ...fields } = params;
    let task: DetailedTask;
    try {
      task = parseDetailedTask(fields);
    } catch (error) {
      this.#target.onError(error);
      return;
    }
    if ((previous ? previous.requested : this.#requested).has(task.taskId)) this.#target.apply(task);
  }

  #ended(stream: AbortController, error: unknown): void {
    if (stream !== this.#stream || this.#closed) return; // replaced or closed on purpose
    this.#stop();
    if (refusesListen(error)) {
      this.#unsupported = true; // the server does not push: polling alone, at the floor
      return;
    }
    if (error !== undefined) this.#target.onError(error);
    const [first, last] = PUSH_BACKOFF_MS;
    const delay = Math.min(last, first * 2 ** this.#failures) * (1 + 0.2 * this.#random());
    this.#failures++;
    this.#arm(delay);
  }
}
