/**
 * Shared setup of the framework adapter suites: the reference server over loopback HTTP with one extra tool whose
 * job waits on a gate the test opens (so "still running after maxWaitMs" holds without a real-clock race), and a
 * client per test.
 */
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

  async start(): Promise<void> {
    this.server = await createTaskServer({
      inlineBudgetMs: 20,
      pollIntervalMs: 20,
      timeScale: 0.2,
      catalog: { tools: [gatedTool(() => this.gate)] },
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
