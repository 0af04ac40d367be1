/**
 * What one adapted tool call ends with, in a form every framework adapter maps to its own conventions: a result, a
 * "pending" hand-off (the task keeps running), or an error with a text the model can act on.
 *
 * @module
 */
import { isMcpClientError, McpError, type TaskError, type TaskExpiredError } from '../../errors.js';
import type { CallToolResult } from '../../protocol/results.js';
import type { TaskStatus } from '../../protocol/tasks.js';
import type { TaskHandle } from '../../tasks/task-handle.js';
import { TASK_TOOL_NAMES } from './options.js';

/** Stable codes of {@link TaskToolError}s. Spec: https://github.com/modelcontextprotocol/ext-tasks (task outcomes) */
export type TaskToolErrorCode =
  | 'TOOL_ERROR'
  | 'TASK_FAILED'
  | 'TASK_CANCELLED'
  | 'TASK_EXPIRED'
  | 'TASK_NOT_FOUND'
  | 'INPUT_REQUIRED'
  | 'OUTCOME_UNKNOWN'
  | 'SERVER_ERROR'
  | 'CALL_FAILED';

/**
 * The structured "pending" result returned to the model when a task outlives `maxWaitMs`. The task keeps running;
 * `task_result` with this `taskId` returns its outcome later.
 *
 * Spec: https://github.com/modelcontextprotocol/ext-tasks (`DetailedTask`).
 */
export interface PendingTaskResult {
  /** Always `"pending"`: the outcome is not known yet. */
  status: 'pending';
  /** The server's task id; pass it to `task_result`, `task_status` or `task_cancel`. */
  taskId: string;
  /** The MCP tool that started it. */
  toolName: string;
  /** The task's status as the server last reported it (`working` or `input_required`). */
  taskStatus: TaskStatus;
  /** The server's `statusMessage`, if any. */
  statusMessage?: string;
  /** Wait at least this long, in ms, before checking again (the server's `pollIntervalMs` floor). */
  checkAgainAfterMs: number;
  /** When the server may forget the task (ISO 8601), if it has a `ttlMs`. */
  expiresAt?: string;
  /** What to do next, for the model. */
  message: string;
}

/** What one adapted call ended with. */
export type ToolOutcome =
  | { kind: 'ok'; result: CallToolResult; note?: string }
  | { kind: 'pending'; pending: PendingTaskResult }
  | { kind: 'error'; error: TaskToolError };

/**
 * A tool call that did not produce a normal result, with a message written for the model. `result` is the tool's
 * own `isError` result (code `TOOL_ERROR`); `cause` is the client's error otherwise.
 *
 * Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools (`isError`), https://github.com/modelcontextprotocol/ext-tasks (`failed`, `cancelled`, expiry).
 */
export class TaskToolError extends Error {
  override readonly name = 'TaskToolError';
  constructor(
    readonly code: TaskToolErrorCode,
    message: string,
    readonly taskId?: string,
    readonly result?: CallToolResult,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The text blocks of a result, joined (what a model would read). */
export function resultText(result: CallToolResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    if (block && typeof block === 'object' && (block as { type?: unknown }).type === 'text')
      parts.push(String((block as { text?: unknown }).text ?? ''));
  }
  return parts.join('\n');
}

/** Maps a final `CallToolResult` to an outcome: `isError: true` becomes a `TOOL_ERROR`. */
export function outcomeOfResult(
  toolName: string,
  result: CallToolResult,
  note: string | undefined,
  taskId?: string,
): ToolOutcome {
  if (result.isError !== true) return { kind: 'ok', result, note };
  const text = resultText(result) || `the tool "${toolName}" reported an error`;
  return {
    kind: 'error',
    error: new TaskToolError('TOOL_ERROR', note ? `${text}\n${note}` : text, taskId, result),
  };
}

/** Maps an error of the client to a {@link TaskToolError} whose message tells the model what happened and what to do. */
export function toolErrorFrom(toolName: string, error: unknown, taskId?: string): TaskToolError {
  const tool = toolName ? `the tool ${JSON.stringify(toolName)}` : 'the tool';
  const Tool = toolName ? `The tool ${JSON.stringify(toolName)}` : 'The tool';
  if (error instanceof TaskToolError) return error;
  if (isMcpClientError(error, 'TASK_FAILED')) {
    const e = error as TaskError & { error?: { message: string; code: number } };
    const why = e.error
      ? `${e.error.message} (JSON-RPC ${e.error.code})`
      : (e.task?.statusMessage ?? 'no reason given');
    return new TaskToolError(
      'TASK_FAILED',
      `${Tool} failed on the server (task ${e.taskId}): ${why}.`,
      e.taskId,
      undefined,
      { cause: error },
    );
  }
  if (isMcpClientError(error, 'TASK_CANCELLED')) {
    const e = error as TaskError;
    const why = e.task?.statusMessage ? ` (${e.task.statusMessage})` : '';
    return new TaskToolError(
      'TASK_CANCELLED',
      `${Tool} was cancelled before it finished (task ${e.taskId})${why}. Its work may be partly done; call it again only if it is still needed.`,
      e.taskId,
      undefined,
      { cause: error },
    );
  }
  if (isMcpClientError(error, 'TASK_EXPIRED')) {
    const e = error as TaskExpiredError;
    return new TaskToolError(
      'TASK_EXPIRED',
      `The server no longer keeps task ${e.taskId} of ${tool} (it expired at ${new Date(e.expiredAt).toISOString()}), so its outcome cannot be known. Call it again if the work is still needed.`,
      e.taskId,
      undefined,
      { cause: error },
    );
  }
  if (isMcpClientError(error, 'TASK_NOT_FOUND')) {
    const e = error as TaskError;
    return new TaskToolError(
      'TASK_NOT_FOUND',
      `The server does not know task ${e.taskId} of ${tool}, so its outcome is unknown. Do not assume it finished; call it again if the work is still needed.`,
      e.taskId,
      undefined,
      { cause: error },
    );
  }
  if (isMcpClientError(error, 'INPUT_REQUIRED')) {
    return new TaskToolError('INPUT_REQUIRED', inputNeededText(toolName, undefined), taskId, undefined, {
      cause: error,
    });
  }
  if (isMcpClientError(error, 'OUTCOME_UNKNOWN')) {
    return new TaskToolError(
      'OUTCOME_UNKNOWN',
      (error as { unreadableReply?: string }).unreadableReply === undefined
        ? `The call to ${tool} got no response: the work may or may not have started on the server. Check before calling it again.`
        : `The call to ${tool} got a reply that could not be read: the work may or may not have started on the server. Check before calling it again.`,
      taskId,
      undefined,
      { cause: error },
    );
  }
  if (
    error instanceof McpError ||
    (isMcpClientError(error) && typeof (error as { code: unknown }).code === 'number')
  ) {
    const e = error as McpError;
    return new TaskToolError(
      'SERVER_ERROR',
      `The server rejected the call to ${tool}: ${e.message}`,
      taskId,
      undefined,
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new TaskToolError('CALL_FAILED', `The call to ${tool} failed: ${message}`, taskId, undefined, {
    cause: error,
  });
}

/** The sentence that tells the model a person's input was needed and nobody gave it. */
export function inputNeededText(toolName: string | undefined, question: string | undefined): string {
  const tool = toolName ? `The tool ${JSON.stringify(toolName)}` : 'The tool';
  const what = question ? ` (${JSON.stringify(question)})` : '';
  return `${tool} needed a person's input${what} and no one was available to answer, so it was declined. Ask the user, then call the tool again if they agree.`;
}

/** The "pending" result for a task still running when the wait ended. */
export function pendingOf(toolName: string, handle: TaskHandle<unknown>, prefix: string): PendingTaskResult {
  const task = handle.task;
  const expiresAt = handle.expiresAt;
  const pending: PendingTaskResult = {
    status: 'pending',
    taskId: handle.taskId,
    toolName,
    taskStatus: task.status,
    checkAgainAfterMs: handle.pollIntervalMs,
    message: `The task is still running on the server. Call ${prefix}${TASK_TOOL_NAMES.result} with {"taskId": ${JSON.stringify(handle.taskId)}} for its outcome, ${prefix}${TASK_TOOL_NAMES.status} to check on it, or ${prefix}${TASK_TOOL_NAMES.cancel} to stop it.`,
  };
  if (task.statusMessage !== undefined) pending.statusMessage = task.statusMessage;
  if (expiresAt !== null) pending.expiresAt = new Date(expiresAt).toISOString();
  return pending;
}
