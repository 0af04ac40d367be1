/**
 * A 2025-11-25 server's request (`elicitation/create`, …) that nobody in this client can answer: no handler for its
 * method and no `inputRequired` listener, on the client or on the task's handle. Such a request belongs to this
 * connection (nobody could answer it later, unlike a 2026-07-28 task's question, which stays open for another client
 * or a `resume`), so it is answered at once with a JSON-RPC error rather than left waiting: the legacy backend throws
 * the {@link InputRequiredError} from its request handler and the session replies -32603 with its message. The server
 * decides what that means for its task. The caller hears of it too: a `warning` event names the task and the key,
 * and the task's handle emits `error` with the `InputRequiredError` (carrying `taskId`).
 * (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation)
 *
 * @module
 */
import { InputRequiredError, redactTaskId } from '../errors.js';
import { withTaskId } from '../internal/race-abort.js';
import { INPUT_METHODS } from '../protocol/constants.js';
import type { InputHandlers } from '../tasks/input-broker.js';
import type { TaskHandle } from '../tasks/task-handle.js';

/** What {@link unanswerable} needs to know of the client. */
export interface AnswererCount {
  handlers: InputHandlers | undefined;
  listenerCount(): number;
  warning?(message: string): void;
}

/**
 * The error to answer the server with when nobody can answer `method` (see the module; the `warning` and the
 * handle's `error` event are emitted here), or `undefined` when a handler or a listener can.
 */
export function unanswerable(
  host: AnswererCount,
  method: string,
  key: string,
  taskId: string | undefined,
  handle: TaskHandle<unknown> | undefined,
): InputRequiredError | undefined {
  const h = host.handlers;
  const handled =
    method === INPUT_METHODS.elicitation
      ? !!h?.elicitation
      : method === INPUT_METHODS.sampling
        ? !!h?.sampling
        : !!h?.roots;
  if (handled || host.listenerCount() > 0 || (handle?.listenerCount('inputRequired') ?? 0) > 0)
    return undefined;
  const error = new InputRequiredError(method, { [key]: { method } });
  const what = taskId !== undefined ? `task ${redactTaskId(taskId)}` : 'a call';
  host.warning?.(
    `${method} [${key}] for ${what}: no handler and no inputRequired listener can answer it; the server was answered with an error at once`,
  );
  if (handle) handle.emit('error', withTaskId(error, handle.taskId));
  return error;
}
