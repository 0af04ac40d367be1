/**
 * Behaviours 1 and 2 of cooperative cancellation (ext-tasks § Task Cancellation): a `tasks/cancel` ack is intent
 * only, the server's word decides the outcome, and a cancel that cannot be delivered is reported, never silent.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CancelDeliveryError,
  CancelNotConfirmedError,
  HttpError,
  McpError,
  NetworkError,
  TaskCancelledError,
  TaskClient,
  TaskNotFoundError,
} from '../../src/index.js';
import {
  completed,
  created,
  detailed,
  flush,
  outcome,
  queue,
  rpcError,
  toolResult,
} from '../helpers/unit-fixtures.js';
import { setup, startTask, T0 } from '../helpers/engine-setup.js';
import '../helpers/no-jitter.js';

const reset = (): never => {
  throw new NetworkError('tasks/cancel', {
    cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
  });
};

describe('behaviour 1: TaskCancelledError only when the server reported cancelled (ext-tasks § Task Cancellation)', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('behaviour 1: after a tasks/cancel ack the handle keeps following and the server\'s "completed" is the outcome', async () => {
    const get = queue([detailed(), detailed(), completed(toolResult('finished anyway'))]);
    const { transport, client } = setup((m) =>
      m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : get(),
    );
    const handle = await startTask(client);
    const done = outcome(handle.result());
    await vi.advanceTimersByTimeAsync(1_000);
    await handle.cancel();
    expect(handle.cancelRequested).toBe(true);
    await flush();
    expect(done.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    expect(done.value).toEqual(toolResult('finished anyway'));
  });

  it('behaviour 1: TaskCancelledError (TASK_CANCELLED) once the server reports status "cancelled"', async () => {
    const get = queue([detailed(), detailed({ status: 'cancelled', statusMessage: 'stopped' })]);
    const { client } = setup((m) => (m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : get()));
    const handle = await startTask(client);
    const done = outcome(handle.result());
    await vi.advanceTimersByTimeAsync(1_000);
    await handle.cancel();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(done.error).toBeInstanceOf(TaskCancelledError);
    expect((done.error as TaskCancelledError).task?.status).toBe('cancelled');
  });

  it('behaviour 1: cancel({waitMs}) ending before the server decides → CancelNotConfirmedError with taskId and last status', async () => {
    const { transport, client } = setup((m) =>
      m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : detailed({ statusMessage: 'still going' }),
    );
    const handle = await startTask(client);
    const done = outcome(handle.result());
    await handle.cancel({ waitMs: 2_500 });
    await vi.advanceTimersByTimeAsync(2_500);
    expect(done.error).toBeInstanceOf(CancelNotConfirmedError);
    expect(done.error).not.toBeInstanceOf(TaskCancelledError);
    const error = done.error as CancelNotConfirmedError;
    expect(error.code).toBe('CANCEL_NOT_CONFIRMED');
    expect(error.taskId).toBe('t1');
    expect(error.lastStatus).toBe('working');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(transport.of('tasks/get')).toHaveLength(2);
  });

  it('behaviour 1: an unconfirmed cancel is stored without outcome and never as "cancelled"; resumeAll() finds it', async () => {
    const { client, store } = setup((m) =>
      m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : detailed(),
    );
    const handle = await startTask(client);
    await handle.cancel({ waitMs: 1_500 });
    await vi.advanceTimersByTimeAsync(1_500);
    await client.close();
    const record = await store.get('t1');
    expect(record?.outcome).toBeUndefined();
    expect(record?.status).not.toBe('cancelled');
    expect(record?.cancelRequested).toBe(true);
    const again = new TaskClient({
      transport: new (await import('../helpers/scripted-transport.js')).ScriptedTransport(() =>
        detailed({ status: 'cancelled' }),
      ),
      store,
    });
    const resumed = await again.resumeAll();
    expect(resumed.map((h) => h.taskId)).toEqual(['t1']);
    const done = outcome(resumed[0]!.result());
    await vi.advanceTimersByTimeAsync(0);
    expect(done.error).toBeInstanceOf(TaskCancelledError);
    expect((await store.get('t1'))?.outcome).toEqual({ status: 'cancelled' });
  });
});

describe('behaviour 2: a lost tasks/cancel is retried, reported, or classified (ext-tasks § Task Cancellation, § Protocol Errors)', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('behaviour 2: a tasks/cancel lost to a reset and a 503 is retried with backoff until delivered', async () => {
    const cancel = queue([{ error: 'reset' } as never, { error: '503' } as never, {}]);
    const { transport, client } = setup((m) => {
      if (m === 'tools/call') return created();
      if (m === 'tasks/get') return detailed();
      const next = cancel() as { error?: string };
      if (next.error === 'reset') reset();
      if (next.error === '503') throw new HttpError('tasks/cancel', 503, 'busy');
      return {};
    });
    const handle = await startTask(client);
    const cancelled = outcome(handle.cancel());
    await vi.advanceTimersByTimeAsync(10_000);
    expect(transport.of('tasks/cancel')).toHaveLength(3);
    const times = transport.of('tasks/cancel').map((s) => s.at - T0);
    expect(times[1]! - times[0]!).toBeGreaterThan(0);
    expect(cancelled.settled).toBe(true);
    expect(cancelled.error).toBeUndefined();
  });

  it('behaviour 2: a tasks/cancel that is never delivered → cancel() rejects with CancelDeliveryError; the record stays resumable', async () => {
    const { transport, client, store } = setup((m) =>
      m === 'tools/call' ? created() : m === 'tasks/get' ? detailed() : reset(),
    );
    const handle = await startTask(client);
    const cancelled = outcome(handle.cancel());
    await vi.advanceTimersByTimeAsync(120_000);
    expect(cancelled.error).toBeInstanceOf(CancelDeliveryError);
    const error = cancelled.error as CancelDeliveryError;
    expect(error.code).toBe('CANCEL_NOT_DELIVERED');
    expect(error.taskId).toBe('t1');
    expect(error.cause).toBeInstanceOf(NetworkError);
    const sent = transport.of('tasks/cancel').length;
    expect(sent).toBeGreaterThan(1);
    expect(sent).toBeLessThanOrEqual(6);
    await client.close();
    expect((await store.get('t1'))?.outcome).toBeUndefined();
  });

  it('behaviour 2: the abort path of callTool says when tasks/cancel could not be delivered', async () => {
    // Within abortGraceMs the caller hears of it directly (past it: a warning, see abort-latency.test.ts).
    const { client } = setup(
      (m) => (m === 'tools/call' ? created() : m === 'tasks/get' ? detailed() : reset()),
      { limits: { abortGraceMs: 60_000 } },
    );
    const controller = new AbortController();
    const done = outcome(client.callTool('job', {}, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(1_000);
    controller.abort(new Error('stop'));
    await vi.advanceTimersByTimeAsync(120_000);
    expect(done.error).toBeInstanceOf(CancelDeliveryError);
    expect((done.error as CancelDeliveryError).taskId).toBe('t1');
    await client.close();
  });

  it('behaviour 2: -32602 on tasks/cancel → the task is read once and its terminal status is the outcome, never a raw McpError', async () => {
    const get = queue([detailed(), completed(toolResult('was already done'))]);
    const { transport, client } = setup((m) =>
      m === 'tools/call' ? created() : m === 'tasks/cancel' ? rpcError(-32602, 'unknown task') : get(),
    );
    const handle = await startTask(client);
    const done = outcome(handle.result());
    await vi.advanceTimersByTimeAsync(1_000);
    const cancelled = outcome(handle.cancel());
    await flush();
    expect(cancelled.error).toBeUndefined();
    expect(transport.of('tasks/get')).toHaveLength(2);
    expect(done.value).toEqual(toolResult('was already done'));
  });

  it('behaviour 2: -32602 on tasks/cancel and on the read after it → TaskNotFoundError from the one classifier', async () => {
    const get = queue([detailed(), rpcError(-32602, 'unknown task')]);
    const { client } = setup((m) =>
      m === 'tools/call' ? created() : m === 'tasks/cancel' ? rpcError(-32602, 'unknown task') : get(),
    );
    const handle = await startTask(client);
    const done = outcome(handle.result());
    await vi.advanceTimersByTimeAsync(1_000);
    const cancelled = outcome(handle.cancel());
    await flush();
    expect(cancelled.error).not.toBeInstanceOf(McpError);
    expect(done.error).toBeInstanceOf(TaskNotFoundError);
    expect((done.error as TaskNotFoundError).cause).toBeInstanceOf(McpError);
  });
});
