/**
 * `mcp-tasks-client/openai-agents`: a `TaskClient` as an OpenAI Agents SDK `MCPServer` (`@openai/agents-core`),
 * task-aware. Give it to an agent's `mcpServers`; every call goes through `TaskClient` (inline, multi round-trip or
 * task results look the same to the run); the run's abort signal cancels a task (or detaches, per `onAbort`);
 * questions go to `onInput` or are declined; with `maxWaitMs` a long task returns a "pending" result and
 * `task_status`/`task_result`/`task_cancel` are listed with the server's tools.
 *
 * Tool errors (`isError: true`, failed, cancelled, expired or unknown tasks, a question nobody answered) are thrown
 * as `TaskToolError`s, which the Agents SDK hands to the server's `errorFunction`; the default one here gives the
 * model the error's text. `structuredContent` is passed (and used as the model's output with
 * `useStructuredContent`). The Agents SDK has no streaming hook for a tool's progress: use `onStatus`.
 *
 * Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools and
 * https://github.com/modelcontextprotocol/ext-tasks.
 *
 * @example
 * ```ts
 * import { Agent, run } from '@openai/agents';
 * import { TaskMcpServer } from 'mcp-tasks-client/openai-agents';
 * const server = new TaskMcpServer(client, { maxWaitMs: 30_000, onInput: askTheUser });
 * await server.connect();
 * const agent = new Agent({ name: 'ops', instructions: '…', mcpServers: [server] });
 * await run(agent, 'Deploy 1.2.3');
 * ```
 *
 * @module
 */
import {
  invalidateServerToolsCache,
  type CallToolResult as AgentsCallToolResult,
  type CallToolResultContent,
  type MCPCallToolOptions,
  type MCPServer,
  type MCPToolErrorFunction,
} from '@openai/agents-core';
import type { TaskClient } from '../../client/task-client.js';
import { hostJson, hostQuoted } from '../shared/host-text.js';
import type { TaskToolsOptions } from '../shared/options.js';
import { TaskToolError, type ToolOutcome } from '../shared/outcome.js';
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

type AgentsMCPTool = Awaited<ReturnType<MCPServer['listTools']>>[number];

/** Options of {@link TaskMcpServer}: the adapter options plus the Agents SDK's `MCPServer` settings. Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools */
export interface TaskMcpServerOptions extends TaskToolsOptions {
  /** The server's name in traces and tool caches. @default 'mcp-tasks' */
  name?: string;
  /** Keep the tool list after the first `listTools` (until {@link TaskMcpServer.invalidateToolsCache}). @default false */
  cacheToolsList?: boolean;
  /** The Agents SDK's tool filter (applied by the SDK, after `include`/`exclude`). */
  toolFilter?: MCPServer['toolFilter'];
  /** Use `structuredContent` as the model-visible output when a result has it. @default false */
  useStructuredContent?: boolean;
  /** Turns a failed call into the model's text; `null` rethrows. @default the error's message for `TaskToolError`s */
  errorFunction?: MCPToolErrorFunction | null;
  /** Whether {@link TaskMcpServer.close} also closes the `TaskClient`. @default true */
  closeClient?: boolean;
}

/** The default `errorFunction`: a `TaskToolError`'s text as written for the model; other errors get a short prefix. Spec: https://github.com/modelcontextprotocol/ext-tasks */
export const taskToolErrorFunction: MCPToolErrorFunction = ({ error }) =>
  error instanceof TaskToolError
    ? error.message
    : `The tool call failed: ${error instanceof Error ? error.message : String(error)}`;

/**
 * An Agents SDK `MCPServer` backed by a `TaskClient`.
 *
 * Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools (`tools/list`, `tools/call`), https://github.com/modelcontextprotocol/ext-tasks (tasks).
 *
 * @throws TypeError from the constructor for invalid options.
 */
export class TaskMcpServer implements MCPServer {
  readonly name: string;
  cacheToolsList: boolean;
  toolFilter?: MCPServer['toolFilter'];
  useStructuredContent?: boolean;
  errorFunction?: MCPToolErrorFunction | null;
  readonly #client: TaskClient;
  readonly #runtime: TaskToolRuntime;
  readonly #closeClient: boolean;
  #tools: Map<string, AdaptedTool> | undefined;

  constructor(client: TaskClient, options: TaskMcpServerOptions = {}) {
    const {
      name,
      cacheToolsList,
      toolFilter,
      useStructuredContent,
      errorFunction,
      closeClient,
      ...adapterOptions
    } = options;
    this.#client = client;
    this.#runtime = new TaskToolRuntime(client, adapterOptions);
    this.name = name ?? 'mcp-tasks';
    this.cacheToolsList = cacheToolsList ?? false;
    this.toolFilter = toolFilter;
    this.useStructuredContent = useStructuredContent;
    this.errorFunction = errorFunction === undefined ? taskToolErrorFunction : errorFunction;
    this.#closeClient = closeClient ?? true;
  }

  /** Lists the server's tools once, so a server that cannot be reached fails here. @throws the client's errors. */
  async connect(): Promise<void> {
    await this.#load();
  }

  /** Stops using the server; closes the `TaskClient` unless `closeClient: false`. */
  async close(): Promise<void> {
    this.#tools = undefined;
    if (this.#closeClient) await this.#client.close();
  }

  /** The selected tools (prefixed) plus the task tools, in the Agents SDK's shape. @throws the client's errors. */
  async listTools(): Promise<AgentsMCPTool[]> {
    const tools = this.cacheToolsList && this.#tools ? this.#tools : await this.#load();
    return [...tools.values()].map((tool) => {
      const schema = tool.inputSchema as {
        properties?: Record<string, unknown>;
        required?: string[];
        additionalProperties?: unknown;
      };
      return {
        name: tool.name,
        description: tool.description,
        inputSchema: {
          ...schema,
          type: 'object',
          properties: schema.properties ?? {},
          required: Array.isArray(schema.required) ? schema.required : [],
          additionalProperties: schema.additionalProperties === true,
        },
      } as AgentsMCPTool;
    });
  }

  /**
   * Calls a tool (by the name `listTools` gave) and returns its content, with `structuredContent` attached.
   *
   * @throws {@link TaskToolError} for tool errors and failed tasks; `options.signal.reason` on abort.
   */
  async callTool(
    toolName: string,
    args: Record<string, unknown> | null,
    _meta?: Record<string, unknown> | null,
    options?: MCPCallToolOptions,
  ): Promise<CallToolResultContent> {
    const result = await this.callToolResult(toolName, args, _meta, options);
    const content = [...result.content] as CallToolResultContent;
    if (result.structuredContent !== undefined) content.structuredContent = result.structuredContent;
    return content;
  }

  /** Like {@link callTool}, with the whole result. */
  async callToolResult(
    toolName: string,
    args: Record<string, unknown> | null,
    _meta?: Record<string, unknown> | null,
    options?: MCPCallToolOptions,
  ): Promise<AgentsCallToolResult> {
    const tools = this.#tools ?? (await this.#load());
    const tool = tools.get(toolName);
    if (!tool)
      throw new TaskToolError('CALL_FAILED', `There is no tool ${hostQuoted(toolName)} on this server.`);
    return toAgents(await tool.run(args ?? {}, { signal: options?.signal }));
  }

  /** Forgets the cached tool list (here and in the Agents SDK's cache for this server's name). */
  async invalidateToolsCache(): Promise<void> {
    this.#tools = undefined;
    await invalidateServerToolsCache(this.name);
  }

  async #load(): Promise<Map<string, AdaptedTool>> {
    const tools = new Map((await this.#runtime.tools()).map((tool) => [tool.name, tool]));
    this.#tools = tools;
    return tools;
  }
}

/** @throws the outcome's `TaskToolError`. */
function toAgents(outcome: ToolOutcome): AgentsCallToolResult {
  if (outcome.kind === 'error') throw outcome.error;
  if (outcome.kind === 'pending') {
    return {
      content: [{ type: 'text', text: hostJson(outcome.pending) }],
      structuredContent: { ...outcome.pending },
    } as AgentsCallToolResult;
  }
  const { result, note } = outcome;
  const content = [...(result.content ?? [])];
  if (note) content.push({ type: 'text', text: note });
  const out: Record<string, unknown> = { content };
  if (result.structuredContent !== undefined) out.structuredContent = result.structuredContent;
  return out as AgentsCallToolResult;
}
