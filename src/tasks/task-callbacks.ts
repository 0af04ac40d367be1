/**
 * Running the caller's code that belongs to one call: the client's `'task'` listeners, the call's `onTask` and
 * `onProgress`. Each runs through the one guard ({@link callGuarded}): a throw or a rejecting promise never reaches
 * the engine. A failure before the task is handed out comes back to the engine, which treats it as an abort of the
 * call (`onAbort` applies; the call rejects with it, carrying `taskId`); a later one (a promise that rejects after
 * the handle was handed out) goes to the handle, which treats it the same way (see `caller-failure.ts`).
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md § Task Creation)
 *
 * @module
 * @internal
 */
import { callGuarded, withListenerSink, type ListenerSink } from '../internal/safe-emitter.js';

/** What a throwing callback left the engine: the error to abort the call with. */
export interface CallbackFailure {
  readonly error: unknown;
}

/** A thrown non-object, which could not carry a `taskId`, wrapped in an `Error` with it as `cause`. */
export function failureCarrier(error: unknown, what = 'a task callback'): object {
  return error !== null && typeof error === 'object'
    ? error
    : new Error(`${what} threw ${String(error)}`, { cause: error });
}

/**
 * The caller failures of one call: kept until the engine takes them ({@link take}), then routed to `late` (the
 * task's handle) once one is set with {@link routeTo}.
 */
export class CallFailures {
  #first: unknown;
  #failed = false;
  #late: ListenerSink | undefined;
  readonly sink: ListenerSink = (error, event) => {
    if (this.#late) this.#late(error, event);
    else if (!this.#failed) {
      this.#failed = true;
      this.#first = error;
    }
  };

  /** `fn` guarded: its failures come here. */
  guard<A extends unknown[]>(
    fn: ((...args: A) => unknown) | undefined,
    name: string,
  ): ((...args: A) => void) | undefined {
    if (fn === undefined) return undefined;
    return (...args: A) => callGuarded(fn as (...a: never[]) => unknown, undefined, args, name, this.sink);
  }

  /** The first failure so far (then forgotten), as a {@link CallbackFailure}. */
  take(): CallbackFailure | undefined {
    if (!this.#failed) return undefined;
    const error = this.#first;
    this.#failed = false;
    this.#first = undefined;
    return { error: failureCarrier(error) };
  }

  /** From now on, failures go to `late`. */
  routeTo(late: ListenerSink): void {
    this.#late = late;
  }
}

/**
 * Runs `emitTask(handle)` then `onTask(handle)` (in that order; the second is skipped when the first failed), each
 * guarded. A failure that happens synchronously is returned; one that comes later (a rejected promise) goes to
 * `late`.
 *
 * @returns `undefined` when both returned, else the {@link CallbackFailure} with what was thrown (a thrown
 *   non-object is wrapped in an `Error` with it as `cause`).
 */
export function runTaskCallbacks<H>(
  handle: H,
  emitTask: (handle: H) => void,
  onTask: ((handle: H) => unknown) | undefined,
  late: ListenerSink,
  failures = new CallFailures(),
): CallbackFailure | undefined {
  withListenerSink(failures.sink, () => emitTask(handle));
  let thrown = failures.take();
  if (!thrown && onTask) {
    callGuarded(onTask as (...a: never[]) => unknown, undefined, [handle], 'onTask', failures.sink);
    thrown = failures.take();
  }
  failures.routeTo(late);
  return thrown;
}
