/**
 * The engine's decisions, as pure functions of what the server said and what the client knows: what a failed
 * `tasks/get` means and when the next poll goes out, the interval a poll waits, when a task expires, which error a
 * lost task is, and the outcome a terminal `DetailedTask` (or a stored record) stands for. No timers, no I/O: each
 * is tested with tables of cases (test/tasks/decisions.test.ts).
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling)
 *
 * @module
 */
import {
  HttpError,
  McpError,
  NetworkError,
  RequestTimeoutError,
  StreamEndedError,
  TaskCancelledError,
  TaskExpiredError,
  TaskFailedError,
  TaskNotFoundError,
  type TaskNotFoundReason,
} from '../errors.js';
import { ErrorCode } from '../protocol/constants.js';
import type { DetailedTask } from '../protocol/tasks.js';
import { StoreUnavailableError } from '../store/redis/errors.js';
import { recordExpiresAt, type TaskRecord } from '../store/task-record.js';

/** A known outcome: the result, or the error `result()` rejects with. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

// --- Poll failures and the next poll time -----------------------------------------------------------------------

/** Default number of consecutive transient poll failures tolerated before the wait rejects. */
export const DEFAULT_MAX_POLL_RETRIES = 5;
/** Backoff cap for retried polls, in milliseconds. */
export const MAX_POLL_BACKOFF_MS = 30_000;

/**
 * The longest a `Retry-After` on `tasks/get` is followed, in milliseconds (1 hour): the next poll of the task, and
 * the pause of every poll to that server, wait at most this long, whatever the server asked (a `Retry-After` of ten
 * years on a task whose `ttlMs` is `null` would otherwise stall it, and every other task of that server, for ten
 * years). An hour covers any maintenance window a 503 announces; a server still refusing after it counts one more
 * failed poll, and the task fails typed once its retries ({@link DEFAULT_MAX_POLL_RETRIES}) are used up. A wait
 * past the task's retention (creation + `ttlMs`) is not bounded but refused at once (`TaskExpiredError`).
 * (https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3: Retry-After says how long the client "ought to wait")
 */
export const MAX_RETRY_AFTER_MS = 3_600_000;

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
    error instanceof StoreUnavailableError || // the lease could not be checked: nothing was sent, try again
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

/** What the handle knows when a poll fails. */
export interface PollFailureFacts {
  /** The client's expiry of the task has passed. */
  expired: boolean;
  /** This client just created the task and no poll has succeeded yet (the not-yet-visible re-check applies). */
  firstPolls: boolean;
  /** -32602 answers tolerated so far right after creation. */
  notVisible: number;
  /** Consecutive transient failures so far (this one not counted). */
  failures: number;
  /** The interval the next poll waits, ms (the floor of any retry). */
  floorMs: number;
  /** -32602 answers tolerated right after creation before the task is "not-yet-visible". */
  notYetVisibleRetries: number;
  /** Consecutive transient failures tolerated before the wait rejects. */
  maxPollRetries: number;
}

/**
 * What to do after a failed poll: poll again after `delayMs` (when the server asked to wait `retryAfterMs`, pausing
 * every poll to it for `pauseMs`: that wait bounded by {@link MAX_RETRY_AFTER_MS}),
 * settle the task as lost, or fail. `violation` = the server broke a rule (-32602 right after creation); `report` =
 * the failure is an `error` event.
 */
export type PollVerdict =
  | {
      kind: 'retry';
      notVisible: boolean;
      delayMs: number;
      retryAfterMs?: number;
      pauseMs?: number;
      violation?: boolean;
      report?: boolean;
    }
  | { kind: 'lost'; reason: 'unknown' | 'not-yet-visible'; violation?: boolean; report?: boolean }
  | { kind: 'fatal'; violation?: boolean; report?: boolean };

/**
 * The rule for a failed `tasks/get`: -32602 is a lost task (classified expired / unknown), except for a bounded
 * re-check right after creation (`not-yet-visible`, polled again after one interval); transient faults are retried
 * up to `maxPollRetries` with backoff ({@link pollRetryDelayMs}), never sooner than `Retry-After` up to
 * {@link MAX_RETRY_AFTER_MS}.
 */
export function pollFailureVerdict(error: unknown, s: PollFailureFacts): PollVerdict {
  const failure = classifyPollError(error);
  if (failure.kind === 'lost') {
    if (s.expired || !s.firstPolls) return { kind: 'lost', reason: 'unknown' };
    if (s.notVisible < s.notYetVisibleRetries)
      return { kind: 'retry', notVisible: true, delayMs: s.floorMs, violation: true };
    return { kind: 'lost', reason: 'not-yet-visible', violation: true };
  }
  if (failure.kind === 'transient' && s.failures + 1 <= s.maxPollRetries) {
    const asked = failure.retryAfterMs;
    const pauseMs = asked === undefined ? undefined : Math.min(asked, MAX_RETRY_AFTER_MS);
    const verdict: PollVerdict = {
      kind: 'retry',
      notVisible: false,
      delayMs: pollRetryDelayMs(s.floorMs, s.failures + 1, pauseMs),
      retryAfterMs: asked,
      report: true,
    };
    if (pauseMs !== undefined) verdict.pauseMs = pauseMs;
    return verdict;
  }
  return { kind: 'fatal', report: failure.kind === 'transient' };
}

// --- The poll interval ---------------------------------------------------------------------------------------

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

// --- Expiry and lost tasks -----------------------------------------------------------------------------------

/** The timestamps a `DetailedTask` or `CreateTaskResult` may carry (ISO 8601 strings). */
export interface TaskTimestamps {
  createdAt?: string;
  lastUpdatedAt?: string;
}

/**
 * The task's age in ms as the server reports it: `lastUpdatedAt − createdAt`, 0 when either is missing or
 * unparseable, never negative.
 */
export function reportedAgeMs(task: TaskTimestamps): number {
  const created = task.createdAt ? Date.parse(task.createdAt) : Number.NaN;
  const updated = task.lastUpdatedAt ? Date.parse(task.lastUpdatedAt) : Number.NaN;
  const age = updated - created;
  return Number.isFinite(age) && age > 0 ? age : 0;
}

/**
 * The local epoch ms at which the task's TTL started: receipt time − reported age. Later receipts may only move it
 * earlier (`previous` is kept when smaller), so an unchanged `lastUpdatedAt` never extends the TTL.
 */
export function ttlStart(task: TaskTimestamps, receivedAt: number, previous?: number): number {
  const start = receivedAt - reportedAgeMs(task);
  return previous === undefined ? start : Math.min(previous, start);
}

/** When the server may forget the task, epoch ms: TTL start + latest `ttlMs`; `null` = never (`ttlMs: null`). */
export function expiresAt(ttlStartMs: number, ttlMs: number | null): number | null {
  return ttlMs === null ? null : ttlStartMs + ttlMs;
}

/** Default fraction of the TTL left at which a task still waiting for input emits `expiring`. */
export const DEFAULT_EXPIRING_MARGIN_RATIO = 0.2;

/** True when `error` says the server does not know the task (-32602 on a `tasks/*` request). */
export function isLostTask(error: unknown): error is McpError {
  return error instanceof McpError && error.code === ErrorCode.InvalidParams;
}

/** What the classifier knows about the task. */
export interface LostTaskFacts {
  taskId: string;
  /** Locally computed expiry (epoch ms), `null` = never, `undefined` = not known. */
  expiresAt: number | null | undefined;
  now: number;
  task?: DetailedTask;
  /** Why it is unknown when not expired. @default 'unknown' */
  reason?: TaskNotFoundReason;
}

/** {@link TaskExpiredError} when the local clock is past the task's expiry, else {@link TaskNotFoundError}. */
export function lostTaskError(facts: LostTaskFacts, cause: unknown): TaskExpiredError | TaskNotFoundError {
  const { taskId, expiresAt, now, task } = facts;
  if (typeof expiresAt === 'number' && now >= expiresAt)
    return new TaskExpiredError(taskId, expiresAt, task, { cause });
  return new TaskNotFoundError(taskId, facts.reason ?? 'unknown', task, { cause });
}

// --- Outcomes ------------------------------------------------------------------------------------------------

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

/** The outcome a stored record stands for. Call only for records with an `outcome`. */
export function settledFromRecord<T>(
  record: TaskRecord,
  parse: (raw: Record<string, unknown>) => T,
): Settled<T> {
  const outcome = record.outcome;
  const task = { taskId: record.taskId, ttlMs: record.ttlMs, statusMessage: record.statusMessage };
  switch (outcome?.status) {
    case 'completed':
      try {
        return { ok: true, value: parse(outcome.result) };
      } catch (error) {
        return { ok: false, error };
      }
    case 'failed':
      return { ok: false, error: new TaskFailedError({ ...task, status: 'failed', error: outcome.error }) };
    case 'cancelled':
      return { ok: false, error: new TaskCancelledError(record.taskId, { ...task, status: 'cancelled' }) };
    case 'expired':
      return {
        ok: false,
        error: new TaskExpiredError(record.taskId, recordExpiresAt(record) ?? record.updatedAt),
      };
    default:
      return { ok: false, error: new TaskNotFoundError(record.taskId, 'unknown') };
  }
}
