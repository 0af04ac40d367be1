/**
 * Handlers of `tasks/get`, `tasks/update` and `tasks/cancel`. All three need the tasks extension in the request's
 * `clientCapabilities.extensions` (else -32021) and a known, unexpired `taskId` (else -32602); they answer
 * `resultType:"complete"`. (ext-tasks § Task Polling, § Task Update Requests, § Task Cancellation, § Protocol Errors)
 *
 * @module
 */
import { ErrorCode, TASKS_EXTENSION_ID, type InputResponses } from '../protocol/index.js';
import { JobError } from './job.js';
import type { ServerStats } from './stats.js';
import type { TaskRecord, TaskRegistry } from './task-registry.js';

/** The methods this module answers. */
export const TASK_METHODS: readonly string[] = ['tasks/get', 'tasks/update', 'tasks/cancel'];

/** Methods of the 2025-11-25 task surface that no longer exist; they get -32601. */
export const REMOVED_TASK_METHODS: readonly string[] = ['tasks/result', 'tasks/list'];

/** What the task handlers need from the server. */
export interface TaskMethodContext {
  registry: TaskRegistry;
  stats: ServerStats;
  now: () => number;
  /** Who the request's authorization stands for (see `HandleOptions.principal`). */
  principal?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Handles one `tasks/*` request.
 *
 * @throws {@link JobError} -32021 without the extension, -32602 for a missing/unknown/expired `taskId` or a
 *   malformed `inputResponses`.
 */
export function handleTaskMethod(
  method: string,
  params: Record<string, unknown>,
  tasksDeclared: boolean,
  context: TaskMethodContext,
): Record<string, unknown> {
  if (!tasksDeclared) {
    throw new JobError(
      ErrorCode.MissingRequiredClientCapability,
      `${method} requires the ${TASKS_EXTENSION_ID} extension in clientCapabilities.extensions`,
      {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } },
      },
    );
  }
  const taskId = params.taskId;
  if (typeof taskId !== 'string' || taskId === '')
    throw new JobError(ErrorCode.InvalidParams, `${method}: "taskId" must be a non-empty string`);
  const at = context.now();

  switch (method) {
    case 'tasks/get': {
      context.stats.recordTaskGet(taskId, at);
      return context.registry.detailedTask(lookup(context, taskId));
    }
    case 'tasks/update': {
      const inputResponses = params.inputResponses;
      if (!isObject(inputResponses))
        throw new JobError(ErrorCode.InvalidParams, 'tasks/update: "inputResponses" must be an object');
      context.stats.recordTaskUpdate({ taskId, inputResponses: inputResponses as InputResponses, at });
      // Keys that are not outstanding (never issued, already answered) are ignored (§ Task Update Requests).
      lookup(context, taskId).run.deliver(inputResponses as InputResponses);
      return { resultType: 'complete' };
    }
    case 'tasks/cancel': {
      context.stats.recordTaskCancel({ taskId, at });
      // A terminal task keeps its status; the ack is the same (idempotent).
      lookup(context, taskId).run.cancel();
      return { resultType: 'complete' };
    }
    default:
      throw new JobError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }
}

/**
 * The task, when it exists and belongs to the request's principal. A task of another principal is answered exactly
 * like an unknown one, so its existence does not leak (the Tasks extension binds a task to the authorization context
 * that created it).
 */
function lookup(context: TaskMethodContext, taskId: string): TaskRecord {
  const found = context.registry.get(taskId);
  const record = found?.owner !== undefined && found.owner !== context.principal ? undefined : found;
  if (record === undefined) throw new JobError(ErrorCode.InvalidParams, `Unknown or expired task: ${taskId}`);
  return record;
}
