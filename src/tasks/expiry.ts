/**
 * The one place a task's expiry is computed, from the client's clock only: local receipt time + `ttlMs` − the
 * task's age as the server reported it (`lastUpdatedAt − createdAt`). The server's timestamps are compared only
 * with each other, never with the local clock, so a server hours behind or ahead cannot make a fresh task look
 * expired. (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling)
 *
 * @module
 */

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
