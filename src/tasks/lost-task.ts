/**
 * The one classifier of a lost task: a -32602 answer to `tasks/get`, `tasks/update` or `tasks/cancel` means the
 * server does not know the task; past its locally computed expiry that is "expired", otherwise "unknown".
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#protocol-errors)
 *
 * @module
 */
import { McpError, TaskExpiredError, TaskNotFoundError, type TaskNotFoundReason } from '../errors.js';
import { ErrorCode } from '../protocol/constants.js';
import type { DetailedTask } from '../protocol/tasks.js';

/** True when `error` says the server does not know the task (-32602 on a `tasks/*` request). */
export function isLostTask(error: unknown): error is McpError {
  return error instanceof McpError && error.code === ErrorCode.InvalidParams;
}

/** What the classifier knows about the task. */
export interface LostTaskFacts {
  taskId: string;
  /** Locally computed expiry (epoch ms), `null` = never, `undefined` = not known. */
  expiresAt: number | null | undefined;
  now: number;
  task?: DetailedTask;
  /** Why it is unknown when not expired. @default 'unknown' */
  reason?: TaskNotFoundReason;
}

/** {@link TaskExpiredError} when the local clock is past the task's expiry, else {@link TaskNotFoundError}. */
export function lostTaskError(facts: LostTaskFacts, cause: unknown): TaskExpiredError | TaskNotFoundError {
  const { taskId, expiresAt, now, task } = facts;
  if (typeof expiresAt === 'number' && now >= expiresAt)
    return new TaskExpiredError(taskId, expiresAt, task, { cause });
  return new TaskNotFoundError(taskId, facts.reason ?? 'unknown', task, { cause });
}
