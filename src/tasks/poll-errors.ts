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

/** Classifies an error thrown by `tasks/get`. */
export function classifyPollError(error: unknown): PollFailure {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.InvalidParams) return { kind: 'lost' };
    if (error.httpStatus !== undefined && isTransientStatus(error.httpStatus) && error.code === ErrorCode.InternalError) {
      return { kind: 'transient', retryAfterMs: undefined };
    }
    return { kind: 'fatal' };
  }
  if (error instanceof HttpError) {
    return isTransientStatus(error.status) ? { kind: 'transient', retryAfterMs: error.retryAfterMs } : { kind: 'fatal' };
  }
  if (error instanceof NetworkError || error instanceof StreamEndedError || error instanceof RequestTimeoutError) {
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
