/**
 * `mcp-tasks-client/langchain`: the tools of an MCP server as LangChain `StructuredTool`s (`@langchain/core`),
 * task-aware. Every call goes through `TaskClient` (inline, multi round-trip or task results look the same to an
 * agent); the run's `signal` cancels a task (or detaches, per `onAbort`); questions go to `onInput` or are
 * declined; with `maxWaitMs` a long task returns a "pending" result and `task_status`/`task_result`/`task_cancel`
 * are added.
 *
 * Called with a tool call (as agents do), each tool returns a `ToolMessage`: `status: "error"` for a result with
 * `isError: true` and for failed, cancelled, expired or unknown tasks (the text tells the model what happened), the
 * tool's `structuredContent` as the message's `artifact`. Status and progress are dispatched as the custom event
 * {@link TASK_STATUS_EVENT} (`streamEvents` → `on_custom_event`, or a callback handler's `handleCustomEvent`).
 *
 * Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools and
 * https://github.com/modelcontextprotocol/ext-tasks.
 *
 * @example
 * ```ts
 * import { createAgent } from 'langchain';
 * import { createTaskTools } from 'mcp-tasks-client/langchain';
 * const tools = await createTaskTools(client, { maxWaitMs: 30_000, onInput: askTheUser });
 * const agent = createAgent({ model, tools });
 * await agent.invoke({ messages: [{ role: 'user', content: 'Deploy 1.2.3' }] });
 * ```
 *
 * @module
 */
import { dispatchCustomEvent } from '@langchain/core/callbacks/dispatch/web';
import { ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { DynamicStructuredTool } from '@langchain/core/tools';
import type { TaskClient } from '../../client/task-client.js';
import { toJsonText } from '../../internal/deep-json.js';
import { hostJson } from '../shared/host-text.js';
import type { TaskToolsOptions, TaskToolUpdate } from '../shared/options.js';
import { resultText, type ToolOutcome } from '../shared/outcome.js';
import { TaskToolRuntime, type AdaptedTool } from '../shared/runtime.js';

export { TASK_TOOL_NAMES } from '../shared/options.js';
export type {
  TaskToolInputCallback,
  TaskToolInputContext,
  TaskToolsOptions,
  TaskToolUpdate,
} from '../shared/options.js';
export { MAX_CARRIED_DEPTH, MAX_CARRIED_RESULT_CHARS, TaskToolError } from '../shared/outcome.js';
export type { PendingTaskResult, TaskToolErrorCode } from '../shared/outcome.js';

/** Name of the custom callback event that carries a {@link TaskToolUpdate} (a task's `status`/`statusMessage`, or progress). Spec: https://github.com/modelcontextprotocol/ext-tasks */
export const TASK_STATUS_EVENT = 'mcp_task_status';

type ToolConfig = RunnableConfig & { toolCall?: { id?: string } };

/**
 * Lists the server's tools and returns them as `DynamicStructuredTool`s (JSON Schema input), plus the task tools
 * when `maxWaitMs` is set.
 *
 * Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools (`tools/list`, `tools/call`), https://github.com/modelcontextprotocol/ext-tasks (tasks).
 *
 * @throws TypeError for invalid options or colliding names; the client's errors for `tools/list`.
 */
export async function createTaskTools(
  client: TaskClient,
  options: TaskToolsOptions = {},
): Promise<DynamicStructuredTool[]> {
  const runtime = new TaskToolRuntime(client, options);
  return (await runtime.tools()).map((adapted) => toLangChain(adapted));
}

function toLangChain(adapted: AdaptedTool): DynamicStructuredTool {
  return new DynamicStructuredTool({
    name: adapted.name,
    description: adapted.description,
    schema: adapted.inputSchema as Record<string, unknown> & { type: 'object' },
    func: async (input: Record<string, unknown>, _runManager?: unknown, config?: ToolConfig) => {
      const toolCallId = config?.toolCall?.id;
      const onUpdate = config?.callbacks
        ? (update: TaskToolUpdate) =>
            void dispatchCustomEvent(TASK_STATUS_EVENT, update, config).catch(() => undefined)
        : undefined;
      const outcome = await adapted.run(input, { signal: config?.signal, toolCallId, onUpdate });
      return toMessage(outcome, adapted.name, toolCallId);
    },
  });
}

/**
 * A `ToolMessage` for an agent's tool call; without a tool call id (a direct `invoke(args)`), the content string,
 * or a thrown `TaskToolError`.
 */
function toMessage(outcome: ToolOutcome, name: string, toolCallId: string | undefined): ToolMessage | string {
  if (outcome.kind === 'error') {
    if (!toolCallId) throw outcome.error;
    const { code, taskId } = outcome.error;
    return new ToolMessage({
      content: outcome.error.message,
      tool_call_id: toolCallId,
      name,
      status: 'error',
      artifact: { code, taskId, result: outcome.error.result },
    });
  }
  if (outcome.kind === 'pending') {
    const content = hostJson(outcome.pending); // the taskId parses back exact; no raw control or invisible character
    return toolCallId
      ? new ToolMessage({
          content,
          tool_call_id: toolCallId,
          name,
          status: 'success',
          artifact: outcome.pending,
        })
      : content;
  }
  const { result, note } = outcome;
  const text = resultText(result) || toJsonText(result.structuredContent ?? result.content ?? []);
  const content = note ? `${text}\n${note}` : text;
  if (!toolCallId) return content;
  return new ToolMessage({
    content,
    tool_call_id: toolCallId,
    name,
    status: 'success',
    artifact: { structuredContent: result.structuredContent, content: result.content },
  });
}
