/**
 * The caller's code that learns of a new task (`onTask`, the client's `'task'` listeners) runs after the task is
 * followed: when it throws, the call acts as if aborted with the thrown error (`onAbort` applies) and rejects with
 * it, carrying `taskId` — the task is never orphaned and the error never lost.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CancelDeliveryError, HttpError, TaskDetachedError, type TaskHandle } from '../../src/index.js';
import { AbortableTransport, created, deferred, detailed, flush, outcome } from '../helpers/unit-fixtures.js';
import { setup, T0 } from '../helpers/engine-setup.js';

const server = (m: string): Record<string, unknown> =>
  m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : detailed({ status: 'working' });

describe('a throwing onTask or task listener is an abort of the call, never an orphan', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('onTask throws (default onAbort "cancel"): one tasks/cancel; the call rejects with the thrown error carrying taskId', async () => {
    const { transport, client, store } = setup(server);
    const boom = new Error('onTask failed');
    const call = outcome(
      client.callTool(
        'job',
        {},
        {
          onTask: () => {
            throw boom;
          },
        },
      ),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(call.error).toBe(boom);
    expect((call.error as { taskId?: string }).taskId).toBe('t1');
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    expect(transport.of('tasks/cancel')[0]!.message.params).toMatchObject({ taskId: 't1' });
    expect((await store.get('t1', transport.serverKey))?.cancelRequested).toBe(true);
    await client.close();
  });

  it('a client "task" listener throws: same, and onTask is not called after it', async () => {
    const { transport, client } = setup(server);
    const boom = new TypeError('listener failed');
    client.on('task', () => {
      throw boom;
    });
    const onTask = vi.fn();
    const call = outcome(client.callTool('job', {}, { onTask }));
    await vi.advanceTimersByTimeAsync(0);
    expect(call.error).toBe(boom);
    expect((call.error as { taskId?: string }).taskId).toBe('t1');
    expect(onTask).not.toHaveBeenCalled();
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    await client.close();
  });

  it('onAbort "detach": nothing cancelled, the task keeps being followed (and recorded); the call rejects with the thrown error carrying taskId', async () => {
    const { transport, client, store } = setup(server);
    let handle: TaskHandle | undefined;
    const call = outcome(
      client.startTool(
        'job',
        {},
        {
          onAbort: 'detach',
          onTask: (h) => {
            handle = h as TaskHandle;
            throw new Error('nope');
          },
        },
      ),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect((call.error as Error).message).toBe('nope');
    expect((call.error as { taskId?: string }).taskId).toBe('t1');
    expect(transport.of('tasks/cancel')).toHaveLength(0);
    expect(handle?.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(transport.of('tasks/get')).toHaveLength(1); // followed, not orphaned
    expect(await store.get('t1', transport.serverKey)).toBeDefined();
    await client.close();
  });

  it('onAbort "detach" and a frozen thrown error (it cannot carry taskId): the call rejects with TaskDetachedError naming the task, cause the error', async () => {
    const { transport, client } = setup(server);
    const frozen = Object.freeze(new Error('frozen'));
    const warnings: string[] = [];
    client.on('warning', (w) => warnings.push(w));
    const call = outcome(
      client.callTool(
        'job',
        {},
        {
          onAbort: 'detach',
          onTask: () => {
            throw frozen;
          },
        },
      ),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(call.error).toBeInstanceOf(TaskDetachedError);
    expect(call.error).toMatchObject({ code: 'TASK_DETACHED', taskId: 't1', cause: frozen });
    expect(transport.of('tasks/cancel')).toHaveLength(0);
    expect(warnings).toEqual([]);
    await client.close();
  });

  it('a thrown non-object is wrapped in an Error (cause: the value) that carries taskId', async () => {
    const { client } = setup(server);
    const call = outcome(
      client.callTool(
        'job',
        {},
        {
          onTask: () => {
            throw 'plain string';
          },
        },
      ),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(call.error).toBeInstanceOf(Error);
    expect((call.error as Error).cause).toBe('plain string');
    expect((call.error as { taskId?: string }).taskId).toBe('t1');
    await client.close();
  });

  it('the cancel cannot be delivered: CancelDeliveryError (taskId, abortReason = the thrown error)', async () => {
    const { client } = setup((m) => {
      if (m === 'tasks/cancel') throw new HttpError('tasks/cancel', 403, 'forbidden');
      return server(m);
    });
    const boom = new Error('onTask failed');
    const call = outcome(
      client.callTool(
        'job',
        {},
        {
          onTask: () => {
            throw boom;
          },
        },
      ),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(call.error).toBeInstanceOf(CancelDeliveryError);
    expect((call.error as CancelDeliveryError).taskId).toBe('t1');
    expect((call.error as CancelDeliveryError).abortReason).toBe(boom);
    await client.close();
  });

  it('onTask that is not a function: TypeError before anything is sent', async () => {
    const { transport, client } = setup(server);
    const shown: Array<[unknown, string]> = [
      ['yes', '"yes"'],
      [42, '42'],
      [null, 'null'],
      [{}, 'an object with keys []'],
    ];
    for (const [bad, got] of shown) {
      await expect(client.callTool('job', {}, { onTask: bad } as never)).rejects.toThrow(
        new TypeError(`TaskClient tools/call: option "onTask" must be a function; got ${got}`),
      );
      await expect(client.startTool('job', {}, { onTask: bad } as never)).rejects.toThrow(TypeError);
    }
    expect(transport.sent).toHaveLength(0);
    await client.close();
  });

  it('onAbort other than cancel or detach (a misspelling such as "Cancel"): TypeError before anything is sent', async () => {
    const { transport, client } = setup(server);
    await expect(client.callTool('job', {}, { onAbort: 'Cancel' } as never)).rejects.toThrow(
      new TypeError(`TaskClient tools/call: option "onAbort" must be 'cancel' or 'detach'; got "Cancel"`),
    );
    await expect(client.startTool('job', {}, { onAbort: 1 } as never)).rejects.toThrow(
      new TypeError(`TaskClient tools/call: option "onAbort" must be 'cancel' or 'detach'; got 1`),
    );
    expect(transport.sent).toHaveLength(0);
    await client.close();
  });

  it('onTask still sees the first status event (it runs before the handle starts) and runs before the first poll', async () => {
    const { transport, client } = setup(server);
    const statuses: string[] = [];
    let polledBefore = -1;
    await client.startTool(
      'job',
      {},
      {
        onTask: (h) => {
          polledBefore = transport.of('tasks/get').length;
          h.on('status', (t) => statuses.push(t.status));
        },
      },
    );
    expect(polledBefore).toBe(0);
    expect(statuses).toEqual(['working']);
    await client.close();
  });

  it('onTask throws after the caller aborted during the creation: the call rejects with the abort reason (taskId), the thrown error is a warning, one tasks/cancel', async () => {
    const gate = deferred<Record<string, unknown>>();
    const { transport, client, warnings } = setup(
      (m) => (m === 'tools/call' ? gate.promise : server(m)),
      {},
      AbortableTransport,
    );
    const controller = new AbortController();
    const reason = new Error('user gave up');
    const call = outcome(
      client.callTool(
        'job',
        {},
        {
          signal: controller.signal,
          onTask: () => {
            throw new Error('late onTask');
          },
        },
      ),
    );
    await flush();
    controller.abort(reason);
    gate.resolve(created());
    await vi.advanceTimersByTimeAsync(100);
    expect(call.error).toBe(reason);
    expect((call.error as { taskId?: string }).taskId).toBe('t1');
    expect(warnings.some((w) => w.includes('late onTask') && w.includes('t1'))).toBe(true);
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    await client.close();
  });
});
