/**
 * Delivering a small request that must not be lost (`tasks/cancel`, `tasks/update`): transient failures (network,
 * timeout, a cut stream, 408/425/429, 5xx) are retried with exponential backoff, never sooner than `Retry-After`;
 * anything else is final. (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http)
 *
 * @module
 */
import { HttpError } from '../errors.js';
import { delay } from '../internal/abort.js';
import { classifyPollError } from './poll-errors.js';

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

/** Why a delivery ended without success. */
export class DeliveryFailure extends Error {
  constructor(
    readonly attempts: number,
    /** True when the last failure was transient (the request may never have arrived). */
    readonly transient: boolean,
    options: ErrorOptions,
  ) {
    super('delivery failed', options);
  }
}

/** True when a failure of a `tasks/*` request is worth another attempt. */
export function isTransientFailure(error: unknown): boolean {
  return classifyPollError(error).kind === 'transient';
}

/**
 * Runs `send` until it succeeds, a failure is final, the attempts are spent, or `signal` aborts.
 *
 * @throws {@link DeliveryFailure} with the last error as `cause`; `signal.reason` on abort.
 */
export async function deliver<T>(send: () => Promise<T>, retry: DeliveryRetry = DEFAULT_DELIVERY_RETRY, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw signal.reason;
    try {
      return await send();
    } catch (error) {
      const transient = isTransientFailure(error);
      if (!transient || attempt >= retry.attempts) throw new DeliveryFailure(attempt, transient, { cause: error });
      const backoff = Math.min(retry.minDelayMs * 2 ** (attempt - 1), retry.maxDelayMs);
      const retryAfter = error instanceof HttpError ? (error.retryAfterMs ?? 0) : 0;
      await delay(Math.max(backoff, retryAfter), signal);
    }
  }
}
