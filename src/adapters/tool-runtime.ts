/**
 * `mcp-tasks-client/tool-runtime`: the framework-neutral core the adapters (`/ai-sdk`, `/langchain`,
 * `/openai-agents`) share, for a host of your own (the `mcp-tasks bridge` command line is one). `TaskToolRuntime`
 * lists the server's tools with the task tools (`task_status`, `task_result`, `task_cancel`), runs one call through
 * `TaskClient.startTool` and ends it as a {@link ToolOutcome}: a result, a "pending" hand-off once `maxWaitMs`
 * passed, or a {@link TaskToolError} whose message is written for a model. The upstream's words in those sentences
 * are escaped by {@link hostLine}, {@link hostText} and {@link hostQuoted}, which a host of its own can use as well.
 *
 * Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools and
 * https://github.com/modelcontextprotocol/ext-tasks.
 *
 * @example
 * ```ts
 * import { TaskToolRuntime } from 'mcp-tasks-client/tool-runtime';
 * const runtime = new TaskToolRuntime(client, { maxWaitMs: 50_000, onInput: askTheHost });
 * const tools = await runtime.tools();
 * const outcome = await tools[0].run({ documents: 100 }, { toolCallId: '1' });
 * ```
 *
 * @module
 */
export { TaskToolRuntime } from './shared/runtime.js';
export type { AdaptedTool } from './shared/runtime.js';
export type { CallContext } from './shared/run-call.js';
export { TASK_TOOL_NAMES } from './shared/options.js';
export type {
  TaskToolInputCallback,
  TaskToolInputContext,
  TaskToolsOptions,
  TaskToolUpdate,
} from './shared/options.js';
export { inputNeededText, resultText, TaskToolError } from './shared/outcome.js';
export type { PendingTaskResult, TaskToolErrorCode, ToolOutcome } from './shared/outcome.js';
export { questionOf } from './shared/input-router.js';
export { hostLine, hostQuoted, hostText } from './shared/host-text.js';
export type { TrackedTask } from './shared/task-registry.js';
