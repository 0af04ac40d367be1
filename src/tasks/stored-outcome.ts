/**
 * Turning a stored terminal outcome back into what `result()` gives.
 *
 * @module
 * @internal
 */
import { TaskCancelledError, TaskExpiredError, TaskFailedError, TaskNotFoundError } from '../errors.js';
import { recordExpiresAt, type TaskRecord } from '../store/task-record.js';
import type { Settled } from './task-handle.js';

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
