/**
 * Task faults over real loopback HTTP (test/faults/catalogue/task-faults.ts): each test injects one misbehaviour into
 * the reference server and pins the client's exact outcome. Small real intervals; every test has its own timeout.
 */
import { describe, expect, it } from 'vitest';
import {
  InvalidResponseError,
  isMcpClientError,
  TaskExpiredError,
  TaskFailedError,
  TaskNotFoundError,
  type CallToolResult,
  type TaskHandle,
} from '../../src/index.js';
import { chain, taskFaults } from './catalogue/index.js';
import { gaps, rejectionOf, SERVER_POLL_MS, useFaultBench } from './setup.js';

const bench = useFaultBench();
const TASK_TOOL = 'reindex_corpus';
const TASK_ARGS = { documents: 40 }; // ≈ 80 ms of work: always a task (inline budget 30 ms)
const T = 5_000; // per-test timeout: every test ends on its own well before it

function text(result: CallToolResult): string {
  return result.content.map((c) => String((c as { text?: unknown }).text)).join('');
}

async function runTask(
  options: Parameters<ReturnType<typeof bench.client>['callTool']>[2] = {},
  clientOptions = {},
) {
  const client = bench.client(clientOptions);
  let handle: TaskHandle<CallToolResult> | undefined;
  const violations: string[] = [];
  client.on('serverViolation', (v) => violations.push(v));
  const outcome = client.callTool(TASK_TOOL, TASK_ARGS, { ...options, onTask: (h) => (handle = h) });
  return { client, outcome, violations, handle: () => handle! };
}

/** The -32602 answers the client tolerates right after creation (an internal constant). */
const NOT_YET_VISIBLE_RETRIES = 2;

describe('pollIntervalMs faults (5.7)', () => {
  it(
    'missing: polls at the client default and completes',
    async () => {
      bench.server.inject(taskFaults.omitPollInterval(), { tool: TASK_TOOL });
      const { outcome, handle } = await runTask({}, { polling: { intervalMs: 30 } });
      expect(text(await outcome)).toBe('Indexed 40 documents');
      expect(handle().pollIntervalMs).toBe(30);
      expect(handle().task.pollIntervalMs).toBeUndefined();
      // Arrival times on the server's clock (logged before it answers); the client polls only once Date.now(), the
      // same clock, passed its previous answer + the interval: an exact lower bound, whatever the machine's load.
      const polls = bench.server.requests('tasks/get', handle().taskId);
      expect(Math.min(...gaps(polls))).toBeGreaterThanOrEqual(30);
    },
    T,
  );

  it(
    '0: raised to minPollIntervalMs, never a busy loop',
    async () => {
      bench.server.inject(taskFaults.pollIntervalOf(0), { tool: TASK_TOOL });
      const { outcome, handle } = await runTask({}, { polling: { minIntervalMs: 25 } });
      await outcome;
      expect(handle().pollIntervalMs).toBe(25);
      // No busy loop: every gap is at least minPollIntervalMs (server-clock arrivals, as above). How many polls fit
      // in the work depends on the machine's load, so it is not asserted (a busy loop would show as a tiny gap).
      const polls = bench.server.requests('tasks/get', handle().taskId);
      expect(Math.min(...gaps(polls))).toBeGreaterThanOrEqual(25);
    },
    T,
  );

  // ext-tasks tasks.md § Task Polling: "Clients SHOULD respect the pollIntervalMs provided in responses": the
  // client's maxPollIntervalMs never lowers the server's value; the caller's budget ends the wait.
  it(
    'huge (1e12): honoured (never lowered to maxPollIntervalMs); no poll, the call ends on its budget and cancels',
    async () => {
      bench.server.inject(taskFaults.pollIntervalOf(1e12), { tool: TASK_TOOL });
      const { outcome, handle } = await runTask(
        { maxTotalTimeoutMs: 300 },
        { polling: { maxIntervalMs: 40 } },
      );
      const error = await rejectionOf(outcome);
      expect(isMcpClientError(error, 'REQUEST_TIMEOUT')).toBe(true);
      expect(handle().pollIntervalMs).toBe(1e12);
      expect(bench.server.requests('tasks/get', handle().taskId)).toHaveLength(0);
      await handle()
        .result()
        .catch(() => undefined);
      expect(bench.server.requests('tasks/cancel', handle().taskId)).toHaveLength(1);
    },
    T,
  );
});

describe('ttlMs faults (5.10)', () => {
  it(
    'null: no expiry, completes',
    async () => {
      bench.server.inject(taskFaults.ttlOf(null), { tool: TASK_TOOL });
      const { outcome, handle } = await runTask();
      await outcome;
      expect(handle().expiresAt).toBeNull();
    },
    T,
  );

  it(
    'tiny (1 ms): the client keeps polling (it MAY give up, it does not) and completes while the server answers',
    async () => {
      bench.server.inject(taskFaults.ttlOf(1), { tool: TASK_TOOL });
      const { outcome, handle } = await runTask();
      expect(text(await outcome)).toBe('Indexed 40 documents');
      expect(handle().expiresAt).toBe(handle().localCreatedAt + 1);
    },
    T,
  );

  it(
    'tiny, then forgotten: -32602 past the local TTL is TaskExpiredError',
    async () => {
      bench.server.inject(chain(taskFaults.ttlOf(1), taskFaults.forgetTask(1)), { tool: TASK_TOOL });
      const { outcome, handle } = await runTask();
      const error = await rejectionOf(outcome);
      expect(error).toBeInstanceOf(TaskExpiredError);
      expect(isMcpClientError(error, 'TASK_EXPIRED')).toBe(true);
      expect((error as TaskExpiredError).expiredAt).toBe(handle().localCreatedAt + 1);
      expect(error.message).toMatch(/^task .+ expired at \d{4}-\d\d-\d\dT/);
    },
    T,
  );

  it(
    'changing between polls: the latest value wins',
    async () => {
      bench.server.inject(taskFaults.ttlOf(60_000, 5_000, 90_000, 120_000), { tool: TASK_TOOL });
      const { outcome, handle } = await runTask();
      await outcome;
      const polls = bench.server.requests('tasks/get', handle().taskId).length;
      const latest = [60_000, 5_000, 90_000, 120_000][Math.min(polls, 3)]!;
      expect(handle().task.ttlMs).toBe(latest);
      expect(handle().expiresAt).toBe(handle().localCreatedAt + latest);
    },
    T,
  );
});

describe('lost tasks (5.16)', () => {
  it(
    'forgotten before its TTL: TaskNotFoundError reason "unknown", no retry',
    async () => {
      bench.server.inject(taskFaults.forgetTask(1), { tool: TASK_TOOL });
      const { outcome, handle } = await runTask();
      const error = await rejectionOf(outcome);
      expect(error).toBeInstanceOf(TaskNotFoundError);
      expect((error as TaskNotFoundError).reason).toBe('unknown');
      expect((error as TaskNotFoundError).taskId).toBe(handle().taskId);
      expect(error.message).toContain('is unknown to the server');
      expect(bench.server.requests('tasks/get', handle().taskId)).toHaveLength(2);
    },
    T,
  );

  it(
    `-32602 before the task is visible (${NOT_YET_VISIBLE_RETRIES}×): tolerated with a serverViolation, completes`,
    async () => {
      bench.server.inject(taskFaults.notYetVisible(NOT_YET_VISIBLE_RETRIES), { tool: TASK_TOOL });
      const { outcome, violations } = await runTask();
      expect(text(await outcome)).toBe('Indexed 40 documents');
      expect(violations).toHaveLength(NOT_YET_VISIBLE_RETRIES);
      expect(violations[0]).toMatch(/-32602 .* right after it was created/);
    },
    T,
  );

  it(
    '-32602 before visible, for longer than the client tolerates: TaskNotFoundError reason "not-yet-visible"',
    async () => {
      bench.server.inject(taskFaults.notYetVisible(100), { tool: TASK_TOOL });
      const { outcome, handle } = await runTask();
      const error = await rejectionOf(outcome);
      expect(error).toBeInstanceOf(TaskNotFoundError);
      expect((error as TaskNotFoundError).reason).toBe('not-yet-visible');
      expect(error.message).toContain('not yet visible after creation');
      expect(bench.server.requests('tasks/get', handle().taskId)).toHaveLength(NOT_YET_VISIBLE_RETRIES + 1);
    },
    T,
  );
});

describe('status machine faults (5.8)', () => {
  it(
    'status going backwards from terminal: the first terminal status settles the call; no poll after it',
    async () => {
      bench.server.inject(taskFaults.statusBackwards(), { tool: TASK_TOOL });
      const { outcome, handle } = await runTask();
      expect(text(await outcome)).toBe('Indexed 40 documents');
      const polls = bench.server.requests('tasks/get', handle().taskId).length;
      await new Promise((r) => setTimeout(r, 3 * SERVER_POLL_MS));
      expect(bench.server.requests('tasks/get', handle().taskId)).toHaveLength(polls);
      expect(handle().status).toBe('completed');
    },
    T,
  );

  it(
    'completed without result: InvalidResponseError naming tasks/get and the missing field',
    async () => {
      bench.server.inject(taskFaults.completedWithoutResult(), { tool: TASK_TOOL });
      const { outcome } = await runTask();
      const error = await rejectionOf(outcome);
      expect(error).toBeInstanceOf(InvalidResponseError);
      expect(isMcpClientError(error, 'INVALID_RESPONSE')).toBe(true);
      expect(error.message).toMatch(
        /^tasks\/get failed: invalid response: task .+ is "completed" but has no "result"$/,
      );
    },
    T,
  );

  it(
    'failed without error: TaskFailedError with error undefined and the statusMessage as the reason',
    async () => {
      bench.server.inject(taskFaults.failedWithoutError(), { tool: 'flaky_job' });
      const client = bench.client();
      const error = await rejectionOf(client.callTool('flaky_job', {}));
      expect(error).toBeInstanceOf(TaskFailedError);
      expect((error as TaskFailedError).error).toBeUndefined();
      expect((error as TaskFailedError).task?.status).toBe('failed');
      expect(error.message).toMatch(/^task .+ failed: /);
      expect(error.message).not.toContain('JSON-RPC');
    },
    T,
  );
});

describe('input faults (5.11, 5.13)', () => {
  it(
    'the same input key re-issued after it was answered: answered once, the task completes',
    async () => {
      bench.server.inject(taskFaults.reissueAnsweredKey(3), { tool: 'deploy_release' });
      const client = bench.client();
      const asked: string[] = [];
      client.on('inputRequired', (e) => asked.push(e.key));
      let taskId = '';
      const result = await client.callTool(
        'deploy_release',
        { version: '1.2.3' },
        { onTask: (h) => (taskId = h.taskId) },
      );
      expect(text(result)).toBe('deployed 1.2.3');
      expect(bench.server.requests('tasks/update', taskId)).toHaveLength(1);
      expect(asked).toEqual(['confirm']);
      const reissued = bench.server.requests('tasks/get', taskId).length;
      expect(reissued).toBeGreaterThanOrEqual(4);
    },
    T,
  );

  it(
    'inputRequests empty while input_required: keeps polling without answering, then answers the real key',
    async () => {
      bench.server.inject(taskFaults.emptyInputRequests(2), { tool: 'deploy_release' });
      const client = bench.client();
      let taskId = '';
      const result = await client.callTool(
        'deploy_release',
        { version: '2.0.0' },
        { onTask: (h) => (taskId = h.taskId) },
      );
      expect(text(result)).toBe('deployed 2.0.0');
      expect(bench.server.requests('tasks/update', taskId)).toHaveLength(1);
    },
    T,
  );

  it(
    'inputRequests always empty: nothing to answer; the task fails on the server and the call gets TaskFailedError',
    async () => {
      bench.server.inject(taskFaults.emptyInputRequests(), { tool: 'deploy_release' });
      const client = bench.client();
      let taskId = '';
      const error = await rejectionOf(
        client.callTool('deploy_release', { version: '3.0.0' }, { onTask: (h) => (taskId = h.taskId) }),
      );
      expect(error).toBeInstanceOf(TaskFailedError);
      expect((error as TaskFailedError).error?.code).toBe(-32603);
      expect(bench.server.requests('tasks/update', taskId)).toHaveLength(0);
    },
    T,
  );
});

describe('shape faults tolerated ("Seed vs spec" 2)', () => {
  it(
    'extra unknown fields everywhere: ignored, and kept on the result',
    async () => {
      bench.server.inject(taskFaults.extraUnknownFields(), { tool: TASK_TOOL });
      const { outcome, handle } = await runTask();
      const result = await outcome;
      expect(text(result)).toBe('Indexed 40 documents');
      expect(result).toMatchObject({ futureField: [1, 2, 3] });
      expect(handle().status).toBe('completed');
    },
    T,
  );

  it(
    'nested task wrapper: unwrapped with a serverViolation, then polled as usual',
    async () => {
      bench.server.inject(taskFaults.nestedTaskWrapper(), { tool: TASK_TOOL });
      const { outcome, violations, handle } = await runTask();
      expect(text(await outcome)).toBe('Indexed 40 documents');
      expect(violations).toEqual([
        'tools/call: CreateTaskResult nested under "task" (the specification makes it flat)',
      ]);
      expect(bench.server.requests('tasks/get', handle().taskId).length).toBeGreaterThan(0);
    },
    T,
  );
});
