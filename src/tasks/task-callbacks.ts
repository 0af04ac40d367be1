/**
 * Running the caller's code that learns of a new task (the client's `'task'` listeners, then the call's `onTask`).
 * The task already exists on the server and is already followed when this runs, so a callback that throws can
 * neither orphan it nor lose the error: the thrown value comes back to the engine, which treats it as an abort of
 * the call (`onAbort` applies; the call rejects with it, carrying `taskId`).
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md § Task Creation)
 *
 * @module
 * @internal
 */

/** What a throwing callback left the engine: the error to abort the call with. */
export interface CallbackFailure {
  readonly error: unknown;
}

/**
 * Runs `emitTask(handle)` then `onTask(handle)` (in that order; the second is skipped when the first throws).
 *
 * @returns `undefined` when both returned, else the {@link CallbackFailure} with what was thrown (a thrown
 *   non-object, which could not carry a `taskId`, is wrapped in an `Error` with it as `cause`).
 */
export function runTaskCallbacks<H>(handle: H, emitTask: (handle: H) => void, onTask: ((handle: H) => void) | undefined): CallbackFailure | undefined {
  try {
    emitTask(handle);
    onTask?.(handle);
    return undefined;
  } catch (error) {
    const carrier = error !== null && typeof error === 'object' ? error : new Error(`a task callback threw ${String(error)}`, { cause: error });
    return { error: carrier };
  }
}

/**
 * The `TypeError` for an `onTask` option that is not a function (checked before anything is sent), or `undefined`.
 */
export function onTaskOptionError(where: string, onTask: unknown): TypeError | undefined {
  if (onTask === undefined || typeof onTask === 'function') return undefined;
  return new TypeError(`${where}: option "onTask" must be a function; got ${onTask === null ? 'null' : typeof onTask}`);
}
