/**
 * The poll interval rule: the server's `pollIntervalMs` is a floor, never lowered; a caller may only raise it.
 *
 *
 * @module
 */

/** Interval used when the server gave none, in milliseconds. */
export const DEFAULT_POLL_INTERVAL_MS = 1_000;
/** Lowest interval ever used, in milliseconds: a server value of 0, negative or not a number is raised to it. */
export const DEFAULT_MIN_POLL_INTERVAL_MS = 100;
/** Highest interval ever used, in milliseconds (5 minutes; timers overflow past 2^31−1 ms). */
export const DEFAULT_MAX_POLL_INTERVAL_MS = 300_000;

/** Bounds for {@link effectivePollIntervalMs}, all in milliseconds. */
export interface PollIntervalPolicy {
  defaultMs: number;
  minMs: number;
  maxMs: number;
}

/**
 * The interval to wait before the next `tasks/get`, in milliseconds.
 *
 * @param serverMs - the latest `pollIntervalMs` the server gave (creation result or last poll); `undefined` if none.
 * @param policy - default, floor and cap.
 * @param callerMs - an interval the caller asked for; it can raise the result, never lower it.
 */
export function effectivePollIntervalMs(serverMs: number | undefined, policy: PollIntervalPolicy, callerMs?: number): number {
  let ms = serverMs === undefined ? policy.defaultMs : serverMs;
  if (!Number.isFinite(ms) || ms < policy.minMs) ms = policy.minMs;
  if (ms > policy.maxMs) ms = policy.maxMs;
  if (callerMs !== undefined && Number.isFinite(callerMs) && callerMs > ms) ms = Math.min(callerMs, policy.maxMs);
  return Math.ceil(ms);
}
