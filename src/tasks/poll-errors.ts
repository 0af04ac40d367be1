/**
 * What a failed `tasks/get` means: a lost task (-32602: expired or unknown, 5.16), a transient fault worth another
 * poll (network, 429, 5xx, timeout), or a fatal error.
 *
 * @module
 */
import { HttpError, McpError, NetworkError, RequestTimeoutError, StreamEndedError } from '../errors.js';
import { ErrorCode } from '../protocol/constants.js';

/** Default number of consecutive transient poll failures tolerated before the wait rejects. */
export const DEFAULT_MAX_POLL_RETRIES = 5;
/** Backoff cap for retried polls, in milliseconds. */
export const MAX_POLL_BACKOFF_MS = 30_000;

/** How the poller reacts to a failed poll. */
export type PollFailure =
  | { kind: 'lost' }
  | { kind: 'transient'; retryAfterMs: number | undefined }
  | { kind: 'fatal' };

/** HTTP statuses retried while polling (a pure read): 408, 425, 429 and 5xx. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/**
 * Statuses that mean "not now" whatever the body says: 429 Too Many Requests and 502/503/504 from the server or an
 * intermediary (RFC 9110 § 15.6.3–15.6.5, RFC 6585 § 4). A JSON-RPC error in such a reply (any code) is a load or
 * gateway signal, not the server's verdict on the task, so it is retried, honouring `Retry-After`.
 */
export function isSlowDownStatus(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

/** Classifies an error thrown by `tasks/get` (also `tasks/cancel` and `tasks/update`, see `delivery.ts`). */
export function classifyPollError(error: unknown): PollFailure {
  if (error instanceof McpError) {
    const status = error.httpStatus;
    if (status !== undefined && isSlowDownStatus(status))
      return { kind: 'transient', retryAfterMs: error.retryAfterMs };
    if (error.code === ErrorCode.InvalidParams) return { kind: 'lost' };
    if (status !== undefined && isTransientStatus(status) && error.code === ErrorCode.InternalError) {
      return { kind: 'transient', retryAfterMs: error.retryAfterMs };
    }
    return { kind: 'fatal' };
  }
  if (error instanceof HttpError) {
    return isTransientStatus(error.status)
      ? { kind: 'transient', retryAfterMs: error.retryAfterMs }
      : { kind: 'fatal' };
  }
  if (
    error instanceof NetworkError ||
    error instanceof StreamEndedError ||
    error instanceof RequestTimeoutError
  ) {
    return { kind: 'transient', retryAfterMs: undefined };
  }
  return { kind: 'fatal' };
}

/**
 * Delay before retrying the `attempt`-th consecutive failed poll (1-based), in milliseconds: exponential from the
 * floor, capped at {@link MAX_POLL_BACKOFF_MS}, never below the floor or the server's `Retry-After`.
 */
export function pollRetryDelayMs(floorMs: number, attempt: number, retryAfterMs: number | undefined): number {
  const backoff = Math.min(floorMs * 2 ** (attempt - 1), Math.max(MAX_POLL_BACKOFF_MS, floorMs));
  return Math.max(floorMs, backoff, retryAfterMs ?? 0);
}
