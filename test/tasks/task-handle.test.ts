import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CancelNotConfirmedError,
  HttpError,
  InvalidResponseError,
  McpError,
  NetworkError,
  TaskCancelledError,
  TaskClient,
  TaskExpiredError,
  TaskFailedError,
  TaskNotFoundError,
  type TaskClientOptions,
  type TaskHandle,
} from '../../src/index.js';
import type { CallToolResult } from '../../src/protocol/results.js';
import { ScriptedTransport, type Handler } from '../helpers/scripted-transport.js';
import {
  completed,
  created,
  detailed,
  flush,
  queue,
  rpcError,
  toolResult,
  outcome,
} from '../helpers/unit-fixtures.js';
import '../helpers/no-jitter.js';

function setup(handler: Handler, options: Partial<TaskClientOptions> = {}) {
  const transport = new ScriptedTransport(handler);
  const client = new TaskClient({ transport, ...options });
  const violations: string[] = [];
  client.on('serverViolation', (d) => violations.push(d));
  return { transport, client, violations };
}

async function startTask(client: TaskClient, name = 'job'): Promise<TaskHandle<CallToolResult>> {
  const start = await client.startTool(name, {});
  if (start.resultType !== 'task') throw new Error('expected a task');
  return start.task;
}

const T0 = Date.parse('2026-08-01T12:00:00Z');

describe('TaskHandle', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  describe('TTL and lost tasks (5.10, 5.16)', () => {
    it.each([
      ['3 hours behind', '2026-08-01T09:00:00Z'],
      ['3 hours ahead', '2026-08-01T15:00:00Z'],
    ])(
      '5.10: -32602 at local creation + ttlMs → TaskExpiredError, server createdAt %s does not matter',
      async (_label, createdAt) => {
        const get = queue([
          detailed({ ttlMs: 3_000, createdAt }),
          detailed({ ttlMs: 3_000, createdAt }),
          rpcError(-32602, 'unknown task'),
        ]);
        const { transport, client } = setup((m) =>
          m === 'tools/call' ? created({ ttlMs: 3_000, createdAt }) : get(),
        );
        const handle = await startTask(client);
        expect(handle.localCreatedAt).toBe(T0);
        expect(handle.expiresAt).toBe(T0 + 3_000);
        const done = outcome(handle.result());
        await vi.advanceTimersByTimeAsync(3_000);
        expect(transport.of('tasks/get').map((s) => s.at - T0)).toEqual([1_000, 2_000, 3_000]);
        expect(done.error).toBeInstanceOf(TaskExpiredError);
        const error = done.error as TaskExpiredError;
        expect(error.code).toBe('TASK_EXPIRED');
        expect(error.expiredAt).toBe(T0 + 3_000);
        expect(error.taskId).toBe('t1');
        expect(error.message).toBe('task t1 expired at 2026-08-01T12:00:03.000Z');
        expect(error.cause).toBeInstanceOf(McpError);
        expect((error.cause as McpError).code).toBe(-32602);
      },
    );

    it('5.16: -32602 before creation + ttlMs → TaskNotFoundError("unknown"), no retry', async () => {
      const get = queue([detailed({ ttlMs: 60_000 }), rpcError(-32602, 'unknown task')]);
      const { transport, client } = setup((m) =>
        m === 'tools/call' ? created({ ttlMs: 60_000, createdAt: '2026-08-01T09:00:00Z' }) : get(),
      );
      const handle = await startTask(client);
      const done = outcome(handle.result());
      await vi.advanceTimersByTimeAsync(10_000);
      expect(transport.of('tasks/get')).toHaveLength(2);
      expect(done.error).toBeInstanceOf(TaskNotFoundError);
      expect((done.error as TaskNotFoundError).reason).toBe('unknown');
      expect((done.error as TaskNotFoundError).code).toBe('TASK_NOT_FOUND');
      expect((done.error as Error).message).toBe('task t1 is unknown to the server');
    });

    it('5.10: ttlMs null never expires: a late -32602 is "unknown", expiresAt is null', async () => {
      const get = queue([detailed({ ttlMs: null }), detailed({ ttlMs: null }), rpcError(-32602)]);
      const { client } = setup((m) =>
        m === 'tools/call' ? created({ ttlMs: null, pollIntervalMs: 300_000 }) : get(),
      );
      const handle = await startTask(client);
      expect(handle.expiresAt).toBeNull();
      const done = outcome(handle.result());
      await vi.advanceTimersByTimeAsync(900_000);
      expect(done.error).toBeInstanceOf(TaskNotFoundError);
      expect((done.error as TaskNotFoundError).reason).toBe('unknown');
    });

    it('5.10: a ttlMs lowered by a poll is used (the latest wins)', async () => {
      const get = queue([detailed({ ttlMs: 2_000 }), rpcError(-32602)]);
      const { client } = setup((m) => (m === 'tools/call' ? created({ ttlMs: 600_000 }) : get()));
      const handle = await startTask(client);
      const done = outcome(handle.result());
      await vi.advanceTimersByTimeAsync(1_000);
      expect(handle.expiresAt).toBe(T0 + 2_000);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(done.error).toBeInstanceOf(TaskExpiredError);
      expect((done.error as TaskExpiredError).expiredAt).toBe(T0 + 2_000);
    });

    it('5.10: a ttlMs raised by a poll is used (no premature expiry)', async () => {
      const get = queue([detailed({ ttlMs: 600_000 }), detailed({ ttlMs: 600_000 }), rpcError(-32602)]);
      const { client } = setup((m) => (m === 'tools/call' ? created({ ttlMs: 1_500 }) : get()));
      const handle = await startTask(client);
      const done = outcome(handle.result());
      await vi.advanceTimersByTimeAsync(3_000);
      expect(done.error).toBeInstanceOf(TaskNotFoundError);
      expect((done.error as TaskNotFoundError).reason).toBe('unknown');
    });

    it('5.16: -32602 on the first polls of a new task is retried notYetVisibleRetries (2) times, then "not-yet-visible"', async () => {
      const { transport, client, violations } = setup((m) =>
        m === 'tools/call' ? created() : rpcError(-32602),
      );
      const handle = await startTask(client);
      const done = outcome(handle.result());
      await vi.advanceTimersByTimeAsync(10_000);
      expect(transport.of('tasks/get').map((s) => s.at - T0)).toEqual([1_000, 2_000, 3_000]);
      expect(done.error).toBeInstanceOf(TaskNotFoundError);
      expect((done.error as TaskNotFoundError).reason).toBe('not-yet-visible');
      expect((done.error as Error).message).toBe(
        'task t1 is unknown to the server (not yet visible after creation)',
      );
      expect(violations).toEqual(
        Array(3).fill('tasks/get answered -32602 for task t1 right after it was created'),
      );
    });

    it('5.16: a task that becomes visible on a retry goes on normally', async () => {
      const get = queue([rpcError(-32602), completed(toolResult('ok'))]);
      const { client, violations } = setup((m) => (m === 'tools/call' ? created() : get()));
      const handle = await startTask(client);
      const done = outcome(handle.result());
      await vi.advanceTimersByTimeAsync(2_000);
      expect(done.value).toEqual(toolResult('ok'));
      expect(violations).toHaveLength(1);
    });

    it('5.16: client.task(unknownId) → TaskNotFoundError after one tasks/get', async () => {
      const { transport, client } = setup(() => rpcError(-32602, 'no such task'));
      const error = await client.task('t-unknown-0123456789').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaskNotFoundError);
      expect((error as TaskNotFoundError).taskId).toBe('t-unknown-0123456789');
      expect((error as TaskNotFoundError).reason).toBe('unknown');
      expect((error as Error).message).toBe('task t-unkn…(20) is unknown to the server');
      expect(transport.of('tasks/get')).toHaveLength(1);
    });

    it('5.10: client.task with localCreatedAt + ttlMs in the past → TaskExpiredError', async () => {
      const { client } = setup(() => rpcError(-32602));
      const error = await client
        .task('t1', { localCreatedAt: T0 - 10_000, ttlMs: 5_000 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaskExpiredError);
      expect((error as TaskExpiredError).expiredAt).toBe(T0 - 5_000);
    });
  });

  describe('outcomes (5.8, 5.9)', () => {
    it('5.9: completed with isError:true resolves with the result, not a throw', async () => {
      const result = toolResult('tool broke', { isError: true });
      const { client } = setup((m) => (m === 'tools/call' ? created() : completed(result)));
      const done = outcome(client.callTool('job'));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(done.value).toEqual(result);
    });

    it('5.9: failed → TaskFailedError carrying the JSON-RPC error {code, message, data}', async () => {
      const error = { code: -32603, message: 'disk full', data: { path: '/var' } };
      const { client } = setup((m) =>
        m === 'tools/call' ? created() : detailed({ status: 'failed', error, statusMessage: 'oops' }),
      );
      const done = outcome(client.callTool('job'));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(done.error).toBeInstanceOf(TaskFailedError);
      const e = done.error as TaskFailedError;
      expect(e.code).toBe('TASK_FAILED');
      expect(e.error).toEqual(error);
      expect(e.task?.status).toBe('failed');
      expect(e.message).toBe('task t1 failed: disk full (JSON-RPC -32603)');
    });

    it('5.9: failed without error → TaskFailedError with error undefined, message from statusMessage', async () => {
      const { client } = setup((m) =>
        m === 'tools/call' ? created() : detailed({ status: 'failed', statusMessage: 'gave up' }),
      );
      const done = outcome(client.callTool('job'));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(done.error).toBeInstanceOf(TaskFailedError);
      expect((done.error as TaskFailedError).error).toBeUndefined();
      expect((done.error as Error).message).toBe('task t1 failed: gave up');
    });

    it('5.8: cancelled → TaskCancelledError with the last task', async () => {
      const { client } = setup((m) =>
        m === 'tools/call' ? created() : detailed({ status: 'cancelled', statusMessage: 'by admin' }),
      );
      const done = outcome(client.callTool('job'));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(done.error).toBeInstanceOf(TaskCancelledError);
      expect((done.error as TaskCancelledError).code).toBe('TASK_CANCELLED');
      expect((done.error as TaskCancelledError).task?.status).toBe('cancelled');
      expect((done.error as Error).message).toBe('task t1 was cancelled: by admin');
    });

    it('5.8: completed without result → InvalidResponseError, polling stops', async () => {
      const { transport, client } = setup((m) =>
        m === 'tools/call' ? created() : detailed({ status: 'completed' }),
      );
      const done = outcome(client.callTool('job'));
      await vi.advanceTimersByTimeAsync(5_000);
      expect(done.error).toBeInstanceOf(InvalidResponseError);
      expect((done.error as InvalidResponseError).method).toBe('tasks/get');
      expect((done.error as Error).message).toBe(
        'tasks/get failed: invalid response: task t1 is "completed" but has no "result"',
      );
      expect(transport.of('tasks/get')).toHaveLength(1);
    });

    it('a completed result that is not a CallToolResult → InvalidResponseError naming tools/call', async () => {
      const { client } = setup((m) =>
        m === 'tools/call' ? created() : completed({ text: 'no content array' }),
      );
      const done = outcome(client.callTool('job'));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(done.error).toBeInstanceOf(InvalidResponseError);
      expect((done.error as InvalidResponseError).method).toBe('tools/call');
    });

    it('a tasks/get reply for another taskId → InvalidResponseError', async () => {
      const { client } = setup((m) => (m === 'tools/call' ? created() : detailed({ taskId: 't2' })));
      const done = outcome(client.callTool('job'));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(done.error).toBeInstanceOf(InvalidResponseError);
      expect((done.error as Error).message).toBe(
        'tasks/get failed: invalid response: tasks/get returned task t2, asked for t1',
      );
    });

    it('emits status on change and terminal once; toJSON holds the id', async () => {
      const get = queue([detailed(), detailed({ statusMessage: '50%' }), completed()]);
      const { client } = setup((m) => (m === 'tools/call' ? created() : get()));
      const handle = await startTask(client);
      const statuses: string[] = [];
      const terminal: string[] = [];
      handle.on('status', (t) => statuses.push(`${t.status}:${t.statusMessage ?? ''}`));
      handle.on('terminal', (t) => terminal.push(t.status));
      await vi.advanceTimersByTimeAsync(3_000);
      expect(statuses).toEqual(['working:50%', 'completed:']);
      expect(terminal).toEqual(['completed']);
      expect(handle.done).toBe(true);
      expect(JSON.parse(JSON.stringify(handle))).toEqual({ taskId: 't1', method: 'tools/call' });
    });
  });

  describe('cancel (5.14)', () => {
    it('5.14 (behaviour 1): cancel() twice sends tasks/cancel once; the ack is intent, so polling goes on until the server reports cancelled', async () => {
      const get = queue([detailed(), detailed(), detailed({ status: 'cancelled' })]);
      const { transport, client } = setup((m) =>
        m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : get(),
      );
      const handle = await startTask(client);
      const done = outcome(handle.result());
      await vi.advanceTimersByTimeAsync(1_000);
      expect(transport.of('tasks/get')).toHaveLength(1);
      await Promise.all([handle.cancel(), handle.cancel()]);
      await handle.cancel();
      expect(transport.of('tasks/cancel').map((s) => s.message.params?.taskId)).toEqual(['t1']);
      expect(handle.cancelRequested).toBe(true);
      await flush();
      expect(done.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(done.error).toBeInstanceOf(TaskCancelledError);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(transport.of('tasks/get')).toHaveLength(3);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('5.14: cancel({waitMs}) keeps polling and resolves with the result if the server completes meanwhile', async () => {
      const get = queue([detailed(), detailed(), completed(toolResult('finished anyway'))]);
      const { transport, client } = setup((m) =>
        m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : get(),
      );
      const handle = await startTask(client);
      const done = outcome(handle.result());
      await vi.advanceTimersByTimeAsync(1_000);
      await handle.cancel({ waitMs: 10_000 });
      expect(transport.of('tasks/cancel')).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(transport.of('tasks/get').map((s) => s.at - T0)).toEqual([1_000, 2_000, 3_000]);
      expect(done.value).toEqual(toolResult('finished anyway'));
      expect(vi.getTimerCount()).toBe(0);
    });

    it('5.14 (behaviour 1): cancel({waitMs}) settles with CancelNotConfirmedError when no terminal status arrives in time', async () => {
      const { transport, client } = setup((m) =>
        m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : detailed(),
      );
      const handle = await startTask(client);
      const done = outcome(handle.result());
      await handle.cancel({ waitMs: 2_500 });
      await vi.advanceTimersByTimeAsync(2_499);
      expect(done.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(done.error).toBeInstanceOf(CancelNotConfirmedError);
      expect(transport.of('tasks/get').map((s) => s.at - T0)).toEqual([1_000, 2_000]);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(transport.of('tasks/get')).toHaveLength(2);
    });

    it('STYLE 9: aborting result({signal}) only stops that wait: no tasks/cancel, polling continues', async () => {
      const get = queue([detailed(), detailed(), completed(toolResult('later'))]);
      const { transport, client } = setup((m) => (m === 'tools/call' ? created() : get()));
      const handle = await startTask(client);
      const controller = new AbortController();
      const reason = new Error('stop waiting');
      const wait = outcome(handle.result({ signal: controller.signal }));
      await vi.advanceTimersByTimeAsync(1_000);
      controller.abort(reason);
      await flush();
      expect(wait.error).toBe(reason);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(transport.of('tasks/cancel')).toHaveLength(0);
      expect(transport.of('tasks/get')).toHaveLength(3);
      await expect(handle.result()).resolves.toEqual(toolResult('later'));
    });

    it('STYLE 22: result({signal}) removes its abort listener once the outcome is known', async () => {
      const { client } = setup((m) => (m === 'tools/call' ? created() : completed()));
      const handle = await startTask(client);
      const controller = new AbortController();
      const wait = handle.result({ signal: controller.signal });
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1_000);
      await wait;
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });

    it('result({signal}) with an already-aborted signal rejects with its reason at once', async () => {
      const { client } = setup((m) => (m === 'tools/call' ? created() : detailed()));
      const handle = await startTask(client);
      const reason = new Error('already');
      await expect(handle.result({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
      await client.close();
    });
  });

  describe('transient poll failures', () => {
    it('NetworkError is retried with backoff from the floor; error events are emitted', async () => {
      const failures = [
        new NetworkError('tasks/get', { cause: new Error('ECONNRESET') }),
        new NetworkError('tasks/get', { cause: new Error('ECONNRESET') }),
      ];
      let n = 0;
      const { transport, client } = setup((m) => {
        if (m === 'tools/call') return created();
        const f = failures[n++];
        if (f) throw f;
        return completed();
      });
      const handle = await startTask(client);
      const errors: unknown[] = [];
      handle.on('error', (e) => errors.push(e));
      const done = outcome(handle.result());
      await vi.advanceTimersByTimeAsync(4_000);
      // poll 1000 fails → +1000 (attempt 1) → 2000 fails → +2000 (attempt 2) → 4000 succeeds
      expect(transport.of('tasks/get').map((s) => s.at - T0)).toEqual([1_000, 2_000, 4_000]);
      expect(errors).toEqual(failures);
      expect(done.value).toEqual(toolResult('done'));
    });

    it('HttpError 503 retries are never sooner than the server floor', async () => {
      let n = 0;
      const { transport, client } = setup((m) => {
        if (m === 'tools/call') return created({ pollIntervalMs: 5_000 });
        if (n++ === 0) throw new HttpError('tasks/get', 503, 'busy');
        return completed();
      });
      const handle = await startTask(client);
      const done = outcome(handle.result());
      await vi.advanceTimersByTimeAsync(9_999);
      expect(transport.of('tasks/get').map((s) => s.at - T0)).toEqual([5_000]);
      await vi.advanceTimersByTimeAsync(1);
      expect(transport.of('tasks/get').map((s) => s.at - T0)).toEqual([5_000, 10_000]);
      expect(done.value).toEqual(toolResult('done'));
    });

    it('HttpError 429 with retryAfterMs pauses every poll to that server', async () => {
      let aPolls = 0;
      const { transport, client } = setup((m, params) => {
        if (m === 'tools/call') return created({ taskId: String(params.name) });
        if (params.taskId === 'A' && aPolls++ === 0)
          throw new HttpError('tasks/get', 429, 'slow down', 5_000);
        return detailed({ taskId: params.taskId });
      });
      const a = await startTask(client, 'A');
      const b = await startTask(client, 'B');
      await vi.advanceTimersByTimeAsync(6_000);
      const at = (id: string) =>
        transport
          .of('tasks/get')
          .filter((s) => s.message.params?.taskId === id)
          .map((s) => s.at - T0);
      // Both poll at 1000; A gets 429 (Retry-After 5 s) → the server is paused until 6000; B's 2000 poll waits too.
      expect(at('A')).toEqual([1_000, 6_000]);
      expect(at('B')).toEqual([1_000, 6_000]);
      a.cancel().catch(() => undefined);
      b.cancel().catch(() => undefined);
      await client.close();
    });

    it('past maxPollRetries the result rejects with the last error', async () => {
      const thrown: HttpError[] = [];
      const { transport, client } = setup((m) => {
        if (m === 'tools/call') return created();
        const e = new HttpError('tasks/get', 502, `bad gateway ${thrown.length + 1}`);
        thrown.push(e);
        throw e;
      });
      const handle = await startTask(client);
      const errors: unknown[] = [];
      handle.on('error', (e) => errors.push(e));
      const done = outcome(handle.result());
      await vi.advanceTimersByTimeAsync(60_000);
      expect(transport.of('tasks/get').map((s) => s.at - T0)).toEqual([
        1_000, 2_000, 4_000, 8_000, 16_000, 32_000,
      ]);
      expect(done.error).toBe(thrown[5]);
      expect(errors).toEqual(thrown);
    });

    it('a fatal poll error (JSON-RPC -32603 without HTTP status) rejects at once, no retry', async () => {
      const { transport, client } = setup((m) =>
        m === 'tools/call' ? created() : rpcError(-32603, 'internal'),
      );
      const handle = await startTask(client);
      const done = outcome(handle.result());
      await vi.advanceTimersByTimeAsync(60_000);
      expect(transport.of('tasks/get')).toHaveLength(1);
      expect(done.error).toBeInstanceOf(McpError);
      expect((done.error as McpError).code).toBe(-32603);
    });
  });

  describe('refresh()', () => {
    it('resolves with the state after the next scheduled poll, not sooner', async () => {
      const get = queue([detailed({ statusMessage: 'step 1' }), completed()]);
      const { client } = setup((m) => (m === 'tools/call' ? created() : get()));
      const handle = await startTask(client);
      const next = outcome(handle.refresh());
      await vi.advanceTimersByTimeAsync(999);
      expect(next.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect((next.value as { statusMessage?: string }).statusMessage).toBe('step 1');
      await vi.advanceTimersByTimeAsync(1_000);
      await expect(handle.refresh()).resolves.toMatchObject({ status: 'completed' });
    });
  });
});

describe('TaskHandle: server violations reach the client whatever made the handle', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('a task attached with client.task(): input_required with no inputRequests is a client serverViolation', async () => {
    const get = queue([
      detailed({ status: 'working' }),
      detailed({ status: 'input_required', inputRequests: {} }),
      detailed({ status: 'completed', result: toolResult('ok') }),
    ]);
    const { client, violations } = setup(() => get());
    const handle = await client.task('t1');
    const onHandle: string[] = [];
    handle.on('serverViolation', (d) => onHandle.push(d));
    const done = outcome(handle.result());
    await vi.advanceTimersByTimeAsync(2_000);
    expect(done.value).toEqual(toolResult('ok'));
    expect(onHandle).toEqual(['task t1 is input_required with no inputRequests']);
    expect(violations).toEqual(['task t1 is input_required with no inputRequests']);
  });
});
