/**
 * The one helper that lets a caller stop waiting for a promise without stopping the work behind it.
 *
 * @module
 * @internal
 */
import { whenAborted } from './abort.js';

/**
 * Resolves or rejects like `promise`, unless `signal` aborts first: then rejects with `signal.reason` untouched.
 * Its follow of `signal` ends as soon as either settles; `promise` keeps running either way.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = whenAborted(signal, reject); // one listener on a signal however many waits share it
    promise.then(resolve, reject).finally(stop);
  });
}

/**
 * Attaches `taskId` to an abort reason or a failure (a non-enumerable property, when the reason is an extensible
 * object without one; an own `taskId` left `undefined` is filled in), so a caller learns which task the call had
 * started. Never throws: a reason whose property traps throw is returned untouched.
 */
export function withTaskId<T>(reason: T, taskId: string): T {
  if (reason === null || typeof reason !== 'object') return reason;
  try {
    const own = Object.getOwnPropertyDescriptor(reason, 'taskId');
    if (!own && Object.isExtensible(reason)) {
      Object.defineProperty(reason, 'taskId', {
        value: taskId,
        enumerable: false,
        configurable: true,
        writable: true,
      });
    } else if (own && own.value === undefined && own.writable) {
      (reason as { taskId?: string }).taskId = taskId;
    }
  } catch {
    // A reason that cannot be inspected or written (a revoked Proxy, a Proxy whose traps throw) stays as it is:
    // what the abort goes on to do (cancel the task by id, report it) must not fail on the caller's reason.
  }
  return reason;
}

/** Abort reasons this library made for one call (its close, its time budget): see {@link ownAbortReason}. */
const ownReasons = new WeakSet<object>();

/**
 * Marks `reason` as made by this library for one call alone (a `ClientClosedError` of `close()`, a
 * `maxTotalTimeoutMs` `RequestTimeoutError`), so it may carry that call's `taskId`. A caller's abort reason is never
 * marked: it may be shared by many calls (even when it is one of our errors the caller got earlier) and is never
 * written to.
 */
export function ownAbortReason<T extends object>(reason: T): T {
  ownReasons.add(reason);
  return reason;
}

/** True when `reason` was marked by {@link ownAbortReason}. */
export function isOwnAbortReason(reason: unknown): boolean {
  return reason !== null && typeof reason === 'object' && ownReasons.has(reason);
}
