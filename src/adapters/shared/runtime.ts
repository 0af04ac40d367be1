/**
 * The framework-neutral core of an adapted tool set: the server's tools (selected and named), the task tools, and
 * one `run` per tool that every adapter wraps in its framework's tool shape.
 *
 * Spec: https://modelcontextprotocol.io/specification/2026-07-28/server/tools and
 * https://github.com/modelcontextprotocol/ext-tasks.
 *
 * @module
 */
import type { TaskClient } from '../../client/task-client.js';
import type { Tool } from '../../protocol/results.js';
import { InputRouter } from './input-router.js';
import { resolveTaskToolsOptions, type ResolvedTaskToolsOptions, type TaskToolsOptions } from './options.js';
import type { ToolOutcome } from './outcome.js';
import { runToolCall, type CallContext, type CallRuntime } from './run-call.js';
import { selectTools } from './select-tools.js';
import { TASK_TOOLS } from './task-tools.js';
import { TaskRegistry } from './task-registry.js';

/** One tool as a framework adapter sees it. */
export interface AdaptedTool {
  /** The name the framework and the model see (with `prefix`). */
  readonly name: string;
  /** The server's tool name, or the task tool's name (without `prefix`). */
  readonly sourceName: string;
  readonly description: string;
  /** JSON Schema of the arguments (`type: "object"` at the root). */
  readonly inputSchema: Record<string, unknown>;
  /** The server's definition; absent for the task tools. */
  readonly serverTool?: Tool;
  /** Runs one call. @throws `context.signal.reason` on abort. */
  run(args: Record<string, unknown> | undefined, context: CallContext): Promise<ToolOutcome>;
}

/** The runtime behind one adapted tool set. */
export class TaskToolRuntime implements CallRuntime {
  readonly client: TaskClient;
  readonly options: ResolvedTaskToolsOptions;
  readonly registry = new TaskRegistry();
  readonly router: InputRouter;

  /** @throws TypeError for invalid options (the message names the option and the value). */
  constructor(client: TaskClient, options: TaskToolsOptions = {}) {
    if (
      client === null ||
      typeof client !== 'object' ||
      typeof (client as { startTool?: unknown }).startTool !== 'function'
    ) {
      throw new TypeError('createTaskTools: the first argument must be a TaskClient');
    }
    this.client = client;
    this.options = resolveTaskToolsOptions(options);
    this.router = new InputRouter(client, this.options.onInput);
  }

  /**
   * Lists the server's tools (`tools/list`) and returns the adapted set: selected server tools, then the task tools
   * when enabled.
   *
   * @throws the client's errors for `tools/list`; TypeError on a name collision.
   */
  async tools(): Promise<AdaptedTool[]> {
    const listed = await this.client.listTools();
    return this.adapt(listed);
  }

  /** Adapts an already listed set of tools (see {@link tools}). */
  adapt(listed: readonly Tool[]): AdaptedTool[] {
    const local = this.options.taskTools ? TASK_TOOLS : [];
    const selected = selectTools(
      listed,
      this.options,
      local.map((t) => t.name),
    );
    const adapted: AdaptedTool[] = selected.map(({ tool, exposedName }) => ({
      name: exposedName,
      sourceName: tool.name,
      description: tool.description ?? tool.title ?? tool.name,
      inputSchema: objectSchema(tool.inputSchema),
      serverTool: tool,
      run: (args, context) => runToolCall(this, tool.name, args, context),
    }));
    for (const definition of local) {
      adapted.push({
        name: this.options.prefix + definition.name,
        sourceName: definition.name,
        description: definition.description,
        inputSchema: definition.inputSchema,
        run: (args, context) => definition.run(this, args, context),
      });
    }
    return adapted;
  }
}

/** A tool's input schema as a JSON Schema object with `type: "object"` (what every framework expects). */
function objectSchema(schema: unknown): Record<string, unknown> {
  const base =
    schema !== null && typeof schema === 'object' && !Array.isArray(schema)
      ? (schema as Record<string, unknown>)
      : {};
  return { ...base, type: 'object', properties: base.properties ?? {} };
}
