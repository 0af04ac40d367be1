/**
 * Sends the answers to task input requests: answers for one task that are ready together go in one `tasks/update`,
 * one update per task is in flight at a time, at most `maxConcurrent` per server, and transient failures are
 * retried with backoff (`deliver`).
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-update-requests)
 *
 * @module
 */
import type { InputResponse, InputResponses } from '../protocol/input.js';
import { Limiter } from '../internal/limiter.js';
import { raceAbort } from '../internal/race-abort.js';
import { deliver, type DeliveryRetry } from './delivery.js';

/** Default cap on concurrent `tasks/update` requests per server. */
export const DEFAULT_MAX_CONCURRENT_UPDATES = 4;

interface Pending {
  responses: InputResponses;
  /** Stops this batch's delivery (the first sender's signal: one handle follows a task). */
  signal: AbortSignal | undefined;
  waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }>;
}

/** Batches and bounds `tasks/update` for one server. */
export class UpdateSender {
  readonly #ops: { updateTask(taskId: string, inputResponses: InputResponses): Promise<void> };
  readonly #limiter: Limiter;
  readonly #retry: DeliveryRetry | undefined;
  readonly #pending = new Map<string, Pending>();
  readonly #busy = new Set<string>();

  constructor(
    ops: { updateTask(taskId: string, inputResponses: InputResponses): Promise<void> },
    maxConcurrent = DEFAULT_MAX_CONCURRENT_UPDATES,
    retry?: DeliveryRetry,
  ) {
    this.#ops = ops;
    this.#limiter = new Limiter(maxConcurrent);
    this.#retry = retry;
  }

  /**
   * Queues the answer to `key`; resolves once a `tasks/update` carrying it was acknowledged. When `signal` aborts
   * (the handle stopped following, a cancel was requested, the client closed) the retries stop at once: nothing
   * more is sent for this batch and the promise rejects with `signal.reason` without waiting for an attempt in flight, unless that reason's
   * `finishInFlight` is true (the server reported the task's end): then an attempt in flight is awaited.
   *
   * @throws `DeliveryFailure` (the last error as `cause`) when the update could not be delivered; `signal.reason`.
   */
  send(taskId: string, key: string, response: InputResponse, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      let pending = this.#pending.get(taskId);
      if (!pending) {
        pending = { responses: Object.create(null) as InputResponses, waiters: [], signal };
        this.#pending.set(taskId, pending);
        // Answers produced in the same turn (handlers resolving together) join this batch before it leaves.
        if (!this.#busy.has(taskId)) queueMicrotask(() => queueMicrotask(() => this.#flush(taskId)));
      }
      Object.defineProperty(pending.responses, key, {
        value: response,
        enumerable: true,
        configurable: true,
        writable: true,
      });
      pending.waiters.push({ resolve, reject });
    });
  }

  #flush(taskId: string): void {
    const batch = this.#pending.get(taskId);
    if (!batch || this.#busy.has(taskId)) return;
    this.#pending.delete(taskId);
    this.#busy.add(taskId);
    const responses: InputResponses = { ...batch.responses };
    const run = this.#limiter.run(() =>
      deliver(() => this.#ops.updateTask(taskId, responses), this.#retry, batch.signal),
    );
    // An attempt already on the wire when the handle learnt the task ended is awaited: its acknowledgement counts.
    raceAbort(run, batch.signal)
      .catch((error: unknown) => (finishesInFlight(error) ? run : Promise.reject(error)))
      .then(
        () => batch.waiters.forEach((w) => w.resolve()),
        (error: unknown) => batch.waiters.forEach((w) => w.reject(error)),
      );
    run
      .catch(() => undefined) // told to the waiters above
      .finally(() => {
        this.#busy.delete(taskId);
        if (this.#pending.has(taskId)) this.#flush(taskId);
      });
  }
}

/** True for an abort reason that lets the attempt in flight finish (its `finishInFlight` is true). */
function finishesInFlight(reason: unknown): boolean {
  return (reason as { finishInFlight?: unknown } | null)?.finishInFlight === true;
}
