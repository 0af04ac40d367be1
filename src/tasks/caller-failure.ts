/**
 * What a caller failure does to a task: a listener of the handle's (or the client's) events about this task, or a
 * late `onTask` / `onProgress` rejection, threw or returned a rejecting promise. Caller code never breaks the engine:
 * the failure reaches here, after the engine's own step (the poll is rescheduled, the answer sent, the cancel sent).
 *
 * - The task is not terminal: an abort of the task with the thrown error (carrying `taskId`) as reason, like a
 *   throwing `onTask`: `onAbort: 'cancel'` (the default) sends `tasks/cancel`, then `result()` rejects with it (or
 *   with {@link CancelDeliveryError}, `abortReason` = the error, when the cancel was not delivered); `'detach'` stops
 *   following at once (the task keeps running, its record resumable) and `result()` rejects with it.
 * - The task is terminal (a throwing `terminal` listener), or already being aborted: the outcome stays the
 *   server's, and a `warning` (client and handle) names the task and the error.
 * - A throwing `warning` listener is dropped: there is nowhere left to report it.
 *
 * @module
 * @internal
 */
import { CancelDeliveryError, CancelNotConfirmedError, redactTaskId } from '../errors.js';
import { withTaskId } from '../internal/race-abort.js';
import { isTerminalStatus } from '../protocol/tasks.js';
import { failureCarrier } from './task-callbacks.js';
import type { HandleInternals } from './handle-internals.js';

const callerAborts = new WeakSet<object>();

/** True when `error` is what a handle settled with after a caller failure (its `tasks/cancel` already sent, or detached). */
export function isCallerAbort(error: unknown): boolean {
  return error !== null && typeof error === 'object' && callerAborts.has(error);
}

/** The handle's answer to a caller failure (see the module doc); acts after the engine's current step. */
export function callerFailed(parts: HandleInternals, error: unknown, event: string): void {
  if (event === 'warning') return;
  queueMicrotask(() => abortForCaller(parts, error, event));
}

function warn(parts: HandleInternals, message: string): void {
  parts.handle.emit('warning', message);
  parts.driver.emitWarning(message);
}

function abortForCaller(parts: HandleInternals, error: unknown, event: string): void {
  const { handle } = parts;
  const id = redactTaskId(handle.taskId);
  const what = `a '${event}' ${event.startsWith('on') ? 'callback' : 'listener'}`;
  if (handle.done || isTerminalStatus(parts.task().status) || parts.callerAbort) {
    const when =
      parts.callerAbort && !handle.done
        ? 'while the task was being aborted for an earlier failure'
        : "after the task ended (the outcome stays the server's)";
    warn(parts, `task ${id}: ${what} threw ${when}: ${String(error)}`);
    return;
  }
  const reason = failureCarrier(error, what);
  const tagged = withTaskId(reason, handle.taskId);
  callerAborts.add(tagged);
  parts.callerAbort = tagged;
  if (parts.onAbort === 'detach') {
    handle.stopFollowing(tagged);
    return;
  }
  const settle = (outcome: unknown): void => {
    if (handle.done)
      warn(
        parts,
        `task ${id}: it ended before the abort for ${what} that threw took effect: ${String(error)}`,
      );
    else handle.stopFollowing(outcome);
  };
  handle.cancel().then(
    () => settle(tagged),
    (failure: unknown) => {
      if (failure instanceof CancelDeliveryError) failure.abortReason = reason;
      settle(failure instanceof CancelNotConfirmedError ? tagged : failure);
    },
  );
}
