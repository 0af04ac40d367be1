/**
 * A unified call (`callTool`, `readResource`, `getPrompt`: the caller holds no handle) whose wait ended without the
 * server's word: the task may still run, so the rejection names it. Polls that failed transiently past the retry
 * budget (a busy or unreachable server) leave the task running and recorded, to be resumed; any other failure (an
 * invalid `tasks/get` answer: the task cannot be followed) follows the call's `onAbort` policy, like an abort.
 * Also here: the bound on how long an aborted caller waits for its task's `tasks/cancel` ({@link boundedCancel}).
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
 *
 * @module
 * @internal
 */
import { isCallerAbort } from './caller-failure.js';
import { CancelDeliveryError, CancelNotConfirmedError, ClientClosedError, redactTaskId } from '../errors.js';
import { withTaskId } from '../internal/race-abort.js';
import { isTerminalStatus } from '../protocol/tasks.js';
import { deliver } from './delivery.js';
import { classifyPollError } from './poll-errors.js';
import type { TaskDriver } from './task-driver.js';
import type { TaskHandle } from './task-handle.js';
import { outcomeOf } from './task-recorder.js';
import type { TrackerContext } from './tracker-context.js';

/** True when `error` is the server's word on the task (or a local end that already names and handles it). */
function isSettledByServer(handle: TaskHandle<unknown>, error: unknown): boolean {
  if (outcomeOf({ ok: false, error }) !== undefined) return true;
  if (
    error instanceof ClientClosedError ||
    error instanceof CancelNotConfirmedError ||
    error instanceof CancelDeliveryError
  )
    return true;
  if (isCallerAbort(error)) return true; // a caller failure: already cancelled (or detached) by the handle itself
  return isTerminalStatus(handle.task.status);
}

/**
 * What the call rejects with after its task's wait failed with `error`: `error` carrying `taskId`. When the server
 * had not settled the task: after transient poll failures, or with `'detach'`, it is left running (recorded when a
 * store is set, otherwise a `warning` names it); otherwise `'cancel'` (the default) sends one delivered
 * `tasks/cancel` (a failed delivery is a `warning`) and marks the record `cancelRequested`.
 */
export async function afterFollowFailure(
  ctx: TrackerContext,
  driver: TaskDriver | undefined,
  handle: TaskHandle<unknown>,
  policy: 'cancel' | 'detach' | undefined,
  error: unknown,
  drained: () => Promise<void>,
): Promise<unknown> {
  const tagged = withTaskId(error, handle.taskId);
  if (isSettledByServer(handle, error)) return tagged;
  const id = redactTaskId(handle.taskId);
  if (policy === 'detach' || !driver || classifyPollError(error).kind === 'transient') {
    if (!ctx.config.store)
      ctx.emit.warning(
        `${handle.method}: stopped following task ${id} (${String(error)}); it may still be running`,
      );
    return tagged;
  }
  await drained();
  const store = ctx.config.store;
  if (store) {
    const record = await store.get(handle.taskId, driver.serverKey).catch(() => undefined);
    if (record && !record.outcome)
      await store
        .put({ ...record, cancelRequested: true, updatedAt: ctx.config.now() })
        .catch((e: unknown) => ctx.emit.warning(`task store: could not write ${id}: ${String(e)}`));
  }
  try {
    await deliver(() => driver.cancelTask(handle.taskId), driver.deliveryRetry, driver.signal);
  } catch (failure) {
    ctx.emit.warning(
      `${handle.method}: tasks/cancel for task ${id} (its wait failed) was not delivered: ${String((failure as Error).cause ?? failure)}`,
    );
  }
  return tagged;
}

/**
 * Waits for an abort's `cancelling` (resolving to what the call rejects with) at most `limits.abortGraceMs` (ms); then
 * resolves with `tagged` (the abort reason carrying `taskId`) and lets the delivery go on: a final failure becomes a
 * `warning` event naming the task (its record keeps `cancelRequested`, resumable).
 */
export async function boundedCancel(
  ctx: TrackerContext,
  taskId: string,
  cancelling: Promise<unknown>,
  tagged: unknown,
): Promise<unknown> {
  const graceMs = ctx.config.limits.abortGraceMs;
  const late = Symbol('late');
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<typeof late>((resolve) => (timer = setTimeout(() => resolve(late), graceMs)));
  const first = await Promise.race([cancelling, waited]);
  clearTimeout(timer);
  if (first !== late) return first;
  void cancelling.then((result) => {
    if (result !== tagged)
      ctx.emit.warning(
        `tasks/cancel for task ${redactTaskId(taskId)} (the caller aborted) ${cancelFailure(result)}; its record keeps cancelRequested`,
      );
  });
  return tagged;
}

/** The {@link ClientClosedError} a call rejects with when close() aborted it and its `tasks/cancel` failed (`cause`). */
export function closedWithCause(taskId: string, failure: unknown): ClientClosedError {
  const closed = new ClientClosedError(undefined, { cause: failure });
  closed.taskId = taskId;
  return closed;
}

/** What became of a failed `tasks/cancel`, truthfully: a close cut it short (it may have been sent), or it failed. */
function cancelFailure(result: unknown): string {
  const failure = result instanceof ClientClosedError && result.cause !== undefined ? result.cause : result; // unwrap closedWithCause
  const closed =
    failure instanceof ClientClosedError ||
    (failure instanceof Error && failure.cause instanceof ClientClosedError);
  return closed
    ? 'got no answer before the client closed (it may have reached the server)'
    : `failed: ${String(failure)}`;
}
