/**
 * The task tools an adapted tool set adds with `maxWaitMs`: `task_status`, `task_result` and `task_cancel`, so the
 * model (or the host's next turn) can come back to a task that outlived its call. They act only on tasks this tool
 * set started or the client's store holds (so they work across restarts with a `store`).
 *
 * Spec: https://github.com/modelcontextprotocol/ext-tasks (`tasks/get`, `tasks/cancel`).
 *
 * @module
 */
import type { CallToolResult } from '../../protocol/results.js';
import type { CallContext, CallRuntime } from './run-call.js';
import { awaitOutcome } from './run-call.js';
import { hostLine, hostQuoted } from './host-text.js';
import { TASK_TOOL_NAMES } from './options.js';
import { TaskToolError, toolErrorFrom, type ToolOutcome } from './outcome.js';
import type { TrackedTask } from './task-registry.js';

/** A tool the adapter defines itself. */
export interface LocalToolDefinition {
  /** Name before `prefix`. */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  run(rt: CallRuntime, args: Record<string, unknown> | undefined, context: CallContext): Promise<ToolOutcome>;
}

const TASK_ID_SCHEMA = {
  type: 'object',
  properties: { taskId: { type: 'string', description: 'The taskId from a pending tool result.' } },
  required: ['taskId'],
  additionalProperties: false,
} as const;

function okJson(value: Record<string, unknown>, text: string): ToolOutcome {
  const result: CallToolResult = { content: [{ type: 'text', text }], structuredContent: value };
  return { kind: 'ok', result };
}

async function lookup(
  rt: CallRuntime,
  args: Record<string, unknown> | undefined,
  tool: string,
): Promise<TrackedTask | ToolOutcome> {
  const taskId = args?.taskId;
  if (typeof taskId !== 'string' || taskId === '') {
    return {
      kind: 'error',
      error: new TaskToolError(
        'CALL_FAILED',
        `${tool} needs {"taskId": "<id from a pending result>"}; got ${hostLine(JSON.stringify(taskId ?? null))}.`,
      ),
    };
  }
  try {
    const entry = await rt.registry.find(rt.client, taskId);
    if (entry) return entry;
  } catch (error) {
    return { kind: 'error', error: toolErrorFrom('', error, taskId) };
  }
  return {
    kind: 'error',
    error: new TaskToolError(
      'TASK_NOT_FOUND',
      `No task ${hostQuoted(taskId)} is known here: it was not started by these tools and the client's store has no record of it.`,
      taskId,
    ),
  };
}

const isOutcome = (value: TrackedTask | ToolOutcome): value is ToolOutcome => 'kind' in value;

/** The task's status for the model: `taskId` exact (the model sends it back), the server's words escaped. */
function statusOf(entry: TrackedTask): Record<string, unknown> {
  const { handle } = entry;
  const status: Record<string, unknown> = { taskId: handle.taskId, status: handle.status, done: handle.done };
  if (entry.toolName) status.toolName = hostLine(entry.toolName);
  if (handle.task.statusMessage !== undefined) status.statusMessage = hostLine(handle.task.statusMessage);
  if (!handle.done) status.checkAgainAfterMs = handle.pollIntervalMs;
  if (handle.expiresAt !== null) status.expiresAt = new Date(handle.expiresAt).toISOString();
  return status;
}

/** `task_status {taskId}`: the task's status as the server last reported it. */
const taskStatus: LocalToolDefinition = {
  name: TASK_TOOL_NAMES.status,
  description:
    'Returns the current status of a task that a tool started earlier (from a pending result), without waiting for it.',
  inputSchema: TASK_ID_SCHEMA,
  async run(rt, args) {
    const entry = await lookup(rt, args, TASK_TOOL_NAMES.status);
    if (isOutcome(entry)) return entry;
    const status = statusOf(entry);
    const message = entry.handle.task.statusMessage ? ` (${hostLine(entry.handle.task.statusMessage)})` : '';
    return okJson(status, `Task ${hostLine(entry.handle.taskId)} is ${entry.handle.status}${message}.`);
  },
};

/** `task_result {taskId}`: waits at most `maxWaitMs` for the outcome; pending again if it is still running. */
const taskResult: LocalToolDefinition = {
  name: TASK_TOOL_NAMES.result,
  description:
    'Returns the outcome of a task that a tool started earlier (from a pending result). If it is still running, waits a while and then returns a pending result again.',
  inputSchema: TASK_ID_SCHEMA,
  async run(rt, args, context) {
    const entry = await lookup(rt, args, TASK_TOOL_NAMES.result);
    if (isOutcome(entry)) return entry;
    // An abort here only stops this wait: the task was handed to the model earlier and is cancelled by task_cancel.
    return awaitOutcome(rt, entry, context.signal, false);
  },
};

/** `task_cancel {taskId}`: asks the server to cancel (`tasks/cancel`). */
const taskCancel: LocalToolDefinition = {
  name: TASK_TOOL_NAMES.cancel,
  description: 'Asks the server to cancel a task that a tool started earlier (from a pending result).',
  inputSchema: TASK_ID_SCHEMA,
  async run(rt, args) {
    const entry = await lookup(rt, args, TASK_TOOL_NAMES.cancel);
    if (isOutcome(entry)) return entry;
    const { handle } = entry;
    if (handle.done)
      return okJson(
        statusOf(entry),
        `Task ${hostLine(handle.taskId)} had already ended (${handle.status}); nothing to cancel.`,
      );
    try {
      await handle.cancel();
    } catch (error) {
      return { kind: 'error', error: toolErrorFrom(entry.toolName, error, handle.taskId) };
    }
    return okJson(
      { ...statusOf(entry), cancelRequested: true },
      `Cancellation of task ${hostLine(handle.taskId)} was requested and acknowledged by the server.`,
    );
  },
};

/** The three task tools, in a stable order. */
export const TASK_TOOLS: readonly LocalToolDefinition[] = [taskStatus, taskResult, taskCancel];
