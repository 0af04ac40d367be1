/**
 * Keeps a task's stored record in step with its handle: written before the handle is handed out, then on every
 * status change, every acknowledged answer, and the terminal outcome. Writes for one task never overtake each
 * other. (CLIENT-REQUIREMENTS 5.6; issue 6)
 *
 * @module
 * @internal
 */
import { TaskCancelledError, TaskExpiredError, TaskFailedError, TaskNotFoundError } from '../errors.js';
import type { DetailedTask } from '../protocol/tasks.js';
import { TASK_RECORD_VERSION, type TaskOutcome, type TaskRecord } from '../store/task-record.js';
import type { TaskStore } from '../store/task-store.js';
import type { TaskHandle } from '../tasks/task-handle.js';

/** The terminal outcome to store for a settled handle, or `undefined` when the task stays resumable. */
export function outcomeOf(settled: { ok: true; value: unknown } | { ok: false; error: unknown }): TaskOutcome | undefined {
  if (settled.ok) return { status: 'completed', result: settled.value as Record<string, unknown> };
  const error = settled.error;
  if (error instanceof TaskFailedError) return error.error ? { status: 'failed', error: error.error } : { status: 'failed' };
  if (error instanceof TaskCancelledError) return { status: 'cancelled' };
  if (error instanceof TaskExpiredError) return { status: 'expired' };
  if (error instanceof TaskNotFoundError) return { status: 'unknown' };
  return undefined; // transport trouble: the task may still be running, keep it resumable
}

/** What the first record of a new task says besides the task itself. */
export interface NewRecordFacts {
  server: string;
  method: string;
  name?: string;
  params?: Record<string, unknown>;
  idempotencyKey?: string;
}

/** Builds the first record of a task. */
export function newRecord(task: DetailedTask, localCreatedAt: number, facts: NewRecordFacts, now: number): TaskRecord {
  const record: TaskRecord = {
    version: TASK_RECORD_VERSION,
    ...facts,
    taskId: task.taskId,
    localCreatedAt,
    ttlMs: task.ttlMs,
    status: task.status,
    answeredKeys: [],
    updatedAt: now,
  };
  if (task.pollIntervalMs !== undefined && Number.isFinite(task.pollIntervalMs)) record.pollIntervalMs = task.pollIntervalMs;
  if (task.statusMessage !== undefined) record.statusMessage = task.statusMessage;
  return record;
}

/**
 * Follows `handle` and writes `record` to `store` on each change; a state the handle already moved to before this
 * call is written at once. Store failures are reported through `onError` and never break the call.
 *
 * @returns a function resolving once every write queued so far is done (the outcome's too, once the handle settled).
 */
export function recordHandle(store: TaskStore, handle: TaskHandle<unknown>, initial: TaskRecord, now: () => number, onError: (error: unknown) => void): () => Promise<void> {
  let record = initial;
  let queue: Promise<void> = Promise.resolve();
  const write = (change: Partial<TaskRecord>): void => {
    record = { ...record, ...change, updatedAt: now() };
    const snapshot = record;
    queue = queue.then(() => store.put(snapshot)).catch(onError);
  };
  const onStatus = (task: DetailedTask): void => {
    const change: Partial<TaskRecord> = { status: task.status, ttlMs: task.ttlMs, statusMessage: task.statusMessage };
    if (task.pollIntervalMs !== undefined && Number.isFinite(task.pollIntervalMs)) change.pollIntervalMs = task.pollIntervalMs;
    write(change);
  };
  handle.on('status', onStatus);
  if (handle.task.status !== record.status || handle.task.statusMessage !== record.statusMessage) onStatus(handle.task);
  handle.on('answered', (key) => write({ answeredKeys: [...new Set([...record.answeredKeys, key])] }));
  const settled = handle.result().then(
    (value) => write({ outcome: outcomeOf({ ok: true, value }) }),
    (error: unknown) => {
      const outcome = outcomeOf({ ok: false, error });
      if (outcome) write({ outcome, status: outcome.status === 'expired' || outcome.status === 'unknown' ? record.status : outcome.status });
    },
  );
  return async () => {
    if (handle.done) await settled;
    await queue;
  };
}
