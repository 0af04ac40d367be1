/**
 * The poll interval rule: the server's `pollIntervalMs` is a floor, never lowered; a caller may only raise it. The
 * client's `maxPollIntervalMs` caps only what the client chooses itself (its default and a caller's raise), never
 * the server's value: a server asking for 10 minutes gets 10 minutes.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md § Task Polling: "Clients
 * SHOULD respect the pollIntervalMs provided in responses")
 *
 * @module
 */

/** Interval used when the server gave none, in milliseconds. */
export const DEFAULT_POLL_INTERVAL_MS = 1_000;
/** Lowest interval ever used, in milliseconds: a server value of 0, negative or not a number is raised to it. */
export const DEFAULT_MIN_POLL_INTERVAL_MS = 100;
/**
 * Highest interval the client picks on its own, in milliseconds (5 minutes): it bounds the default and a caller's
 * `pollIntervalMs`, never a larger value the server asked for (the scheduler splits waits past 2^31−1 ms).
 */
export const DEFAULT_MAX_POLL_INTERVAL_MS = 300_000;

/** Bounds for {@link effectivePollIntervalMs}, all in milliseconds. */
export interface PollIntervalPolicy {
  /** Used when the server gave no interval (bounded by `maxMs`). */
  defaultMs: number;
  /** Floor for a server value of 0, negative or not a number. */
  minMs: number;
  /** Cap on the client's own choices (default, caller raise); a larger server value is kept. */
  maxMs: number;
}

/**
 * The interval to wait before the next `tasks/get`, in milliseconds.
 *
 * @param serverMs - the latest `pollIntervalMs` the server gave (creation result or last poll); `undefined` if none.
 * @param policy - default, floor and the cap on the client's own choices.
 * @param callerMs - an interval the caller asked for; it can raise the result (up to `maxMs`), never lower it.
 */
export function effectivePollIntervalMs(
  serverMs: number | undefined,
  policy: PollIntervalPolicy,
  callerMs?: number,
): number {
  // A server value above maxMs is honoured: the cap applies to the client's own default and raises only.
  let ms = serverMs === undefined ? Math.min(policy.defaultMs, policy.maxMs) : serverMs;
  if (ms === Number.POSITIVE_INFINITY)
    ms = Number.MAX_SAFE_INTEGER; // e.g. 1e400 on the wire: still "not before"
  else if (!Number.isFinite(ms) || ms < policy.minMs) ms = policy.minMs;
  if (callerMs !== undefined && Number.isFinite(callerMs) && callerMs > ms)
    ms = Math.max(ms, Math.min(callerMs, policy.maxMs));
  return Math.ceil(ms);
}
