/**
 * What the task engine needs from its client (policies, the store, where events go), and the guard that keeps a
 * malformed creation result that still names a task from orphaning it.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-creation)
 *
 * @module
 * @internal
 */
import { InvalidResponseError, redactTaskId, type TaskCancelOutcome } from '../errors.js';
import { printableExcerpt } from '../protocol/printable.js';
import { MAX_CANCEL_NAME_HEADER_BYTES, taskIdProblem } from '../protocol/task-id.js';
import { TaskStatusSchema, type TaskShapeError } from '../protocol/tasks.js';
import { TASK_RECORD_VERSION, type TaskRecord } from '../store/task-record.js';
import { encodeHeaderValue } from '../transport/header-encoding.js';
import { deliver, DeliveryFailure } from './delivery.js';
import type { InputRequiredEvent } from './input-broker.js';
import type { EngineConfig } from './config.js';
import type { PushFollowable } from './push/push-tracker.js';
import type { PollScheduler } from './scheduler.js';
import type { ExpiringEvent, TaskDriver } from './task-driver.js';
import type { TaskHandle } from './task-handle.js';

/** The client's side of the engine. */
export interface TrackerContext {
  /** Told when a task starts and stops being followed. */
  push?: { follow(handle: PushFollowable): void; unfollow(taskId: string): void } | undefined;
  /** The client's resolved options, read by reference. */
  config: EngineConfig;
  scheduler: PollScheduler;
  emit: {
    inputRequired(event: InputRequiredEvent): void;
    warning(message: string): void;
    expiring(event: ExpiringEvent): void;
    serverViolation(detail: string): void;
    task(handle: TaskHandle<unknown>): void;
  };
}

/**
 * A `CreateTaskResult` failed validation. When it still carries a usable `taskId`, that task may be running: it is
 * cancelled (`onAbort: 'cancel'`, one delivered `tasks/cancel`) or recorded (`'detach'`) before the caller learns.
 * An id this client refuses (control characters, over MAX_TASK_ID_BYTES, U+FFFD, lone surrogates) cannot be recorded
 * or followed: with `'cancel'` it still gets its `tasks/cancel`, sent with the raw id, when its encoded `Mcp-Name`
 * header value is at most {@link MAX_CANCEL_NAME_HEADER_BYTES}; otherwise (or with `'detach'`) a `warning` reports
 * it, escaped.
 *
 * @returns the {@link InvalidResponseError} to throw, with `taskId` when it is usable, `taskIdEscaped` whenever a
 *   string id was named, and `taskCancel` saying what became of that task.
 */
export async function orphanGuard(
  ctx: TrackerContext,
  driver: TaskDriver,
  method: string,
  params: Record<string, unknown>,
  created: Record<string, unknown>,
  policy: 'cancel' | 'detach' | undefined,
  error: TaskShapeError,
): Promise<InvalidResponseError> {
  const raw = created.taskId !== undefined ? created : ((created.task ?? {}) as Record<string, unknown>);
  const named = typeof raw.taskId === 'string' && raw.taskId.length > 0 ? raw.taskId : undefined;
  const taskId = named !== undefined && taskIdProblem(named) === undefined ? named : undefined;
  const taskIdEscaped = named === undefined ? undefined : printableExcerpt(named, 256);
  let taskCancel: TaskCancelOutcome | undefined;
  if (named !== undefined && taskId === undefined)
    taskCancel = await cancelUnusable(ctx, driver, method, named, policy);
  else if (taskId !== undefined && policy === 'detach')
    taskCancel = await recordDetached(ctx, driver, method, params, raw, taskId);
  else if (taskId !== undefined) {
    taskCancel = await cancelNamed(driver, taskId);
    if (taskCancel.kind !== 'cancel-requested')
      ctx.emit.warning(
        `${method}: tasks/cancel for the malformed task ${redactTaskId(taskId)} ${failedHow(taskCancel)}`,
      );
  }
  return new InvalidResponseError(method, error.message, error.issues, {
    cause: error,
    taskId,
    taskIdEscaped,
    taskCancel,
  });
}

/** Records a usable task left running (`onAbort: 'detach'`) in the store, or warns when there is none. */
async function recordDetached(
  ctx: TrackerContext,
  driver: TaskDriver,
  method: string,
  params: Record<string, unknown>,
  raw: Record<string, unknown>,
  taskId: string,
): Promise<TaskCancelOutcome> {
  if (ctx.config.store) {
    const status = TaskStatusSchema.safeParse(raw.status);
    const now = ctx.config.now();
    const record: TaskRecord = {
      version: TASK_RECORD_VERSION,
      server: driver.serverKey,
      method,
      name: typeof params.name === 'string' ? params.name : undefined,
      taskId,
      localCreatedAt: now,
      ttlMs: typeof raw.ttlMs === 'number' && Number.isFinite(raw.ttlMs) ? raw.ttlMs : null,
      status: status.success && status.data !== 'input_required' ? status.data : 'working',
      answeredKeys: [],
      receivedAt: now,
      updatedAt: now,
    };
    await ctx.config.store
      .put(record)
      .catch((e: unknown) =>
        ctx.emit.warning(`task store: could not write ${redactTaskId(taskId)}: ${String(e)}`),
      );
  } else {
    ctx.emit.warning(
      `${method}: malformed CreateTaskResult for task ${redactTaskId(taskId)}; it may be running (no store to record it)`,
    );
  }
  return { kind: 'not-sent', reason: 'detached' };
}

/** One delivered `tasks/cancel` for `taskId` (bounded retries), told as a {@link TaskCancelOutcome}. */
async function cancelNamed(driver: TaskDriver, taskId: string): Promise<TaskCancelOutcome> {
  try {
    await deliver(() => driver.cancelTask(taskId), driver.deliveryRetry, driver.signal);
    return { kind: 'cancel-requested' };
  } catch (failure) {
    if (!(failure instanceof DeliveryFailure))
      return { kind: 'cancel-not-delivered', refused: false, cause: failure }; // the client closed
    // The request arrived and the server answered, just not with the acknowledgement (e.g. resultType "task").
    if (failure.cause instanceof InvalidResponseError)
      return { kind: 'cancel-not-confirmed', cause: failure.cause };
    return { kind: 'cancel-not-delivered', refused: !failure.transient, cause: failure.cause };
  }
}

/** The tail of a warning about a `tasks/cancel` that was not acknowledged. */
function failedHow(outcome: TaskCancelOutcome): string {
  const cause = 'cause' in outcome ? outcome.cause : undefined;
  const why = String((cause as Error | undefined)?.message ?? cause);
  if (outcome.kind === 'cancel-not-confirmed')
    return `reached the server, but its reply was not an acknowledgement: ${why}; it may be running`;
  return `${outcome.kind === 'cancel-not-delivered' && outcome.refused ? 'was refused' : 'could not be delivered'}: ${why}; it may be running`;
}

/**
 * Cancels (raw id, `'cancel'` policy, encoded `Mcp-Name` within {@link MAX_CANCEL_NAME_HEADER_BYTES}) or reports
 * (escaped) a task named by an id this client refuses.
 */
async function cancelUnusable(
  ctx: TrackerContext,
  driver: TaskDriver,
  method: string,
  named: string,
  policy: 'cancel' | 'detach' | undefined,
): Promise<TaskCancelOutcome> {
  const shown = printableExcerpt(named, 64);
  const headerBytes = encodeHeaderValue(named).length; // ASCII: verbatim printable ASCII or base64
  if (policy === 'detach' || headerBytes > MAX_CANCEL_NAME_HEADER_BYTES) {
    const why =
      policy === 'detach'
        ? 'left running (onAbort: detach)'
        : `not cancelled: the id takes ${headerBytes} bytes in the Mcp-Name header, over ${MAX_CANCEL_NAME_HEADER_BYTES}`;
    ctx.emit.warning(
      `${method}: the server named task "${shown}" with an id this client refuses (${taskIdProblem(named)}); it may be running, ${why}`,
    );
    return { kind: 'not-sent', reason: policy === 'detach' ? 'detached' : 'id-too-long' };
  }
  const outcome = await cancelNamed(driver, named);
  if (outcome.kind !== 'cancel-requested')
    ctx.emit.warning(
      `${method}: tasks/cancel for the task "${shown}" (an id this client refuses) ${failedHow(outcome)}`,
    );
  return outcome;
}
