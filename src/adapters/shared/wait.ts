/**
 * Waiting for a task's outcome for at most `maxWaitMs`, stoppable by the framework's abort signal. Built on
 * setTimeout so fake timers drive it; every listener and timer is removed when the wait ends.
 *
 * @module
 */
import type { Settled, TaskHandle } from '../../tasks/task-handle.js';

/** How a wait ended: the task's outcome, or the time ran out first. */
export type WaitEnd<T> = { settled: Settled<T> } | { timedOut: true };

/**
 * Resolves with the outcome, or `{timedOut: true}` after `maxWaitMs` (never, when `undefined`). The task is not
 * touched either way.
 *
 * @throws `signal.reason` when `signal` aborts first.
 */
export function waitForTask<T>(
  handle: TaskHandle<T>,
  maxWaitMs: number | undefined,
  signal?: AbortSignal,
): Promise<WaitEnd<T>> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  const outcome = handle.result().then(
    (value): WaitEnd<T> => ({ settled: { ok: true, value } }),
    (error: unknown): WaitEnd<T> => ({ settled: { ok: false, error } }),
  );
  if (handle.done) return outcome;
  return new Promise<WaitEnd<T>>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
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
