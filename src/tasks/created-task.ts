/**
 * Parsing a `CreateTaskResult` into a task, with an unusable shape (a hostile `taskId` included) reported as the
 * client's typed {@link InvalidResponseError}. Every creation path (modern and 2025-11-25) parses through here, so
 * nothing unusable reaches the store, a handle or a log line.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md § Task Creation)
 *
 * @module
 * @internal
 */
import { InvalidResponseError } from '../errors.js';
import {
  parseCreateTaskResult,
  TaskShapeError,
  type CreateTaskResultHooks,
  type DetailedTask,
} from '../protocol/tasks.js';

/**
 * {@link parseCreateTaskResult} for `method`'s result.
 *
 * @throws {@link InvalidResponseError} (with the zod issues and the `TaskShapeError` as `cause`) when no usable task
 *   is present; the message never quotes the `taskId`.
 */
export function parseCreatedTask(
  method: string,
  result: Record<string, unknown>,
  hooks?: CreateTaskResultHooks,
): DetailedTask {
  try {
    return parseCreateTaskResult(result, hooks);
  } catch (error) {
    if (error instanceof TaskShapeError)
      throw new InvalidResponseError(method, error.message, error.issues, { cause: error });
    throw error;
  }
}
