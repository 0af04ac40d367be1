/**
 * The one writer of task records: a record is written before a new task's handle is handed out, then on every
 * state the server sends, every acknowledged answer, a cancel request, and the outcome. A record keeps the last
 * `DetailedTask` as the server sent it plus local facts (receipt time, TTL start, answered keys, cancel
 * requested, outcome). Writes for one task never overtake each other.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling)
 *
 * @module
 * @internal
 */
import { TaskCancelledError, TaskExpiredError, TaskFailedError, TaskNotFoundError } from '../errors.js';
import type { DetailedTask } from '../protocol/tasks.js';
import {
  storedTaskError,
  TASK_RECORD_VERSION,
  type TaskOutcome,
  type TaskRecord,
} from '../store/task-record.js';
import type { TaskStore } from '../store/task-store.js';
import type { TaskHandle } from './task-handle.js';

/**
 * The terminal outcome to store for a settled handle (a failed task's error as `storedTaskError` keeps it), or
 * `undefined` when the task stays resumable (transport trouble, a cancel not yet confirmed, an answer not
 * delivered: the task may still be running).
 */
export function outcomeOf(
  settled: { ok: true; value: unknown } | { ok: false; error: unknown },
): TaskOutcome | undefined {
  if (settled.ok) return { status: 'completed', result: settled.value as Record<string, unknown> };
  const error = settled.error;
  if (error instanceof TaskFailedError)
    return error.error ? { status: 'failed', error: storedTaskError(error.error) } : { status: 'failed' };
  if (error instanceof TaskCancelledError) return { status: 'cancelled' };
  if (error instanceof TaskExpiredError) return { status: 'expired' };
  if (error instanceof TaskNotFoundError) return { status: 'unknown' };
  return undefined;
}

/** What the first record of a task says besides the task itself. */
export interface NewRecordFacts {
  server: string;
  method: string;
  name?: string;
  params?: Record<string, unknown>;
  idempotencyKey?: string;
  /** `traceparent` of the task's first span, when traced. */
  traceparent?: string;
}

/** The fields a record takes from the latest task state. */
function fromTask(task: DetailedTask, receivedAt: number): Partial<TaskRecord> {
  const change: Partial<TaskRecord> = {
    status: task.status,
    ttlMs: task.ttlMs,
    statusMessage: task.statusMessage,
    // A failed task's error is kept in part when huge (storedTaskError); the caller gets it whole.
    task:
      task.status === 'failed' && task.error ? { ...task, error: storedTaskError(task.error) } : { ...task },
    receivedAt,
  };
  if (task.pollIntervalMs !== undefined && Number.isFinite(task.pollIntervalMs))
    change.pollIntervalMs = task.pollIntervalMs;
  return change;
}

/** Builds the first record of a task; `ttlStartAt` is the local start of its TTL. */
export function newRecord(
  task: DetailedTask,
  receivedAt: number,
  ttlStartAt: number,
  facts: NewRecordFacts,
): TaskRecord {
  const { traceparent, ...rest } = facts;
  const record = {
    version: TASK_RECORD_VERSION,
    ...rest,
    ...(traceparent !== undefined ? { traceparent } : {}),
    taskId: task.taskId,
    localCreatedAt: ttlStartAt,
    answeredKeys: [],
    updatedAt: receivedAt,
    ...fromTask(task, receivedAt),
  };
  if (record.statusMessage === undefined) delete record.statusMessage;
  return record as TaskRecord;
}

/**
 * Follows `handle` and writes `record` to `store` on each change; a state the handle already moved to before this
 * call is written at once. The outcome's write is queued the moment the handle settles, and the handle's `result()`
 * and `cancel()` wait for the writes queued before they settle, so a process that exits right after `await` keeps
 * the final record. Store failures are reported through `onError` and never break the call.
 *
 * @returns a function resolving once every write queued so far is done (the outcome's too, once the handle settled).
 */
export function recordHandle(
  store: TaskStore,
  handle: TaskHandle<unknown>,
  initial: TaskRecord,
  now: () => number,
  onError: (error: unknown) => void,
): () => Promise<void> {
  let record = initial;
  let queue: Promise<void> = Promise.resolve();
  let queued = false;
  const answered = new Set(initial.answeredKeys);
  // Changes that arrive while a write waits its turn join it: the write stores the latest record.
  const write = (change: Partial<TaskRecord>): void => {
    record = { ...record, ...change, updatedAt: now() };
    if (queued) return;
    queued = true;
    queue = queue
      .then(() => {
        queued = false;
        return store.put(record);
      })
      .catch(onError);
  };
  /** Waits until no write is queued or running (a write queued meanwhile is waited for too). */
  const drain = async (): Promise<void> => {
    for (let last: Promise<void> | undefined; last !== queue; ) {
      last = queue;
      await last;
    }
  };
  const onStatus = (task: DetailedTask): void =>
    write({ ...fromTask(task, now()), localCreatedAt: handle.localCreatedAt });
  handle.on('status', onStatus);
  if (handle.task.status !== record.status || handle.task.statusMessage !== record.statusMessage)
    onStatus(handle.task);
  const answers = [...(initial.answers ?? [])];
  handle.on('answered', (key, detail) => {
    answered.add(key);
    if (detail) answers.push({ key, ...detail });
    write(detail ? { answeredKeys: [...answered], answers: [...answers] } : { answeredKeys: [...answered] });
  });
  handle.on('cancelRequested', () => write({ cancelRequested: true }));
  // Followed again, first traced now (an older record, or no provider then): this span is the one to link to.
  if (record.traceparent === undefined && handle.traceparent !== undefined)
    write({ traceparent: handle.traceparent });
  if (handle.cancelRequested && !record.cancelRequested) write({ cancelRequested: true });
  handle.recordWith((settled) => {
    const outcome = outcomeOf(settled);
    // Nobody awaits the outcome (a detached call, a departed host): the record says so until someone collects it
    write(outcome ? (handle.awaited ? { outcome } : { outcome, uncollected: true }) : {});
  }, drain);
  return drain;
}
