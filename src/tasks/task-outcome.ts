/**
 * The promise of one task's outcome, settled once, and the callers waiting for its next state (`refresh()`). Only
 * the handle settles it, with what the server reported (or a local end that names the task).
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling)
 *
 * @module
 * @internal
 */
import { TaskCancelledError, TaskFailedError } from '../errors.js';
import type { DetailedTask } from '../protocol/tasks.js';
import type { Settled } from './task-handle-types.js';

/** The longest `result()` and `cancel()` wait for the record writes they caused before settling anyway (ms). */
export const RECORD_FLUSH_WAIT_MS = 10_000;

/** One task's outcome. Untyped (`unknown`) so that a `TaskHandle<T>` stays assignable to `TaskHandle<unknown>`. */
export class TaskOutcome {
  readonly promise: Promise<unknown>;
  /** {@link promise}, settled only once the record writes it causes are done (what `result()` hands out). */
  readonly recorded: Promise<unknown>;
  #resolve!: (value: unknown) => void;
  #reject!: (error: unknown) => void;
  #settled: Settled<unknown> | undefined;
  #waiters: Array<(task: DetailedTask | Error) => void> = [];
  #onSettle: ((outcome: Settled<unknown>) => void) | undefined;
  #flush: (() => Promise<void>) | undefined;

  constructor() {
    this.promise = new Promise<unknown>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.promise.catch(() => undefined); // failures reach callers of result(); never an unhandled rejection
    this.recorded = this.promise.then(
      async (value) => {
        await this.flush();
        return value;
      },
      async (error: unknown) => {
        await this.flush();
        throw error;
      },
    );
    this.recorded.catch(() => undefined);
  }

  /**
   * Registers the one recorder of this outcome: `onSettle` runs synchronously when the outcome settles (at once when
   * it already has), so its write is queued before anyone hears of the outcome; `flush` resolves once every write
   * queued so far has finished (a failed write included: the recorder reports failures itself).
   */
  record(onSettle: (outcome: Settled<unknown>) => void, flush: () => Promise<void>): void {
    this.#flush = flush;
    if (this.#settled) onSettle(this.#settled);
    else this.#onSettle = onSettle;
  }

  /**
   * Resolves once the recorder's queued writes are done, or after {@link RECORD_FLUSH_WAIT_MS} when a store never
   * answers (the write goes on in the background); at once without a recorder. Never rejects.
   */
  async flush(): Promise<void> {
    const flushing = this.#flush?.().catch(() => undefined);
    if (!flushing) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      flushing,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, RECORD_FLUSH_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  /** True once settled. */
  get settled(): boolean {
    return this.#settled !== undefined;
  }

  /** Settles the promise; returns false (and changes nothing) when it was settled already. */
  settle(outcome: Settled<unknown>): boolean {
    if (this.#settled) return false;
    this.#settled = outcome;
    this.#onSettle?.(outcome);
    if (outcome.ok) this.#resolve(outcome.value);
    else this.#reject(outcome.error);
    return true;
  }

  /** A promise of the next state {@link wake} hands out (rejected when it hands out an error). */
  nextState(): Promise<DetailedTask> {
    return new Promise<DetailedTask>((resolve, reject) => {
      this.#waiters.push((t) => (t instanceof Error ? reject(t) : resolve(t)));
    });
  }

  /** Hands `state` to every caller of {@link nextState} so far. */
  wake(state: DetailedTask | Error): void {
    const waiters = this.#waiters;
    if (waiters.length === 0) return;
    this.#waiters = [];
    for (const wake of waiters) wake(state);
  }
}

/**
 * The outcome a terminal state means: `completed` → the parsed `result` (a parse failure is the error), `failed` →
 * {@link TaskFailedError}, `cancelled` → {@link TaskCancelledError}.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-status)
 */
export function terminalOutcome<T>(
  task: DetailedTask,
  parseResult: (raw: Record<string, unknown>) => T,
): Settled<T> {
  if (task.status === 'failed') return { ok: false, error: new TaskFailedError(task) };
  if (task.status !== 'completed') return { ok: false, error: new TaskCancelledError(task.taskId, task) };
  try {
    return { ok: true, value: parseResult(task.result) };
  } catch (error) {
    return { ok: false, error };
  }
}
