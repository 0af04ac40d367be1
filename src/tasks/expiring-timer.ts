/**
 * The `expiring` timer of a task that waits for input: one event (handle, then client) when less than the client's
 * margin of its TTL is left. Listeners run guarded: a failure is the task's caller failure, never the timer's.
 *
 * @module
 * @internal
 */
import { MAX_TIMER_MS } from '../internal/duration.js';
import { withListenerSink } from '../internal/safe-emitter.js';
import type { HandleInternals } from './handle-internals.js';

/**
 * (Re)arms the `expiring` timer: while the task is `input_required` with a finite TTL, one event fires when less
 * than `expiringMarginRatio` of the TTL is left. `expiry` null (or a settled handle) just clears the timer.
 */
export function watchExpiry(parts: HandleInternals, expiry: number | null): void {
  clearTimeout(parts.expiryTimer);
  parts.expiryTimer = undefined;
  const task = parts.task();
  if (
    expiry === null ||
    parts.expiringSent ||
    parts.handle.done ||
    task.status !== 'input_required' ||
    task.ttlMs === null
  )
    return;
  const { driver, handle } = parts;
  const fireAt = expiry - task.ttlMs * driver.expiringMarginRatio;
  const waitMs = Math.max(0, fireAt - driver.now());
  if (waitMs > MAX_TIMER_MS) {
    // A server TTL past a timer's range: wait in timer-sized steps (one overflowing timer would fire after 1 ms).
    parts.expiryTimer = setTimeout(() => watchExpiry(parts, expiry), MAX_TIMER_MS);
    (parts.expiryTimer as { unref?: () => void }).unref?.();
    return;
  }
  const timer = setTimeout(() => {
    parts.expiryTimer = undefined;
    const current = parts.task();
    if (parts.expiringSent || handle.done || current.status !== 'input_required') return;
    parts.expiringSent = true;
    const event = {
      taskId: handle.taskId,
      task: current,
      expiresAt: expiry,
      remainingMs: Math.max(0, expiry - driver.now()),
    };
    withListenerSink(parts.sink, () => {
      handle.emit('expiring', event);
      driver.emitExpiring(event);
    });
  }, waitMs);
  (timer as { unref?: () => void }).unref?.();
  parts.expiryTimer = timer;
}
