/**
 * The parts of a task handle's life that talk back to the server besides polling: delivering `tasks/cancel`,
 * delivering answers with `tasks/update` (never after a cancel or close; re-offered once when rejected), and the
 * `expiring` timer of a task that waits for input.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
 *
 * @module
 * @internal
 */
import {
  CancelDeliveryError,
  CancelNotConfirmedError,
  ClientClosedError,
  InputDeliveryError,
  InvalidResponseError,
  redactTaskId,
} from '../errors.js';
import { withTaskId } from '../internal/race-abort.js';
import { durationError } from '../internal/duration.js';
import { withListenerSink } from '../internal/safe-emitter.js';
import { keysOf, unknownOptionError } from '../internal/option-keys.js';
import { isTerminalStatus, parseDetailedTask, type DetailedTask } from '../protocol/tasks.js';
import { deliver, DeliveryFailure } from './delivery.js';
import { InputScope } from './input-broker.js';
import { isLostTask } from './lost-task.js';
import { classifyPollError } from './poll-errors.js';
import type { TaskDriver } from './task-driver.js';
import type { HandleInternals } from './handle-internals.js';
import { watchExpiry } from './expiring-timer.js';

export { watchExpiry } from './expiring-timer.js';
import type { CancelOptions, ResultOptions } from './task-handle-types.js';

export type { HandleInternals, HandleView } from './handle-internals.js';

/**
 * Delivers `tasks/cancel`. A -32602 answer means the task already ended or is gone: the task is read once; a
 * terminal state there settles the handle, a second -32602 is classified (expired / unknown).
 *
 * @throws {@link CancelDeliveryError} when transient failures outlasted the retries, the server's `Retry-After`
 *   would take the next attempt past `DELIVERY_BUDGET_MS` (`retryAfterMs` set), or the server refused;
 *   {@link CancelNotConfirmedError} (`invalidAck`, a `serverViolation` event) when the server's reply was not the
 *   empty acknowledgement (`resultType` other than `"complete"`, ext-tasks § Task Cancellation).
 */
export async function sendCancel(parts: HandleInternals): Promise<void> {
  const { driver, handle } = parts;
  // Retries stop when the client closes, or when the server reports the task's end (a terminal status settles the
  // handle): a cancel of a task the server says has ended is moot, and cancel() resolves.
  const retries = (parts.cancelRetries = new AbortController());
  const onClose = (): void => retries.abort(driver.signal.reason);
  if (driver.signal.aborted) onClose();
  else driver.signal.addEventListener('abort', onClose, { once: true });
  try {
    await deliver(() => driver.cancelTask(handle.taskId), driver.deliveryRetry, retries.signal);
  } catch (failure) {
    if (failure === TASK_ENDED) return;
    if (!(failure instanceof DeliveryFailure)) throw failure; // the client closed
    const error = failure.cause;
    if (isLostTask(error)) return readOnce(parts);
    if (error instanceof InvalidResponseError) {
      // The request arrived and the server answered, just not with the acknowledgement (e.g. resultType "task").
      handle.emit('serverViolation', `task ${redactTaskId(handle.taskId)}: ${error.message}`);
      throw new CancelNotConfirmedError(handle.taskId, parts.task(), { cause: error, invalidAck: true });
    }
    throw new CancelDeliveryError(handle.taskId, parts.task(), failure.attempts, {
      cause: error,
      refused: !failure.transient,
      retryAfterMs: failure.retryAfterMs,
    });
  } finally {
    driver.signal.removeEventListener('abort', onClose);
  }
}

/** The reason `tasks/cancel` retries stop when the server reported the task's end. */
const TASK_ENDED = Symbol('the server reported the task ended');

async function readOnce(parts: HandleInternals): Promise<void> {
  try {
    parts.apply(parseDetailedTask(await parts.driver.getTask(parts.handle.taskId)));
  } catch (error) {
    if (isLostTask(error)) parts.fail(parts.lost(error));
    else parts.handle.emit('error', error); // polling goes on and will tell
  }
}

function warn(parts: HandleInternals, message: string): void {
  parts.handle.emit('warning', message);
  parts.driver.emitWarning(message);
}

/** The input scope of a task: answers go out through the driver's update sender, batched and bounded. */
export function taskInputScope(
  parts: HandleInternals,
  answeredKeys: Iterable<string> | undefined,
  expiresAt: () => number | null,
): InputScope {
  const { handle, driver } = parts;
  return new InputScope(
    {
      method: handle.method,
      taskId: handle.taskId,
      handlers: driver.handlers,
      expiresAt,
      deliver: async (key, response, options) => {
        if (parts.cancelRequested || handle.done || driver.signal.aborted) {
          const why = parts.cancelRequested
            ? 'a cancel was requested'
            : driver.signal.aborted
              ? 'the client was closed'
              : 'the task is no longer followed';
          warn(
            parts,
            `task ${redactTaskId(handle.taskId)}: answer to input request ${JSON.stringify(key)} dropped, not sent: ${why}`,
          );
          return false;
        }
        try {
          await driver.updates.send(handle.taskId, key, response, updatesSignal(parts));
        } catch (failure) {
          throw onUpdateFailure(parts, key, failure);
        }
        const action = (response as { action?: unknown }).action;
        handle.emit('answered', key, {
          ...(typeof action === 'string' ? { action } : {}),
          ...(options?.answeredBy !== undefined ? { answeredBy: options.answeredBy } : {}),
          answeredAt: driver.now(),
        });
        return true;
      },
      emit: (event) =>
        withListenerSink(parts.sink, () => {
          handle.emit('inputRequired', event);
          driver.emitInput(event);
        }),
      onHandlerError: (error) => handle.emit('error', error),
    },
    answeredKeys,
  );
}

/**
 * The rule for a `tasks/update` that failed: -32602 means the task is gone (polled at once, which classifies it);
 * transient failures past the retries fail the handle with {@link InputDeliveryError}; a definitive rejection
 * re-offers the question once (one new `inputRequired` event, same key), and a second one fails the handle.
 * Returns the error `respond()` rejects with.
 */
function onUpdateFailure(parts: HandleInternals, key: string, failure: unknown): unknown {
  if (failure instanceof UpdatesStopped) return stoppedError(parts, key, failure);
  if (!(failure instanceof DeliveryFailure)) return failure;
  const error = failure.cause;
  if (isLostTask(error)) {
    void readAfterLostUpdate(parts, key, error);
    return error;
  }
  return rejected(parts, key, error, failure.transient);
}

/** Why the retries of a task's `tasks/update` stopped before it was delivered: the abort reason of its deliveries. */
class UpdatesStopped extends Error {
  constructor(
    readonly why: 'closed' | 'cancel' | 'done',
    options?: ErrorOptions,
  ) {
    super(
      `tasks/update retries stopped: ${why === 'closed' ? 'the client was closed' : why === 'cancel' ? 'a cancel was requested' : 'the task is no longer followed'}`,
      options,
    );
  }
}

/** The signal that stops this task's update deliveries; it aborts by itself when the client closes. */
function updatesSignal(parts: HandleInternals): AbortSignal {
  if (!parts.updates) {
    const controller = new AbortController();
    const closing = parts.driver.signal;
    const onClose = (): void => controller.abort(new UpdatesStopped('closed'));
    if (closing.aborted) onClose();
    else closing.addEventListener('abort', onClose, { once: true });
    parts.updates = { controller, unlisten: () => closing.removeEventListener('abort', onClose) };
  }
  return parts.updates.controller.signal;
}

/**
 * Stops the retries of this task's `tasks/update` deliveries at once (a cancel was requested, or the handle settled
 * or stopped following, `cause` its error): nothing more is sent, and each waiting `respond()` rejects with
 * {@link stoppedError}'s typed error.
 */
export function stopUpdates(parts: HandleInternals, why: 'cancel' | 'done', cause?: unknown): void {
  parts.updates?.controller.abort(new UpdatesStopped(why, { cause }));
  if (why === 'done') parts.updates?.unlisten();
}

/**
 * What `respond()` rejects with when its update's retries were stopped: {@link ClientClosedError} (carrying `taskId`)
 * when the client closed or the handle stopped on a close; otherwise {@link InputDeliveryError} naming the key, the
 * reason as `cause`. The handle itself is not failed by this (after a cancel it keeps following).
 */
function stoppedError(parts: HandleInternals, key: string, stopped: UpdatesStopped): Error {
  const taskId = parts.handle.taskId;
  if (stopped.why === 'closed') return withTaskId(new ClientClosedError(), taskId);
  if (stopped.cause instanceof ClientClosedError) return withTaskId(stopped.cause, taskId);
  return new InputDeliveryError(taskId, key, parts.task(), { cause: stopped });
}

/**
 * Everything a settled handle stops: the cancel's `waitMs` timer, the `expiring` timer, update retries, and the
 * retries of `tasks/cancel` when the settling status is the server's terminal one.
 */
export function settleParts(parts: HandleInternals, error: unknown): void {
  clearTimeout(parts.cancelTimer);
  if (isTerminalStatus(parts.task().status)) parts.cancelRetries?.abort(TASK_ENDED);
  watchExpiry(parts, null);
  stopUpdates(parts, 'done', error);
}

/**
 * After a -32602 answer to `tasks/update`, the task is read once: gone → classified (expired / unknown); still
 * alive and still asking `key` → the answer was rejected like any definitive rejection (re-offered once, then
 * {@link InputDeliveryError}); anything else → polling goes on.
 */
async function readAfterLostUpdate(parts: HandleInternals, key: string, error: unknown): Promise<void> {
  let next: DetailedTask;
  try {
    next = parseDetailedTask(await parts.driver.getTask(parts.handle.taskId));
  } catch (failure) {
    if (isLostTask(failure)) parts.fail(parts.lost(failure));
    else parts.pollNow(); // polling goes on and will tell
    return;
  }
  if (parts.handle.done || next.taskId !== parts.handle.taskId) return;
  parts.apply(next);
  if (parts.handle.done || next.status !== 'input_required' || !Object.hasOwn(next.inputRequests, key))
    return;
  rejected(parts, key, error, false);
}

/** A definitive (or transient past the retries) rejection of the answer to `key`; returns what `respond()` throws. */
function rejected(parts: HandleInternals, key: string, error: unknown, transient: boolean): unknown {
  const { handle } = parts;
  parts.rejections ??= new Map();
  const rejections = (parts.rejections.get(key) ?? 0) + 1;
  parts.rejections.set(key, rejections);
  const fatal = new InputDeliveryError(handle.taskId, key, parts.task(), { cause: error });
  if (transient || rejections >= 2) {
    parts.fail(fatal);
    return fatal;
  }
  // After respond()'s own bookkeeping has reopened the key.
  setTimeout(() => {
    if (!handle.done) parts.scope?.reoffer(key);
  }, 0);
  return error;
}

/** What to do after a failed poll. */
export type PollVerdict =
  | { kind: 'retry'; notVisible: boolean; retryAfterMs?: number; violation?: boolean; report?: boolean }
  | { kind: 'lost'; reason: 'unknown' | 'not-yet-visible'; violation?: boolean; report?: boolean }
  | { kind: 'fatal'; violation?: boolean; report?: boolean };

/**
 * The rule for a failed `tasks/get`: -32602 is a lost task (classified expired / unknown), except for a bounded
 * re-check right after creation (`not-yet-visible`); transient faults are retried up to `maxPollRetries`.
 */
export function pollFailureVerdict(
  error: unknown,
  s: { expired: boolean; firstPolls: boolean; notVisible: number; failures: number; driver: TaskDriver },
): PollVerdict {
  const failure = classifyPollError(error);
  if (failure.kind === 'lost') {
    if (s.expired || !s.firstPolls) return { kind: 'lost', reason: 'unknown' };
    if (s.notVisible < s.driver.notYetVisibleRetries)
      return { kind: 'retry', notVisible: true, violation: true };
    return { kind: 'lost', reason: 'not-yet-visible', violation: true };
  }
  if (failure.kind === 'transient' && s.failures + 1 <= s.driver.maxPollRetries)
    return { kind: 'retry', notVisible: false, retryAfterMs: failure.retryAfterMs, report: true };
  return { kind: 'fatal', report: failure.kind === 'transient' };
}

const RESULT_OPTION_KEYS = keysOf<ResultOptions>()({ signal: true });
const CANCEL_OPTION_KEYS = keysOf<CancelOptions>()({ waitMs: true });

/** The `TypeError` for options of `result()` / `cancel()` with a key neither has, or a `waitMs` breaking the duration rule (0 allowed). */
export function handleOptionsError(method: 'result' | 'cancel', options: unknown): TypeError | undefined {
  const unknown = unknownOptionError(
    `TaskHandle.${method}`,
    options,
    method === 'result' ? RESULT_OPTION_KEYS : CANCEL_OPTION_KEYS,
  );
  return (
    unknown ??
    (method === 'cancel'
      ? durationError('TaskHandle.cancel', 'waitMs', (options as CancelOptions | undefined)?.waitMs, {
          min: 'zero',
        })
      : undefined)
  );
}
