/**
 * What one adapted tool call ends with, in a form every framework adapter maps to its own conventions: a result, a
 * "pending" hand-off (the task keeps running), or an error with a text the model can act on.
 *
 * @module
 */
import { isMcpClientError, McpError, type TaskError, type TaskExpiredError } from '../../errors.js';
import { nestsDeeperThan, toJsonText } from '../../internal/deep-json.js';
import type { CallToolResult } from '../../protocol/results.js';
import type { TaskStatus } from '../../protocol/tasks.js';
import type { TaskHandle } from '../../tasks/task-handle.js';
import { hostLine, hostQuoted } from './host-text.js';
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
  /** The MCP tool that started it (as the server names it, escaped like `statusMessage`). */
  toolName: string;
  /** The task's status as the server last reported it (`working` or `input_required`). */
  taskStatus: TaskStatus;
  /**
   * The server's `statusMessage`, if any, escaped for the model and the person reading the transcript: control,
   * bidi and invisible characters written as visible escapes (see `hostLine`). `taskId` stays exact.
   */
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

/**
 * The most text, in UTF-16 code units (about 1 MB), that an adapter hands its framework for one result: the text of
 * its content blocks plus the JSON of its other blocks and of `structuredContent`. A larger result is cut, with a
 * note saying what was cut.
 */
export const MAX_CARRIED_RESULT_CHARS = 1_000_000;

/**
 * The deepest nesting of objects and arrays an adapter hands its framework as data. Frameworks walk results
 * recursively (LangChain's messages, tracing and serialization; the AI SDK's JSON encoding) and some of them die of
 * stack exhaustion on a result nested a few thousand levels deep; a deeper `structuredContent` or content block
 * travels as JSON text instead.
 */
export const MAX_CARRIED_DEPTH = 64;

/**
 * `result` in a form any framework can carry: within {@link MAX_CARRIED_RESULT_CHARS} and
 * {@link MAX_CARRIED_DEPTH}, with a `note` for the model that says what was cut or turned into text. A result
 * within both bounds is returned as it is, with no note.
 */
export function carriedResult(result: CallToolResult): { result: CallToolResult; note?: string } {
  let budget = MAX_CARRIED_RESULT_CHARS;
  const cuts: string[] = [];
  const content: CallToolResult['content'] = [];
  let changed = false;
  for (const block of result.content ?? []) {
    const text = block?.type === 'text' ? (block as Record<string, unknown>).text : undefined;
    if (typeof text === 'string') {
      if (text.length <= budget) {
        content.push(block);
        budget -= text.length;
      } else {
        content.push({ ...block, text: cutText(text, budget) });
        cuts.push(`a text block was cut to ${budget} of its ${text.length} characters`);
        budget = 0;
        changed = true;
      }
      continue;
    }
    const json = toJsonText(block);
    if (json.length <= budget && !nestsDeeperThan(block, MAX_CARRIED_DEPTH)) {
      content.push(block);
      budget -= json.length;
    } else {
      const type = typeof block?.type === 'string' ? block.type : 'unknown';
      content.push({
        type: 'text',
        text: `[${hostLine(type)} content of ${json.length} characters of JSON left out]`,
      });
      cuts.push(`a block of type ${hostQuoted(type)} (${json.length} characters of JSON) was left out`);
      changed = true;
    }
  }
  const out: CallToolResult = { ...result, content };
  const structured = result.structuredContent;
  if (structured !== undefined) {
    const deep = nestsDeeperThan(structured, MAX_CARRIED_DEPTH);
    const json = deep || budget < MAX_CARRIED_RESULT_CHARS ? toJsonText(structured) : undefined;
    if (deep || (json !== undefined && json.length > budget)) {
      const text = json ?? toJsonText(structured);
      delete out.structuredContent;
      changed = true;
      const why = deep
        ? `nested deeper than ${MAX_CARRIED_DEPTH} levels`
        : `${text.length} characters of JSON, over what was left of the ${MAX_CARRIED_RESULT_CHARS}-character bound`;
      if (budget > 0) {
        content.push({ type: 'text', text: cutText(text, budget) });
        cuts.push(
          text.length > budget
            ? `structuredContent (${why}) is given as JSON text, cut to ${budget} of its ${text.length} characters`
            : `structuredContent (${why}) is given as JSON text`,
        );
      } else {
        cuts.push(`structuredContent (${why}) was left out`);
      }
    }
  }
  if (!changed) return { result };
  return {
    result: out,
    note: `Note: the result was too large or too deep to pass on whole: ${cuts.join('; ')}.`,
  };
}

/** The first `length` UTF-16 units of `text`, never ending in the high half of a surrogate pair. */
function cutText(text: string, length: number): string {
  const cut = text.slice(0, length);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/**
 * Maps a final `CallToolResult` to an outcome: `isError: true` becomes a `TOOL_ERROR`. The result is first made
 * carriable ({@link carriedResult}); its note joins `note`.
 */
export function outcomeOfResult(
  toolName: string,
  received: CallToolResult,
  note: string | undefined,
  taskId?: string,
): ToolOutcome {
  const carried = carriedResult(received);
  const result = carried.result;
  const notes = [note, carried.note].filter((n): n is string => n !== undefined && n !== '');
  const fullNote = notes.length > 0 ? notes.join('\n') : undefined;
  if (result.isError !== true) return { kind: 'ok', result, note: fullNote };
  const text = resultText(result) || `the tool ${hostQuoted(toolName)} reported an error`;
  return {
    kind: 'error',
    error: new TaskToolError('TOOL_ERROR', fullNote ? `${text}\n${fullNote}` : text, taskId, result),
  };
}

/**
 * Maps an error of the client to a {@link TaskToolError} whose message tells the model what happened and what to do.
 * The upstream's words in it (the tool's name, the task id, the server's error or status message) are escaped: one
 * line, no control, bidi or invisible character (see `hostLine`).
 */
export function toolErrorFrom(toolName: string, error: unknown, taskId?: string): TaskToolError {
  const tool = toolName ? `the tool ${hostQuoted(toolName)}` : 'the tool';
  const Tool = toolName ? `The tool ${hostQuoted(toolName)}` : 'The tool';
  if (error instanceof TaskToolError) return error;
  if (isMcpClientError(error, 'TASK_FAILED')) {
    const e = error as TaskError & { error?: { message: string; code: number } };
    const why = e.error
      ? `${hostLine(String(e.error.message))} (JSON-RPC ${e.error.code})`
      : e.task?.statusMessage !== undefined
        ? hostLine(e.task.statusMessage)
        : 'no reason given';
    return new TaskToolError(
      'TASK_FAILED',
      `${Tool} failed on the server (task ${hostLine(e.taskId)}): ${why}.`,
      e.taskId,
      undefined,
      { cause: error },
    );
  }
  if (isMcpClientError(error, 'TASK_CANCELLED')) {
    const e = error as TaskError;
    const why = e.task?.statusMessage ? ` (${hostLine(e.task.statusMessage)})` : '';
    return new TaskToolError(
      'TASK_CANCELLED',
      `${Tool} was cancelled before it finished (task ${hostLine(e.taskId)})${why}. Its work may be partly done; call it again only if it is still needed.`,
      e.taskId,
      undefined,
      { cause: error },
    );
  }
  if (isMcpClientError(error, 'TASK_EXPIRED')) {
    const e = error as TaskExpiredError;
    return new TaskToolError(
      'TASK_EXPIRED',
      `The server no longer keeps task ${hostLine(e.taskId)} of ${tool} (it expired at ${new Date(e.expiredAt).toISOString()}), so its outcome cannot be known. Call it again if the work is still needed.`,
      e.taskId,
      undefined,
      { cause: error },
    );
  }
  if (isMcpClientError(error, 'TASK_NOT_FOUND')) {
    const e = error as TaskError;
    return new TaskToolError(
      'TASK_NOT_FOUND',
      `The server does not know task ${hostLine(e.taskId)} of ${tool}, so its outcome is unknown. Do not assume it finished; call it again if the work is still needed.`,
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
      `The server rejected the call to ${tool}: ${hostLine(e.message)}`,
      taskId,
      undefined,
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new TaskToolError(
    'CALL_FAILED',
    `The call to ${tool} failed: ${hostLine(message)}`,
    taskId,
    undefined,
    {
      cause: error,
    },
  );
}

/** The sentence that tells the model a person's input was needed and nobody gave it. */
export function inputNeededText(toolName: string | undefined, question: string | undefined): string {
  // Quoted as JSON, with what JSON leaves raw (bidi overrides, C1 controls, U+2028, invisible characters) escaped too.
  const tool = toolName ? `The tool ${hostQuoted(toolName)}` : 'The tool';
  const what = question ? ` (${hostQuoted(question)})` : '';
  return `${tool} needed a person's input${what} and no one was available to answer, so it was declined. Ask the user, then call the tool again if they agree.`;
}

/** The "pending" result for a task still running when the wait ended. */
export function pendingOf(toolName: string, handle: TaskHandle<unknown>, prefix: string): PendingTaskResult {
  const task = handle.task;
  const expiresAt = handle.expiresAt;
  const pending: PendingTaskResult = {
    status: 'pending',
    taskId: handle.taskId,
    toolName: hostLine(toolName),
    taskStatus: task.status,
    checkAgainAfterMs: handle.pollIntervalMs,
    message: `The task is still running on the server. Call ${prefix}${TASK_TOOL_NAMES.result} with {"taskId": ${hostQuoted(handle.taskId)}} for its outcome, ${prefix}${TASK_TOOL_NAMES.status} to check on it, or ${prefix}${TASK_TOOL_NAMES.cancel} to stop it.`,
  };
  if (task.statusMessage !== undefined) pending.statusMessage = hostLine(task.statusMessage);
  if (expiresAt !== null) pending.expiresAt = new Date(expiresAt).toISOString();
  return pending;
}
