/**
 * How a `TaskClient`'s resolved options become the context of its task engine ({@link TaskTracker}): poll bounds,
 * retry budgets, the abort grace, the store, and the client events the engine emits.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling)
 *
 * @module
 * @internal
 */
import { DEFAULT_DELIVERY_RETRY } from '../tasks/delivery.js';
import type { PushTracker } from '../tasks/push/index.js';
import type { PollScheduler } from '../tasks/scheduler.js';
import { TaskTracker, type TrackerContext } from '../tasks/tracker.js';
import type { ResolvedOptions } from '../tasks/config.js';

/** The task engine for one client: `o` its resolved options, `emit` its events. */
export function createTracker(
  o: ResolvedOptions,
  scheduler: PollScheduler,
  push: PushTracker | undefined,
  emit: TrackerContext['emit'],
): TaskTracker {
  return new TaskTracker({
    serverKey: o.transport.serverKey,
    push,
    scheduler,
    policy: { defaultMs: o.defaultPollIntervalMs, minMs: o.minPollIntervalMs, maxMs: o.maxPollIntervalMs },
    handlers: o.handlers,
    maxPollRetries: o.maxPollRetries,
    notYetVisibleRetries: o.notYetVisibleRetries,
    expiringMarginRatio: o.expiringMarginRatio,
    deliveryRetry: DEFAULT_DELIVERY_RETRY,
    maxConcurrentUpdates: o.maxConcurrentUpdates,
    abortGraceMs: o.abortGraceMs, // the caller's wait for an abort's tasks/cancel
    store: o.store,
    redactParams: o.redactParams,
    now: o.now,
    emit,
  });
}
