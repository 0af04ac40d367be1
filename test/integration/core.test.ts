/**
 * The core flows against the reference task server, over loopback HTTP and over stdio. Every test asserts the same client outcomes and the same server-side
 * facts on both transports; see harness.ts for how server stats are read over stdio.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  InputRequiredError,
  McpError,
  TaskCancelledError,
  TaskClient,
  TaskExpiredError,
  TaskFailedError,
  TaskNotFoundError,
  type InputRequiredEvent,
  type TaskHandle,
  type Transport,
} from '../../src/index.js';
import { httpHarness, stdioHarness, type Harness, type SuiteServerOptions } from './harness.js';
import '../helpers/no-jitter.js';

const POLL_MS = 100;
const SERVER: SuiteServerOptions = { pollIntervalMs: POLL_MS, ttlMs: 60_000, inputTimeoutMs: 5_000 };
type ClientOptions = Partial<ConstructorParameters<typeof TaskClient>[0]>;

function text(result: { content: Array<Record<string, unknown>> }): string {
  return result.content.map((c) => String(c.text)).join('');
}

describe.each([{ harness: httpHarness() }, { harness: stdioHarness() }])(
  'core flows against the reference server over $harness.name',
  ({ harness }: { harness: Harness }) => {
    const clients: TaskClient[] = [];
    const transportOf = new WeakMap<TaskClient, Transport>();

    async function newClient(options: ClientOptions = {}, server?: SuiteServerOptions): Promise<TaskClient> {
      const transport = await harness.transport(server);
      const client = new TaskClient({ transport, ...options });
      clients.push(client);
      transportOf.set(client, transport);
      return client;
    }
    const stats = (client: TaskClient, taskId?: string) =>
      harness.stats(transportOf.get(client) as Transport, taskId);

    beforeAll(() => harness.setup(SERVER));
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((c) => c.close()));
    });
    afterAll(() => harness.teardown());

    it('returns an inline result (1.7)', async () => {
      const client = await newClient();
      let tasks = 0;
      const result = await client.callTool('echo', { text: 'hello' }, { onTask: () => tasks++ });
      expect(text(result)).toBe('hello');
      expect(result.structuredContent).toEqual({ text: 'hello' });
      expect(tasks).toBe(0);
    });

    it('delivers progress of an inline call to onProgress (6.4)', async () => {
      const client = await newClient();
      const progress: unknown[] = [];
      const result = await client.callTool('echo', { text: 'p' }, { onProgress: (p) => progress.push(p) });
      expect(text(result)).toBe('p');
      expect(progress).toEqual([expect.objectContaining({ progress: 1, total: 1 })]);
    });

    it('discovers the tasks extension under capabilities.extensions (1.9)', async () => {
      const info = await (await newClient()).discover();
      expect(info.supportedVersions).toContain('2026-07-28');
      expect(info.capabilities.extensions).toHaveProperty(['io.modelcontextprotocol/tasks']);
    });

    it('turns a task into one promise that resolves when the task completes (5.8, 5.17)', async () => {
      const client = await newClient();
      const statuses: string[] = [];
      let handle: TaskHandle<unknown> | undefined;
      const result = await client.callTool(
        'reindex_corpus',
        { documents: 300 },
        {
          onTask: (h) => {
            handle = h;
            h.on('status', (t) => statuses.push(t.status));
          },
        },
      );
      expect(text(result)).toBe('Indexed 300 documents');
      expect(handle?.status).toBe('completed');
      expect(statuses[0]).toBe('working');
      expect(statuses.at(-1)).toBe('completed');
    });

    it('polls no more often than pollIntervalMs allows (5.7)', async () => {
      const client = await newClient();
      let handle: TaskHandle<unknown> | undefined;
      await client.callTool('reindex_corpus', { documents: 500 }, { onTask: (h) => (handle = h) }); // ≈ 1000 ms of work
      // Every time here is the server's: when it created the task (createdAt) and when each tasks/get arrived. The
      // client polls only once its own clock (the same system clock) passed the previous answer + pollIntervalMs,
      // so each gap is at least the interval: a bound the client guarantees, whatever the machine's load.
      const createdAtMs = Date.parse(String(handle!.task.createdAt));
      expect(createdAtMs).not.toBeNaN(); // the reference server always sends createdAt
      const times = (await stats(client, handle!.taskId)).taskGetTimes;
      expect(times.length).toBeGreaterThanOrEqual(1); // how many fit in depends on the machine's load: not asserted
      const gaps = times.map((t, i) => t - (i === 0 ? createdAtMs : (times[i - 1] as number)));
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(POLL_MS); // the first poll too waits one interval
    });

    it('rejects with TaskFailedError carrying the JSON-RPC error (5.9)', async () => {
      const error = await (await newClient()).callTool('flaky_job', {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaskFailedError);
      const failed = error as TaskFailedError;
      expect(failed.code).toBe('TASK_FAILED');
      expect(failed.error?.code).toBe(-32603);
      expect(failed.task?.status).toBe('failed');
    });

    it('returns isError results instead of throwing (5.9)', async () => {
      const result = await (await newClient()).callTool('lint_file', { path: 'src/index.ts' });
      expect(result.isError).toBe(true);
      expect(text(result).length).toBeGreaterThan(0);
    });

    it('runs an MRTR round on the original request (4.2–4.4)', async () => {
      const client = await newClient({
        handlers: { elicitation: () => ({ action: 'accept', content: { confirm: true } }) },
      });
      const before = (await stats(client)).counts['tools/call'] ?? 0;
      const result = await client.callTool('confirm_action', { action: 'rotate keys' });
      expect(text(result)).toBe('Performed "rotate keys"');
      expect(((await stats(client)).counts['tools/call'] ?? 0) - before).toBe(2);
    });

    it('fails an MRTR round nobody can answer with InputRequiredError', async () => {
      const error = await (await newClient({ capabilities: { elicitation: { form: {} } } }))
        .callTool('confirm_action', { action: 'x' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputRequiredError);
      expect((error as InputRequiredError).requests).toHaveProperty('confirm');
    });

    it('answers input_required with tasks/update exactly once and completes (5.11–5.13)', async () => {
      const client = await newClient();
      const events: InputRequiredEvent[] = [];
      client.on('inputRequired', (event) => {
        events.push(event);
        void event.respond({ action: 'accept', content: { confirm: true } });
      });
      let taskId = '';
      const result = await client.callTool(
        'deploy_release',
        { version: '2.0.0' },
        { onTask: (h) => (taskId = h.taskId) },
      );
      expect(text(result)).toContain('2.0.0');
      expect(events).toHaveLength(1);
      expect(events[0]?.taskId).toBe(taskId);
      const { taskUpdates } = await stats(client, taskId);
      expect(taskUpdates).toHaveLength(1);
      expect(taskUpdates[0]?.inputResponses).toEqual({
        confirm: { action: 'accept', content: { confirm: true } },
      });
    });

    it('cancels by handle: tasks/cancel once, TaskCancelledError, polling stops (5.14)', async () => {
      const client = await newClient();
      const start = await client.startTool('reindex_corpus', { documents: 50_000 });
      expect(start.resultType).toBe('task');
      if (start.resultType !== 'task') return;
      const handle = start.task;
      await handle.cancel();
      await handle.cancel();
      await expect(handle.result()).rejects.toBeInstanceOf(TaskCancelledError);
      expect((await stats(client, handle.taskId)).taskCancels).toHaveLength(1);
      const polls = (await stats(client, handle.taskId)).taskGetTimes.length;
      await new Promise((r) => setTimeout(r, POLL_MS * 3));
      expect((await stats(client, handle.taskId)).taskGetTimes).toHaveLength(polls);
    });

    it('cancels by AbortSignal: tasks/cancel once and the signal reason (STYLE 9)', async () => {
      const client = await newClient();
      const controller = new AbortController();
      const reason = new Error('host shutting down');
      let taskId = '';
      const call = client.callTool(
        'reindex_corpus',
        { documents: 50_000 },
        {
          signal: controller.signal,
          onTask: (h) => {
            taskId = h.taskId;
            h.once('status', () => controller.abort(reason));
          },
        },
      );
      await expect(call).rejects.toBe(reason);
      await expect.poll(async () => (await stats(client, taskId)).taskCancels.length).toBe(1);
    });

    it('abandons an inline call on abort, and the transport stays usable (2.11, 3.3)', async () => {
      // A long inline budget keeps the slow job inline, so the abort hits the request itself, not a task.
      const client = await newClient({}, { inlineBudgetMs: 10_000 });
      const controller = new AbortController();
      const reason = new Error('not needed any more');
      let tasks = 0;
      const call = client.callTool(
        'reindex_corpus',
        { documents: 1_000 },
        { signal: controller.signal, onTask: () => tasks++ },
      );
      setTimeout(() => controller.abort(reason), 100);
      await expect(call).rejects.toBe(reason);
      expect(tasks).toBe(0);
      expect(text(await client.callTool('echo', { text: 'after' }))).toBe('after');
    });

    it('tells an expired task from an unknown one (5.10, 5.16)', async () => {
      const client = await newClient({ polling: { intervalMs: 400, minIntervalMs: 400 } }, { ttlMs: 150 });
      const expired = await client.callTool('reindex_corpus', { documents: 50_000 }).catch((e: unknown) => e);
      expect(expired).toBeInstanceOf(TaskExpiredError);
      expect((expired as TaskExpiredError).code).toBe('TASK_EXPIRED');
      expect((expired as TaskExpiredError).cause).toBeInstanceOf(McpError);

      const unknown = await client.task('no-such-task').catch((e: unknown) => e);
      expect(unknown).toBeInstanceOf(TaskNotFoundError);
      expect((unknown as TaskNotFoundError).reason).toBe('unknown');
    });

    it('reads a resource and gets a prompt through the same pipeline, as tasks when slow (5.3)', async () => {
      const client = await newClient();
      const resource = await client.readResource('demo://slow-report');
      expect(resource.contents[0]).toMatchObject({
        uri: 'demo://slow-report',
        text: 'Quarterly report: all green.',
      });
      const prompt = await client.getPrompt('slow_briefing', { topic: 'tasks' });
      expect(prompt.messages.length).toBeGreaterThan(0);
    });
  },
);
