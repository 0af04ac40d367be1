/**
 * The tasks one adapted tool set knows: those its calls started, and those found again through the client's store
 * (after a restart). The task tools (`task_status`, `task_result`, `task_cancel`) only act on these.
 *
 * @module
 */
import { isMcpClientError } from '../../errors.js';
import type { TaskClient } from '../../client/task-client.js';
import type { CallToolResult } from '../../protocol/results.js';
import type { TaskHandle } from '../../tasks/task-handle.js';

/** Default number of tasks one tool set remembers; the oldest finished ones are forgotten first. */
export const DEFAULT_MAX_TRACKED_TASKS = 1_000;

/** One task and what the adapter learned about it. */
export interface TrackedTask {
  readonly handle: TaskHandle<CallToolResult>;
  /** The MCP tool that started it; `''` when it was found in the store (the record's name is not read). */
  readonly toolName: string;
  /** Questions declined on the model's behalf (their `message` or method). */
  readonly declined: string[];
  /** True when a question that cannot be declined stopped the task (it was cancelled). */
  inputStopped: boolean;
}

/** Tasks by id, bounded. */
export class TaskRegistry {
  readonly #byId = new Map<string, TrackedTask>();
  readonly #max: number;

  constructor(max = DEFAULT_MAX_TRACKED_TASKS) {
    this.#max = max;
  }

  /** Remembers `handle` (started by a call of `toolName`). */
  track(handle: TaskHandle<CallToolResult>, toolName: string): TrackedTask {
    const known = this.#byId.get(handle.taskId);
    if (known && known.handle === handle) return known;
    const entry: TrackedTask = { handle, toolName, declined: [], inputStopped: false };
    this.#byId.set(handle.taskId, entry);
    this.#trim();
    return entry;
  }

  /**
   * The task with this id: one this tool set knows, or one the client's store has (`client.resume`, which works
   * across restarts). `undefined` when neither knows it.
   *
   * @throws the client's errors other than "no store" and "not in the store" (e.g. `ClientClosedError`).
   */
  async find(client: TaskClient, taskId: string): Promise<TrackedTask | undefined> {
    const known = this.#byId.get(taskId);
    if (known) return known;
    let handle: TaskHandle<CallToolResult>;
    try {
      handle = await client.resume<CallToolResult>(taskId);
    } catch (error) {
      if (error instanceof TypeError || isMcpClientError(error, 'TASK_NOT_FOUND')) return undefined;
      throw error;
    }
    return this.track(handle, '');
  }

  #trim(): void {
    if (this.#byId.size <= this.#max) return;
    for (const [taskId, entry] of this.#byId) {
      if (this.#byId.size <= this.#max) return;
      if (entry.handle.done) this.#byId.delete(taskId);
    }
  }
}
