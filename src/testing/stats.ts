/**
 * Counters the client's tests read from the reference server: requests per method, `tasks/get` arrival times per
 * task, and the `tasks/update` / `tasks/cancel` calls received. Times come from the server's injectable clock.
 *
 * @module
 */
import type { InputResponses } from '../protocol/index.js';

/** One `tasks/update` the server received (after `_meta`, header and capability checks passed). */
export interface RecordedTaskUpdate {
  taskId: string;
  /** The `inputResponses` exactly as received, unknown keys included. */
  inputResponses: InputResponses;
  /** Arrival time in milliseconds from the server clock (`now()`). */
  at: number;
}

/** One `tasks/cancel` the server received (after `_meta`, header and capability checks passed). */
export interface RecordedTaskCancel {
  taskId: string;
  /** Arrival time in milliseconds from the server clock (`now()`). */
  at: number;
}

/**
 * Request statistics of one server. Every accepted JSON-RPC request (one that parsed and carried a `method`) is
 * counted under its method, whether it later succeeds or fails. Task-level records are kept for `tasks/get`,
 * `tasks/update` and `tasks/cancel` requests that reached their handler, including ones for unknown task ids.
 *
 * @example
 * ```ts
 * expect(server.stats.count('tasks/get')).toBe(3);
 * expect(server.stats.taskGetTimes(taskId)).toHaveLength(3);
 * ```
 */
export class ServerStats {
  readonly #counts = new Map<string, number>();
  readonly #gets = new Map<string, number[]>();
  readonly #updates: RecordedTaskUpdate[] = [];
  readonly #cancels: RecordedTaskCancel[] = [];

  /** Counts one request of `method`. Called by the core; tests only read. */
  recordRequest(method: string): void {
    this.#counts.set(method, (this.#counts.get(method) ?? 0) + 1);
  }

  /** Records a `tasks/get` for `taskId` arriving at `at` (ms, server clock). */
  recordTaskGet(taskId: string, at: number): void {
    const times = this.#gets.get(taskId) ?? [];
    times.push(at);
    this.#gets.set(taskId, times);
  }

  /** Records a `tasks/update` payload. */
  recordTaskUpdate(update: RecordedTaskUpdate): void {
    this.#updates.push(update);
  }

  /** Records a `tasks/cancel` call. */
  recordTaskCancel(cancel: RecordedTaskCancel): void {
    this.#cancels.push(cancel);
  }

  /** Number of requests received for `method` (e.g. `"tasks/get"`); 0 if none. */
  count(method: string): number {
    return this.#counts.get(method) ?? 0;
  }

  /** A snapshot of all per-method request counts, `{ [method]: count }`. */
  counts(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }

  /** The same as {@link ServerStats.counts}, as a property. */
  get requestCounts(): Record<string, number> {
    return this.counts();
  }

  /** Arrival times (ms, server clock, ascending) of every `tasks/get` for `taskId`; `[]` if none. */
  taskGetTimes(taskId: string): number[] {
    return [...(this.#gets.get(taskId) ?? [])];
  }

  /** `tasks/update` calls received, oldest first, optionally only those for `taskId`. */
  taskUpdates(taskId?: string): RecordedTaskUpdate[] {
    return this.#updates.filter((u) => taskId === undefined || u.taskId === taskId);
  }

  /** `tasks/cancel` calls received, oldest first, optionally only those for `taskId`. */
  taskCancels(taskId?: string): RecordedTaskCancel[] {
    return this.#cancels.filter((c) => taskId === undefined || c.taskId === taskId);
  }

  /** Forgets everything recorded so far. */
  reset(): void {
    this.#counts.clear();
    this.#gets.clear();
    this.#updates.length = 0;
    this.#cancels.length = 0;
  }
}
