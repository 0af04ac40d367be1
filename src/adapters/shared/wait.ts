/**
 * Waiting for a task's outcome for at most `maxWaitMs`, stoppable by the framework's abort signal. Built on
 * setTimeout so fake timers drive it; every listener and timer is removed when the wait ends.
 *
 * @module
 */
import { LinkedAbort } from '../../internal/abort.js';
import type { Settled, TaskHandle } from '../../tasks/task-handle.js';

/** How a wait ended: the task's outcome, or the time ran out first. */
export type WaitEnd<T> = { settled: Settled<T> } | { timedOut: true };

/**
 * Resolves with the outcome, or `{timedOut: true}` after `maxWaitMs` (never, when `undefined`). The task is not
 * touched either way.
 *
 * @throws `caller.reason` when `caller` (the framework's signal) aborts first.
 */
export function waitForTask<T>(
  handle: TaskHandle<T>,
  maxWaitMs: number | undefined,
  caller?: AbortSignal,
): Promise<WaitEnd<T>> {
  if (caller?.aborted) return Promise.reject(caller.reason);
  const outcome = handle.result().then(
    (value): WaitEnd<T> => ({ settled: { ok: true, value } }),
    (error: unknown): WaitEnd<T> => ({ settled: { ok: false, error } }),
  );
  if (handle.done) return outcome;
  // A link of the framework's signal: one listener on it however many waits share it (Node warns past ten).
  const link = caller === undefined ? undefined : new LinkedAbort(caller);
  const signal = link?.signal;
  return new Promise<WaitEnd<T>>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      link?.dispose();
    };
    const onAbort = (): void => {
      finish();
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (maxWaitMs !== undefined) {
      timer = setTimeout(() => {
        finish();
        resolve({ timedOut: true });
      }, maxWaitMs);
    }
    void outcome.then((end) => {
      finish();
      resolve(end);
    });
  });
}
