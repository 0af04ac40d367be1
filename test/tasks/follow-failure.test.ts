/**
 * Never orphan work: a unified call whose wait for its task ended without the server's word (polls failed past the
 * retry budget, an invalid tasks/get answer) names the task and cancels or keeps it per `onAbort`
 * (ext-tasks § Task Cancellation).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError, InvalidResponseError, TaskFailedError } from '../../src/index.js';
import { created, detailed, outcome } from '../helpers/unit-fixtures.js';
import { setup, T0 } from '../helpers/engine-setup.js';

const busy = (): never => {
  throw new HttpError('tasks/get', 503, 'busy');
};

describe("a unified call whose task wait fails without the server's word", () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('poll retries exhausted (503): rejects with taskId; the task is not cancelled but stays recorded and resumable', async () => {
    const { transport, client, store } = setup((m) =>
      m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : busy(),
    );
    const done = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(120_000);
    expect(done.error).toBeInstanceOf(HttpError);
    expect((done.error as { taskId?: string }).taskId).toBe('t1');
    expect(transport.of('tasks/cancel')).toHaveLength(0);
    const record = await store.get('t1');
    expect(record?.outcome).toBeUndefined();
    await client.close();
  });

  it('poll retries exhausted without a store: a warning names the task', async () => {
    const { client, warnings } = setup((m) => (m === 'tools/call' ? created() : busy()), {
      store: undefined,
    });
    const done = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(120_000);
    expect((done.error as { taskId?: string }).taskId).toBe('t1');
    expect(warnings.some((w) => w.includes('t1') && w.includes('may still be running'))).toBe(true);
    await client.close();
  });

  it('invalid tasks/get ("completed" without result), onAbort default: one tasks/cancel, record keeps cancelRequested and no outcome', async () => {
    const { transport, client, store } = setup((m) =>
      m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : detailed({ status: 'completed' }),
    );
    const done = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(10_000);
    expect((done.error as InvalidResponseError).taskId).toBe('t1');
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    const record = await store.get('t1');
    expect(record?.outcome).toBeUndefined();
    expect(record?.cancelRequested).toBe(true);
    await client.close();
  });

  it('invalid tasks/get ("completed" without result): InvalidResponseError carrying taskId; onAbort "detach" sends no tasks/cancel and keeps the record', async () => {
    const { transport, client, store } = setup((m) =>
      m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : detailed({ status: 'completed' }),
    );
    const done = outcome(client.callTool('job', {}, { onAbort: 'detach' }));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(done.error).toBeInstanceOf(InvalidResponseError);
    expect((done.error as InvalidResponseError).taskId).toBe('t1');
    expect(transport.of('tasks/cancel')).toHaveLength(0);
    const record = await store.get('t1');
    expect(record?.outcome).toBeUndefined();
    await client.close();
  });

  it('a wrong task in the tasks/get answer: InvalidResponseError carrying taskId and one tasks/cancel', async () => {
    const { transport, client } = setup((m) =>
      m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : detailed({ taskId: 'other' }),
    );
    const done = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(done.error).toBeInstanceOf(InvalidResponseError);
    expect((done.error as InvalidResponseError).taskId).toBe('t1');
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    await client.close();
  });

  it('a server-reported outcome ("failed") sends no tasks/cancel', async () => {
    const { transport, client } = setup((m) =>
      m === 'tools/call'
        ? created()
        : m === 'tasks/cancel'
          ? {}
          : detailed({ status: 'failed', error: { code: -32000, message: 'boom' } }),
    );
    const done = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(done.error).toBeInstanceOf(TaskFailedError);
    expect(transport.of('tasks/cancel')).toHaveLength(0);
    await client.close();
  });
});
