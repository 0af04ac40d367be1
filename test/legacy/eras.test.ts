/**
 * One API on both eras: the same assertions run against
 * `@modelcontextprotocol/server-everything` (2025-11-25, reached through the official SDK 1.x) and against the
 * reference task server (2026-07-28), each over Streamable HTTP on loopback and over stdio. Only the tool names,
 * their arguments, the shape of the answer and the server's `ttl`/`pollInterval` differ per server; see TARGETS.
 *
 * Timing: server-everything's research task runs four 1 s stages and polls every 1 s, so a run takes 5–6 s; the
 * tests of one server run concurrently (each with its own client) to keep the file well under 40 s.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  StreamableHttpTransport,
  TaskCancelledError,
  TaskClient,
  type CallToolResult,
  type InputRequiredEvent,
  type InputResponse,
  type Task,
  type TaskHandle,
  type Transport,
} from '../../src/index.js';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import {
  bundleReferenceServer,
  everythingStdio,
  referenceStdio,
  startEverythingHttp,
  type HttpChild,
} from './servers.js';
import '../helpers/no-jitter.js';

/** One server, reached one way, and how its tools map onto the shared scenario. */
interface Target {
  readonly name: string;
  readonly era: 'legacy' | 'modern';
  setup(): Promise<void>;
  teardown(): Promise<void>;
  transport(): Transport;
  /** The server's `pollInterval` / `ttl`, as the handle must show them (ms). */
  readonly server: { pollIntervalMs: number; ttlMs: number };
  /** A tool answered inline; `expect` is in its text. */
  readonly plain: { tool: string; args: Record<string, unknown>; expect: string };
  /** A task that runs a few seconds at most without questions; `expect` is in its report. */
  readonly research: { tool: string; args: Record<string, unknown>; expect: string };
  /** A task that asks one question (an elicitation form with `field`); `answer(text)` must bring `text` into the report. */
  readonly ambiguous: {
    tool: string;
    args: Record<string, unknown>;
    field: string;
    text: string;
    answer(text: string): InputResponse;
  };
  /** A task long enough to cancel. */
  readonly long: { tool: string; args: Record<string, unknown> };
  /** Where a status message sits in the task's progress (stage index, items done); `undefined` when it says nothing. */
  progressOf(message: string | undefined): number | undefined;
}

/** server-everything's research stages, in order (dist/tools/simulate-research-query.js). */
const STAGES = ['Gathering sources', 'Analyzing content', 'Synthesizing findings', 'Generating report'];
/** The answer must be one of the `oneOf` values offered (for "python": programming|snake|comedy); the report quotes it. */
const INTERPRETATION = 'snake';

function everything(
  name: string,
  transport: () => Transport,
  setup: () => Promise<void>,
  teardown: () => Promise<void>,
): Target {
  return {
    name,
    era: 'legacy',
    setup,
    teardown,
    transport,
    server: { pollIntervalMs: 1_000, ttlMs: 300_000 }, // fixed in the tool's createTask
    plain: { tool: 'echo', args: { message: 'hello' }, expect: 'Echo: hello' },
    research: {
      tool: 'simulate-research-query',
      args: { topic: 'tasks', ambiguous: false },
      expect: '# Research Report: tasks',
    },
    ambiguous: {
      tool: 'simulate-research-query',
      args: { topic: 'python', ambiguous: true },
      field: 'interpretation',
      text: INTERPRETATION,
      answer: (text) => ({ action: 'accept', content: { interpretation: text } }),
    },
    long: { tool: 'simulate-research-query', args: { topic: 'cancel me', ambiguous: false } },
    progressOf: (message) => {
      const stage = STAGES.findIndex((s) => message?.startsWith(s));
      return stage === -1 ? undefined : stage;
    },
  };
}

const MODERN_SERVER = { pollIntervalMs: 200, ttlMs: 120_000, inputTimeoutMs: 10_000 };

function reference(
  name: string,
  transport: () => Transport,
  setup: () => Promise<void>,
  teardown: () => Promise<void>,
): Target {
  return {
    name,
    era: 'modern',
    setup,
    teardown,
    transport,
    server: { pollIntervalMs: MODERN_SERVER.pollIntervalMs, ttlMs: MODERN_SERVER.ttlMs },
    plain: { tool: 'echo', args: { text: 'hello' }, expect: 'hello' },
    research: { tool: 'reindex_corpus', args: { documents: 600 }, expect: 'Indexed 600 documents' }, // ≈ 1.2 s
    ambiguous: {
      tool: 'deploy_release',
      args: { version: '2.0.0' },
      field: 'note',
      text: 'answered from the eras test',
      answer: (text) => ({ action: 'accept', content: { confirm: true, note: text } }),
    },
    long: { tool: 'reindex_corpus', args: { documents: 50_000 } }, // ≈ 100 s
    progressOf: (message) => {
      const done = /^indexed (\d+)\//.exec(message ?? '');
      return done ? Number(done[1]) : undefined;
    },
  };
}

function httpEverything(): Target {
  let server: HttpChild | undefined;
  return everything(
    'server-everything (2025-11-25) over Streamable HTTP',
    () => new StreamableHttpTransport((server as HttpChild).url),
    async () => void (server = await startEverythingHttp()),
    async () => server?.stop(),
  );
}

function stdioEverything(): Target {
  return everything(
    'server-everything (2025-11-25) over stdio',
    everythingStdio,
    async () => undefined,
    async () => undefined,
  );
}

function httpReference(): Target {
  let server: TaskServer | undefined;
  return reference(
    'reference server (2026-07-28) over Streamable HTTP',
    () => new StreamableHttpTransport((server as TaskServer).url),
    async () => void (server = await createTaskServer(MODERN_SERVER)),
    async () => server?.close(),
  );
}

function stdioReference(): Target {
  let bundle: Awaited<ReturnType<typeof bundleReferenceServer>> | undefined;
  const flags = [
    '--poll-interval-ms',
    String(MODERN_SERVER.pollIntervalMs),
    '--ttl-ms',
    String(MODERN_SERVER.ttlMs),
    '--input-timeout-ms',
    String(MODERN_SERVER.inputTimeoutMs),
  ];
  return reference(
    'reference server (2026-07-28) over stdio',
    () => referenceStdio((bundle as { script: string }).script, flags),
    async () => void (bundle = await bundleReferenceServer()),
    async () => bundle?.dispose(),
  );
}

const TARGETS: Target[] = [httpEverything(), stdioEverything(), httpReference(), stdioReference()];

function text(result: CallToolResult): string {
  return result.content.map((c) => String((c as { text?: unknown }).text ?? '')).join('');
}

/** The statuses seen, with repeats (a new statusMessage) collapsed. */
function collapse(statuses: string[]): string[] {
  return statuses.filter((s, i) => s !== statuses[i - 1]);
}

/** Records every `status` event of a handle (the first one is the creation state, emitted when polling starts). */
function watch(handle: TaskHandle<unknown>, seen: Task[]): void {
  handle.on('status', (task) => seen.push(task));
}

describe.each(TARGETS)('one API, two eras: $name', (target) => {
  const clients: TaskClient[] = [];

  /** A client of its own; `known` passes the era detected by the first test (there is no process-wide cache). */
  function newClient(known = false): TaskClient {
    const client = new TaskClient({
      transport: target.transport(),
      ...(known ? { era: target.era } : {}),
    });
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    await target.setup();
  }, 30_000);

  afterAll(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await target.teardown();
  }, 15_000);

  // First contact, sequential: the era is detected from scratch (HTTP: the modern POST is refused; stdio: the
  // server/discover probe). The tests after it run concurrently, each with its own client, told the era (each client
  // decides its era itself; only the last one detects it again).
  it('detects the era on first contact and answers a plain tool inline (no task)', {
    timeout: 15_000,
  }, async ({ expect }) => {
    const client = newClient();
    expect(client.era).toBeUndefined();
    let tasks = 0;
    const result = await client.callTool(target.plain.tool, target.plain.args, { onTask: () => tasks++ });
    expect(text(result)).toContain(target.plain.expect);
    expect(tasks).toBe(0);
    expect(client.era).toBe(target.era);
    expect(client.protocolVersion).toBe(target.era === 'legacy' ? '2025-11-25' : '2026-07-28');
  });

  describe.concurrent('calls', () => {
    it('resolves a task call with the final report; ttl/pollInterval mapped; status events in order', {
      timeout: 20_000,
    }, async ({ expect }) => {
      const client = newClient(true);
      const seen: Task[] = [];
      let handle: TaskHandle<unknown> | undefined;
      const inputs: InputRequiredEvent[] = [];
      client.on('inputRequired', (event) => inputs.push(event));
      const result = await client.callTool(target.research.tool, target.research.args, {
        onTask: (h) => {
          handle = h;
          watch(h, seen);
        },
      });
      expect(text(result)).toContain(target.research.expect);
      expect(result.isError).toBeFalsy();
      expect(inputs).toHaveLength(0);
      expect(handle).toBeDefined();
      expect(handle?.pollIntervalMs).toBe(target.server.pollIntervalMs);
      expect(handle?.task.ttlMs).toBe(target.server.ttlMs);
      expect(handle?.status).toBe('completed');
      const statuses = collapse(seen.map((t) => t.status));
      expect(statuses).toEqual(['working', 'completed']);
      const progress = seen.map((t) => target.progressOf(t.statusMessage)).filter((p) => p !== undefined);
      expect(progress.length).toBeGreaterThan(1);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
    });

    it('surfaces the one question as exactly one inputRequired event; the answer reaches the report', {
      timeout: 20_000,
    }, async ({ expect }) => {
      const client = newClient(true);
      const answer = target.ambiguous.text;
      const events: InputRequiredEvent[] = [];
      client.on('inputRequired', (event) => {
        events.push(event);
        void event.respond(target.ambiguous.answer(answer));
      });
      const seen: Task[] = [];
      let handle: TaskHandle<unknown> | undefined;
      const result = await client.callTool(target.ambiguous.tool, target.ambiguous.args, {
        onTask: (h) => {
          handle = h;
          watch(h, seen);
        },
      });
      expect(text(result)).toContain(answer);
      expect(result.isError).toBeFalsy();
      expect(events).toHaveLength(1);
      const [event] = events;
      expect(event?.taskId).toBe(handle?.taskId);
      expect(event?.request.method).toBe('elicitation/create');
      const schema = (event?.request.params as { requestedSchema?: { properties?: Record<string, unknown> } })
        .requestedSchema;
      expect(Object.keys(schema?.properties ?? {})).toContain(target.ambiguous.field);
      // working → input_required → (working) → completed: the question came once, and in order.
      const statuses = collapse(seen.map((t) => t.status));
      expect(statuses[0]).toBe('working');
      expect(statuses.filter((s) => s === 'input_required')).toHaveLength(1);
      expect(statuses.at(-1)).toBe('completed');
      expect(statuses.indexOf('input_required')).toBeLessThan(statuses.length - 1);
    });

    it('cancel() during the run ends with TaskCancelledError, and the server has the task cancelled', {
      timeout: 15_000,
    }, async ({ expect }) => {
      const client = newClient(true);
      const start = await client.startTool(target.long.tool, target.long.args);
      expect(start.resultType).toBe('task');
      if (start.resultType !== 'task') return;
      const handle = start.task;
      expect(handle.status).toBe('working');
      await handle.cancel();
      const error = await handle.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaskCancelledError);
      expect((error as TaskCancelledError).code).toBe('TASK_CANCELLED');
      // Attaching again (tasks/get) finds it cancelled on the server, and ends the same way.
      const again = await client.task(handle.taskId);
      await expect(again.result()).rejects.toBeInstanceOf(TaskCancelledError);
      expect(again.status).toBe('cancelled');
    });

    it('no process-wide era cache: a new client detects the era itself on its first call', {
      timeout: 15_000,
    }, async ({ expect }) => {
      const client = newClient();
      expect(client.era).toBeUndefined();
      const tools = await client.listTools();
      expect(client.era).toBe(target.era);
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining([target.plain.tool, target.research.tool, target.ambiguous.tool]),
      );
    });
  });
});
