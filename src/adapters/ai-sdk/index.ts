/**
 * `mcp-tasks-client/ai-sdk`: the tools of an MCP server as a Vercel AI SDK `ToolSet`, task-aware. Every call goes
 * through `TaskClient` (inline, multi round-trip or task results look the same to `generateText`/`streamText`);
 * the AI SDK's `abortSignal` cancels a task (or detaches, per `onAbort`); questions go to `onInput` or are declined;
 * with `maxWaitMs` a long task returns a "pending" result and `task_status`/`task_result`/`task_cancel` are added.
 *
 * Errors map to the AI SDK's convention: `execute` throws, and the AI SDK turns the error into a `tool-error` part
 * whose message the model reads (a result with `isError: true`, a failed, cancelled, expired or unknown task, a
 * question nobody answered). Successful results are returned as `{content, structuredContent}`.
 *
 * Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools and
 * https://github.com/modelcontextprotocol/ext-tasks.
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * import { createTaskTools } from 'mcp-tasks-client/ai-sdk';
 * const tools = await createTaskTools(client, { maxWaitMs: 30_000, onInput: askTheUser });
 * const { text } = await generateText({ model, tools, stopWhen: stepCountIs(5), prompt: 'Deploy 1.2.3' });
 * ```
 *
 * @module
 */
import { jsonSchema, tool, type Tool as AiTool, type ToolSet } from 'ai';
import type { TaskClient } from '../../client/task-client.js';
import type { TaskToolsOptions } from '../shared/options.js';
import type { PendingTaskResult, ToolOutcome } from '../shared/outcome.js';
import { TaskToolRuntime } from '../shared/runtime.js';
import { withPreliminaryResults, type TaskToolProgress } from './preliminary.js';

export { TASK_TOOL_NAMES } from '../shared/options.js';
export type {
  TaskToolInputCallback,
  TaskToolInputContext,
  TaskToolsOptions,
  TaskToolUpdate,
} from '../shared/options.js';
export { MAX_CARRIED_DEPTH, MAX_CARRIED_RESULT_CHARS, TaskToolError } from '../shared/outcome.js';
export type { PendingTaskResult, TaskToolErrorCode } from '../shared/outcome.js';
export type { TaskToolProgress } from './preliminary.js';

/** Options of the AI SDK's {@link createTaskTools}: the shared adapter options plus the AI SDK's streaming hook. */
export interface AiSdkTaskToolsOptions extends TaskToolsOptions {
  /**
   * Yield each status and progress update as a preliminary tool result ({@link TaskToolProgress}; `streamText`
   * and UI message streams show them with `preliminary: true`); the model still reads only the final result.
   * @default false
   */
  preliminaryResults?: boolean;
}

/** What a successful call returns to the AI SDK (and so to the model, as JSON): the `CallToolResult`'s fields. Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools */
export interface TaskToolOutput {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  /** Set when a question was declined on the model's behalf. */
  note?: string;
}

/**
 * Lists the server's tools and returns them as an AI SDK `ToolSet` (`tool()` + `jsonSchema()` from `ai`), plus the
 * task tools when `maxWaitMs` is set. Each `execute(args, {abortSignal, toolCallId})` resolves with a
 * {@link TaskToolOutput} or a {@link PendingTaskResult}, and throws a `TaskToolError` for tool errors.
 *
 * Status and progress reach the host through the AI SDK's preliminary tool results (`preliminaryResults: true`)
 * and through `onStatus` (with the AI SDK's `toolCallId`).
 *
 * Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools (`tools/list`, `tools/call`), https://github.com/modelcontextprotocol/ext-tasks (tasks).
 *
 * @throws TypeError for invalid options or colliding names; the client's errors for `tools/list`.
 */
export async function createTaskTools(
  client: TaskClient,
  options: AiSdkTaskToolsOptions = {},
): Promise<ToolSet> {
  const { preliminaryResults, ...shared } = options;
  if (preliminaryResults !== undefined && typeof preliminaryResults !== 'boolean') {
    throw new TypeError(
      `createTaskTools: invalid option "preliminaryResults": expected a boolean (got ${JSON.stringify(preliminaryResults)})`,
    );
  }
  const runtime = new TaskToolRuntime(client, shared);
  const set: ToolSet = {};
  for (const adapted of await runtime.tools()) {
    type Output = TaskToolOutput | PendingTaskResult | TaskToolProgress;
    const execute = (
      args: Record<string, unknown>,
      execution: { abortSignal?: AbortSignal; toolCallId: string },
    ): AsyncIterable<Output> | Promise<Output> => {
      const context = { signal: execution.abortSignal, toolCallId: execution.toolCallId };
      if (preliminaryResults) return withPreliminaryResults((c) => adapted.run(args, c), context, toAiSdk);
      return adapted.run(args, context).then(toAiSdk);
    };
    const value = tool({
      description: adapted.description,
      inputSchema: jsonSchema<Record<string, unknown>>(
        adapted.inputSchema as Parameters<typeof jsonSchema>[0],
      ),
      execute,
    }) as AiTool;
    // A server's tool name is data: even "__proto__" becomes an ordinary key, never the set's prototype.
    Object.defineProperty(set, adapted.name, { value, enumerable: true, writable: true, configurable: true });
  }
  return set;
}

/** @throws the outcome's `TaskToolError` (the AI SDK reports it to the model as a tool error). */
function toAiSdk(outcome: ToolOutcome): TaskToolOutput | PendingTaskResult {
  if (outcome.kind === 'error') throw outcome.error;
  if (outcome.kind === 'pending') return outcome.pending;
  const { content, structuredContent } = outcome.result;
  const output: TaskToolOutput = { content: content ?? [] };
  if (structuredContent !== undefined)
    output.structuredContent = structuredContent as Record<string, unknown>;
  if (outcome.note) output.note = outcome.note;
  return output;
}
