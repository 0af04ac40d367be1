/**
 * The {@link TaskDriver} of one era backend's handles: the backend's task operations plus the engine's shared
 * parts (scheduler, poll policy, handlers, retry budgets, the update sender, the close signal, client events).
 *
 * @module
 * @internal
 */
import { withTaskId } from '../internal/race-abort.js';
import type { EraBackend } from './backend.js';
import type { PollGate, TaskDriver } from './task-driver.js';
import type { TrackerContext } from './tracker-context.js';
import { UpdateSender } from './update-sender.js';

/**
 * A new driver for `backend`'s handles; `signal` aborts when the engine closes; `gate` is the engine's poll gate
 * (see {@link PollGate}), asked before every `tasks/get`.
 */
export function buildDriver(
  backend: EraBackend,
  c: TrackerContext,
  signal: AbortSignal,
  gate: PollGate,
): TaskDriver {
  const poll = (id: string): Promise<Record<string, unknown>> => {
    let fenced: ReturnType<PollGate>;
    try {
      fenced = gate(id);
    } catch (error) {
      return Promise.reject(error); // refused: nothing is sent
    }
    return fenced
      ? fenced.then((writeCheck) => backend.ops.getTask(id, writeCheck))
      : backend.ops.getTask(id);
  };
  return {
    ...backend.ops,
    getTask: (id) => poll(id).catch((error: unknown) => Promise.reject(withTaskId(error, id))), // poll errors name their task
    updateTask: (id, responses) => backend.ops.updateTask(id, responses),
    cancelTask: (id) => backend.ops.cancelTask(id),
    serverKey: c.serverKey,
    scheduler: c.scheduler,
    policy: c.policy,
    handlers: c.handlers,
    maxPollRetries: c.maxPollRetries,
    notYetVisibleRetries: c.notYetVisibleRetries,
    expiringMarginRatio: c.expiringMarginRatio,
    deliveryRetry: c.deliveryRetry,
    updates: new UpdateSender(
      (id, responses) => backend.ops.updateTask(id, responses),
      c.maxConcurrentUpdates,
      c.deliveryRetry,
    ),
    signal,
    questionsOutOfBand: backend.questionsOutOfBand,
    now: c.now,
    emitInput: c.emit.inputRequired,
    emitWarning: c.emit.warning,
    emitExpiring: c.emit.expiring,
  };
}
