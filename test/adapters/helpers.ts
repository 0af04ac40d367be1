/**
 * Shared setup of the framework adapter suites: the reference server over loopback HTTP with one extra tool whose
 * job waits on a gate the test opens (so "still running after maxWaitMs" holds without a real-clock race), and a
 * client per test.
 */
import type { ToolSet } from 'ai';
import { createTaskTools as aiSdkTools } from '../../src/adapters/ai-sdk/index.js';
import { createTaskTools as langChainTools } from '../../src/adapters/langchain/index.js';
import { TaskMcpServer } from '../../src/adapters/openai-agents/index.js';
import type { TaskToolsOptions } from '../../src/adapters/shared/options.js';
import {
  MemoryTaskStore,
  StreamableHttpTransport,
  TaskClient,
  type TaskHandle,
  type TaskStore,
} from '../../src/index.js';
import {
  createTaskServer,
  textResult,
  type TaskServer,
  type ToolDefinition,
} from '../../src/testing/index.js';

/** A promise the test resolves by hand. */
export interface Gate {
  readonly opened: Promise<void>;
  open(): void;
}

export function createGate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** `slow_report {title}`: a task that reports "drafting" and finishes once the gate opens. */
export function gatedTool(gate: () => Gate): ToolDefinition {
  return {
    name: 'slow_report',
    description: 'Writes a report; takes as long as it takes.',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
    taskSupport: 'optional',
    run: async (ctx) => {
      ctx.report('drafting');
      await Promise.race([
        gate().opened,
        new Promise((_, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }),
        ),
      ]);
      const title = String(ctx.args.title);
      return textResult(`report "${title}" is ready`, { structuredContent: { title, pages: 3 } });
    },
  };
}

/** The server of one suite plus a fresh gate per test. */
export class Fixture {
  server!: TaskServer;
  gate = createGate();
  readonly clients: TaskClient[] = [];

  /** Starts the server with `tools` (default: the reference catalog plus `slow_report`, gated by {@link gate}). */
  async start(tools?: ToolDefinition[]): Promise<void> {
    this.server = await createTaskServer({
      inlineBudgetMs: 20,
      pollIntervalMs: 20,
      timeScale: 0.2,
      catalog: { tools: tools ?? [gatedTool(() => this.gate)] },
    });
  }

  client(store?: TaskStore): TaskClient {
    const client = new TaskClient({
      transport: new StreamableHttpTransport(this.server.url),
      polling: { minIntervalMs: 10 },
      store,
    });
    this.clients.push(client);
    return client;
  }

  /** The next task the client creates. */
  nextTask(client: TaskClient): Promise<TaskHandle<unknown>> {
    return new Promise((resolve) => client.once('task', resolve));
  }

  async reset(): Promise<void> {
    this.gate.open();
    await Promise.all(this.clients.splice(0).map((c) => c.close()));
    this.gate = createGate();
  }

  async stop(): Promise<void> {
    await this.reset();
    await this.server.close();
  }
}

export { MemoryTaskStore };

/**
 * One adapter's way to call a tool by name with the framework's signal, through its real package: resolves with what
 * the framework hands the model (an AI SDK tool output, LangChain's content string, the Agents SDK's content) and
 * rejects with a tool error (or the abort).
 */
export type Caller = (name: string, args: Record<string, unknown>, signal?: AbortSignal) => Promise<unknown>;

/** Each adapter's tool set over `client`, as a {@link Caller}. */
export const ADAPTERS: Record<string, (client: TaskClient, options: TaskToolsOptions) => Promise<Caller>> = {
  'ai-sdk': async (client, options) => {
    const tools: ToolSet = await aiSdkTools(client, options);
    return (name, args, abortSignal) =>
      (
        tools[name]?.execute as (
          input: unknown,
          options: { toolCallId: string; messages: []; abortSignal?: AbortSignal },
        ) => Promise<unknown>
      )(args, { toolCallId: 'call-1', messages: [], abortSignal });
  },
  langchain: async (client, options) => {
    const tools = await langChainTools(client, options);
    return (name, args, signal) => {
      const tool = tools.find((t) => t.name === name);
      if (!tool) throw new Error(`no tool ${name}`);
      return tool.invoke(args, { signal });
    };
  },
  'openai-agents': async (client, options) => {
    const mcp = new TaskMcpServer(client, { ...options, closeClient: false });
    await mcp.connect();
    return (name, args, signal) => mcp.callTool(name, args, null, { signal });
  },
};
