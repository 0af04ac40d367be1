/**
 * The {@link TaskDriver} of one era backend's handles: the backend's task operations plus the engine's shared
 * parts (scheduler, poll policy, handlers, retry budgets, the update sender, the close signal, client events).
 *
 * @module
 * @internal
 */
import { withTaskId } from '../internal/race-abort.js';
import type { EraBackend } from './backend.js';
import { DEFAULT_DELIVERY_RETRY } from './delivery.js';
import type { TaskDriver } from './task-driver.js';
import type { TrackerContext } from './tracker-context.js';
import { UpdateSender } from './update-sender.js';

/** A new driver for `backend`'s handles; `signal` aborts when the engine closes. */
export function buildDriver(backend: EraBackend, c: TrackerContext, signal: AbortSignal): TaskDriver {
  const o = c.config;
  return {
    ...backend.ops,
    getTask: (id) => backend.ops.getTask(id).catch((error: unknown) => Promise.reject(withTaskId(error, id))), // poll errors name their task
    updateTask: (id, responses) => backend.ops.updateTask(id, responses),
    cancelTask: (id) => backend.ops.cancelTask(id),
    serverKey: o.transport.serverKey,
    scheduler: c.scheduler,
    policy: {
      defaultMs: o.polling.intervalMs,
      minMs: o.polling.minIntervalMs,
      maxMs: o.polling.maxIntervalMs,
    },
    handlers: o.handlers,
    maxPollRetries: o.polling.maxRetries,
    notYetVisibleRetries: o.polling.notYetVisibleRetries,
    expiringMarginRatio: o.expiringMarginRatio,
    deliveryRetry: DEFAULT_DELIVERY_RETRY,
    updates: new UpdateSender(
      (id, responses) => backend.ops.updateTask(id, responses),
      o.limits.maxConcurrentUpdates,
      DEFAULT_DELIVERY_RETRY,
    ),
    signal,
    questionsOutOfBand: backend.questionsOutOfBand,
    now: o.now,
    emitInput: c.emit.inputRequired,
    emitWarning: c.emit.warning,
    emitExpiring: c.emit.expiring,
  };
}
