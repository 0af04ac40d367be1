/**
 * Delivering a small request that must not be lost (`tasks/cancel`, `tasks/update`): transient failures (network,
 * timeout, a cut stream, 408/425/429, 5xx) are retried with exponential backoff, never sooner than `Retry-After`,
 * within a bounded total wait ({@link DELIVERY_BUDGET_MS}); anything else is final. (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http)
 *
 * @module
 */
import { delay } from '../internal/abort.js';
import { classifyPollError } from './decisions.js';

/** Bounds of a delivery. Times in ms. */
export interface DeliveryRetry {
  /** Attempts in all (the first plus re-sends). @default 5 */
  attempts: number;
  /** First backoff delay, ms, doubled on each retry. @default 500 */
  minDelayMs: number;
  /** Largest backoff delay, ms. @default 8000 */
  maxDelayMs: number;
}

/** Defaults of {@link DeliveryRetry}. */
export const DEFAULT_DELIVERY_RETRY: DeliveryRetry = { attempts: 5, minDelayMs: 500, maxDelayMs: 8_000 };

/**
 * The longest a delivery (`tasks/cancel`, `tasks/update`) waits between its attempts in all, ms: 30 000 (30 s), or
 * the schedule's own total when that is longer (the default schedule waits 0.5 + 1 + 2 + 4 = 7.5 s). A server's
 * `Retry-After` is never cut short (it is a load contract), so when honouring it would take the next attempt past
 * this budget the delivery ends at once with the failure that carried it (an `HttpError` or `McpError` with `retryAfterMs`),
 * rather than leaving `cancel()` or `respond()` pending for as long as the server asks (`Retry-After: 3600`).
 * (https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3)
 */
export const DELIVERY_BUDGET_MS = 30_000;

/** The total wait budget of a delivery under `retry`, ms: {@link DELIVERY_BUDGET_MS} or the schedule's own total. */
export function deliveryBudgetMs(retry: DeliveryRetry): number {
  let schedule = 0;
  for (let attempt = 1; attempt < retry.attempts; attempt++) schedule += backoffMs(retry, attempt);
  return Math.max(DELIVERY_BUDGET_MS, schedule);
}

function backoffMs(retry: DeliveryRetry, attempt: number): number {
  return Math.min(retry.minDelayMs * 2 ** (attempt - 1), retry.maxDelayMs);
}

/** Why a delivery ended without success. */
export class DeliveryFailure extends Error {
  constructor(
    readonly attempts: number,
    /** True when the last failure was transient (the request may never have arrived). */
    readonly transient: boolean,
    options: ErrorOptions & {
      /** The server's `Retry-After` (ms) that would have taken the next attempt past the budget. */
      retryAfterMs?: number;
    },
  ) {
    super('delivery failed', options);
    this.retryAfterMs = options.retryAfterMs;
  }

  /** Set when the delivery ended early because the server asked to wait past {@link deliveryBudgetMs}. */
  readonly retryAfterMs: number | undefined;
}

/**
 * Runs `send` until it succeeds, a failure is final, the attempts are spent, the server's `Retry-After` would take
 * the next attempt past {@link deliveryBudgetMs}, or `signal` aborts (checked before every attempt and during
 * every wait: nothing is sent after it).
 *
 * @throws {@link DeliveryFailure} with the last error as `cause`; `signal.reason` on abort.
 */
export async function deliver<T>(
  send: () => Promise<T>,
  retry: DeliveryRetry = DEFAULT_DELIVERY_RETRY,
  signal?: AbortSignal,
): Promise<T> {
  const budget = deliveryBudgetMs(retry);
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw signal.reason;
    try {
      return await send();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const failure = classifyPollError(error);
      const transient = failure.kind === 'transient';
      if (!transient || attempt >= retry.attempts)
        throw new DeliveryFailure(attempt, transient, { cause: error });
      // The reply's Retry-After, whether the transport raised HttpError or McpError (a 429/503 with a JSON-RPC body).
      const retryAfter = failure.retryAfterMs ?? 0;
      const wait = Math.max(backoffMs(retry, attempt), retryAfter);
      if (waited + wait > budget)
        throw new DeliveryFailure(attempt, transient, { cause: error, retryAfterMs: retryAfter });
      waited += wait;
      await delay(wait, signal);
    }
  }
}
