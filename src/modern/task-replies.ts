/**
 * `resultType` of the replies to `tasks/get`, `tasks/update` and `tasks/cancel`. The extension's schema fixes it to
 * `"complete"` (`GetTaskResult`, `UpdateTaskResult`, `CancelTaskResult`); an absent one means `"complete"`; anything
 * else is an invalid response, never accepted silently. One tolerance: a `tasks/get` reply with `"task"` is read by
 * its `status`, because the extension's own examples (tasks.md § Task Execution Errors) show it.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/schema/draft/schema.ts;
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/index § ResultType: "A resultType of any value
 * unrecognized by the client MUST be considered invalid.")
 *
 * @module
 * @internal
 */
import { InvalidResponseError } from '../errors.js';
import { METHODS } from '../protocol/constants.js';
import { escapeUnprintable } from '../protocol/printable.js';

const ACCEPTED: Readonly<Record<string, readonly unknown[]>> = {
  [METHODS.tasksGet]: [undefined, 'complete', 'task'],
  [METHODS.tasksUpdate]: [undefined, 'complete'],
  [METHODS.tasksCancel]: [undefined, 'complete'],
};

/**
 * Returns `result` when its `resultType` is valid for `method` (methods other than the three are passed through).
 *
 * @throws {@link InvalidResponseError} naming the method and the value received.
 */
export function checkTaskReplyResultType(
  method: string,
  result: Record<string, unknown>,
): Record<string, unknown> {
  const accepted = ACCEPTED[method];
  if (accepted && !accepted.includes(result.resultType)) {
    const shown =
      typeof result.resultType === 'string'
        ? escapeUnprintable(JSON.stringify(result.resultType.slice(0, 40)))
        : typeof result.resultType;
    throw new InvalidResponseError(
      method,
      `resultType ${shown} on a ${method} reply (the extension requires "complete")`,
    );
  }
  return result;
}
