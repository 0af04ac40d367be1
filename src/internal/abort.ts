/**
 * Abort and time helpers built on setTimeout and AbortController (not AbortSignal.timeout, which fake timers do not
 * advance). Every listener is removed when its work ends.
 *
 * @module
 * @internal
 */
import { MAX_TIMER_MS, timerDelay } from './duration.js';

/**
 * Resolves after `ms` milliseconds; rejects with `signal.reason` untouched if the signal aborts first. A delay past
 * {@link MAX_TIMER_MS} (a server's `Retry-After` can ask for one) is waited out in timer-sized steps, never cut to
 * the 1 ms a single overflowing `setTimeout` would fire after; `Infinity` waits for the signal.
 */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const wait = (left: number): void => {
      if (left === Number.POSITIVE_INFINITY) return; // only the signal ends it
      const step = timerDelay(left) ?? MAX_TIMER_MS;
      timer = setTimeout(() => {
        if (left - step > 0) return wait(left - step);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, step);
    };
    wait(Number.isNaN(ms) ? 0 : Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A controller that aborts when any input signal aborts or after `timeoutMs`; `dispose()` removes every listener. */
export interface LinkedAbort {
  readonly signal: AbortSignal;
  /** True when the timeout (not an input signal) caused the abort. */
  readonly timedOut: boolean;
  dispose(): void;
}

/**
 * Links the caller's signal with an optional timeout. On timeout the signal aborts with `onTimeout()` as reason.
 */
export function linkAbort(
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  onTimeout: () => unknown,
): LinkedAbort {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = (): void => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', onAbort, { once: true });
  const delayMs = timerDelay(timeoutMs); // Infinity or beyond a timer's range: no timer (never a 1 ms overflow)
  const timer =
    delayMs !== undefined
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(onTimeout());
        }, delayMs)
      : undefined;
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose() {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * Lets any number of listeners wait on `signal` without Node's `MaxListenersExceededWarning` (Node warns past ten
 * listeners on one `AbortSignal`): the engine's close signal is listened to by every task that delivers an answer
 * or a cancel, so a client following more than ten such tasks is normal, not a leak. Uses Node's
 * `events.setMaxListeners` through `process.getBuiltinModule` (Node ≥ 20.16), so the main entry imports no `node:`
 * module; elsewhere (browsers, Deno, Bun, edge runtimes) there is no such warning and this does nothing.
 */
export function allowManyListeners(signal: AbortSignal): void {
  type Events = { setMaxListeners?: (n: number, ...targets: EventTarget[]) => void };
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const events = proc?.getBuiltinModule?.('node:events') as Events | undefined;
  events?.setMaxListeners?.(0, signal);
}
