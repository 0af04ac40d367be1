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
import { deliver, type DeliveryRetry } from './delivery.js';

/** Default cap on concurrent `tasks/update` requests per server. */
export const DEFAULT_MAX_CONCURRENT_UPDATES = 4;

interface Pending {
  responses: InputResponses;
  waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }>;
}

/** Batches and bounds `tasks/update` for one server. */
export class UpdateSender {
  readonly #send: (taskId: string, inputResponses: InputResponses) => Promise<void>;
  readonly #limiter: Limiter;
  readonly #retry: DeliveryRetry | undefined;
  readonly #pending = new Map<string, Pending>();
  readonly #busy = new Set<string>();

  constructor(send: (taskId: string, inputResponses: InputResponses) => Promise<void>, maxConcurrent = DEFAULT_MAX_CONCURRENT_UPDATES, retry?: DeliveryRetry) {
    this.#send = send;
    this.#limiter = new Limiter(maxConcurrent);
    this.#retry = retry;
  }

  /**
   * Queues the answer to `key`; resolves once a `tasks/update` carrying it was acknowledged.
   *
   * @throws `DeliveryFailure` (the last error as `cause`) when the update could not be delivered.
   */
  send(taskId: string, key: string, response: InputResponse): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let pending = this.#pending.get(taskId);
      if (!pending) {
        pending = { responses: Object.create(null) as InputResponses, waiters: [] };
        this.#pending.set(taskId, pending);
        // Answers produced in the same turn (handlers resolving together) join this batch before it leaves.
        if (!this.#busy.has(taskId)) queueMicrotask(() => queueMicrotask(() => this.#flush(taskId)));
      }
      Object.defineProperty(pending.responses, key, { value: response, enumerable: true, configurable: true, writable: true });
      pending.waiters.push({ resolve, reject });
    });
  }

  #flush(taskId: string): void {
    const batch = this.#pending.get(taskId);
    if (!batch || this.#busy.has(taskId)) return;
    this.#pending.delete(taskId);
    this.#busy.add(taskId);
    const responses: InputResponses = { ...batch.responses };
    this.#limiter
      .run(() => deliver(() => this.#send(taskId, responses), this.#retry))
      .then(
        () => batch.waiters.forEach((w) => w.resolve()),
        (error: unknown) => batch.waiters.forEach((w) => w.reject(error)),
      )
      .finally(() => {
        this.#busy.delete(taskId);
        if (this.#pending.has(taskId)) this.#flush(taskId);
      });
  }
}
