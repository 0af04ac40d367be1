/**
 * Caller code never breaks the engine: a listener of a TaskHandle or TaskClient event, `onTask` or `onProgress` that
 * throws or returns a rejecting promise is caught by the one guard. About a task that is not terminal it is an
 * abort of that task with the thrown error (carrying `taskId`): `onAbort` applies (one `tasks/cancel` by default) and
 * the call (or `result()`) rejects with it. About a terminal task it is a client `warning`; the outcome stays the
 * server's. Vitest fails the run on any unhandled rejection or uncaught exception, so each test also proves there
 * was none.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError, type InputRequiredEvent, type TaskHandle } from '../../src/index.js';
import type { JsonRpcRequest } from '../../src/protocol/jsonrpc.js';
import type { TransportRequestOptions } from '../../src/transport/transport.js';
import { ScriptedTransport } from '../helpers/scripted-transport.js';
import {
  completed,
  created,
  detailed,
  elicit,
  flush,
  outcome,
  toolResult,
} from '../helpers/unit-fixtures.js';
import { setup, startTask, T0 } from '../helpers/engine-setup.js';

const ASK = { q: elicit('ok?') };
const working = (m: string): Record<string, unknown> =>
  m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : detailed({ status: 'working' });
const asking = (m: string): Record<string, unknown> =>
  m === 'tools/call'
    ? created()
    : m === 'tasks/cancel' || m === 'tasks/update'
      ? {}
      : detailed({ status: 'input_required', inputRequests: ASK });

/** The thrown error itself, carrying the task's id; exactly one tasks/cancel for it. */
function expectAbortedWith(error: unknown, boom: Error, transport: ScriptedTransport, cancels = 1): void {
  expect(error).toBe(boom);
  expect((error as { taskId?: string }).taskId).toBe('t1');
  expect(transport.of('tasks/cancel')).toHaveLength(cancels);
  if (cancels > 0) expect(transport.of('tasks/cancel')[0]!.message.params).toMatchObject({ taskId: 't1' });
}

/** Delivers one progress notification for the request's progress token before its reply. */
class ProgressTransport extends ScriptedTransport {
  override async request(
    message: JsonRpcRequest,
    options: TransportRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const token = (message.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta
      ?.progressToken;
    if (token !== undefined)
      options.onNotification?.({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1 },
      });
    return super.request(message, options);
  }
}

describe('caller code that throws or rejects never breaks the engine', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('1: a throwing client "expiring" listener (fired from a timer): no uncaught exception; the task is aborted (one tasks/cancel), the call rejects with the error carrying taskId', async () => {
    const { transport, client } = setup((m) =>
      m === 'tools/call'
        ? created({ ttlMs: 10_000 })
        : m === 'tasks/cancel'
          ? {}
          : detailed({ status: 'input_required', inputRequests: ASK, ttlMs: 10_000 }),
    );
    const boom = new Error('expiring listener');
    client.on('inputRequired', () => undefined); // someone will answer, just not yet
    client.on('expiring', () => {
      throw boom;
    });
    const call = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(8_500); // 80 % of the TTL: the expiring timer fires
    expect(call.settled).toBe(true);
    expectAbortedWith(call.error, boom, transport);
    await client.close();
  });

  it('2: an async onTask that rejects: the call rejects with its error carrying taskId (no longer resolves), one tasks/cancel', async () => {
    const { transport, client } = setup((m) => (m === 'tasks/get' ? completed() : working(m)));
    const boom = new Error('async onTask');
    const call = outcome(
      client.callTool(
        'job',
        {},
        {
          onTask: async () => {
            await Promise.resolve();
            throw boom;
          },
        },
      ),
    );
    await vi.advanceTimersByTimeAsync(0);
    expectAbortedWith(call.error, boom, transport);
    expect(transport.of('tasks/get')).toHaveLength(0);
    await client.close();
  });

  it('2: an async client "inputRequired" listener that rejects (task): the call rejects with its error carrying taskId, one tasks/cancel', async () => {
    const { transport, client } = setup(asking);
    const boom = new Error('async input listener');
    client.on('inputRequired', async () => {
      throw boom;
    });
    const call = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(1_000);
    expectAbortedWith(call.error, boom, transport);
    expect(transport.of('tasks/update')).toHaveLength(0);
    await client.close();
  });

  it('2: an async "inputRequired" listener that rejects on an inline MRTR round: the call rejects with its error (no task, no taskId) and settles', async () => {
    const { transport, client } = setup(() => ({ resultType: 'input_required', inputRequests: ASK }));
    const boom = new Error('async MRTR listener');
    client.on('inputRequired', async () => {
      throw boom;
    });
    const call = outcome(client.callTool('job', {}));
    await flush();
    expect(call.error).toBe(boom);
    expect((call.error as { taskId?: string }).taskId).toBeUndefined();
    expect(transport.of('tools/call')).toHaveLength(1); // no re-send without answers
    await client.close();
  });

  it('3: a throwing handle "terminal" listener: the server\'s outcome stands (the call resolves), a warning names the task, no tasks/cancel', async () => {
    let polls = 0;
    const { transport, client, warnings } = setup((m) =>
      m === 'tasks/get' && ++polls >= 2 ? completed() : working(m),
    );
    const boom = new Error('terminal listener');
    const call = outcome(
      client.callTool(
        'job',
        {},
        {
          onTask: (h) =>
            h.on('terminal', () => {
              throw boom;
            }),
        },
      ),
    );
    await vi.advanceTimersByTimeAsync(2_000);
    expect(call.value).toEqual(toolResult('done'));
    expect(transport.of('tasks/get')).toHaveLength(2); // polling went on after the first poll
    expect(transport.of('tasks/cancel')).toHaveLength(0);
    expect(
      warnings.some(
        (w) => w.includes('t1') && w.includes("'terminal' listener") && w.includes('terminal listener'),
      ),
    ).toBe(true);
    await client.close();
  });

  it('3: a synchronously throwing client "inputRequired" listener (task): aborted, one tasks/cancel, the call rejects with the error carrying taskId', async () => {
    const { transport, client } = setup(asking);
    const boom = new Error('input listener');
    client.on('inputRequired', () => {
      throw boom;
    });
    const call = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(1_000);
    expectAbortedWith(call.error, boom, transport);
    await client.close();
  });

  it('3: a throwing handle "error" listener on a retried poll failure: the retry is still scheduled, the task is aborted, the call settles', async () => {
    let polls = 0;
    const { transport, client } = setup((m) => {
      if (m === 'tasks/get' && ++polls === 1) throw new HttpError('tasks/get', 502, 'bad gateway');
      return working(m);
    });
    const boom = new Error('error listener');
    const call = outcome(
      client.callTool(
        'job',
        {},
        {
          onTask: (h) =>
            h.on('error', () => {
              throw boom;
            }),
        },
      ),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expectAbortedWith(call.error, boom, transport);
    await client.close();
  });

  it('3: a throwing client "serverViolation" listener: the task it concerns is aborted, one tasks/cancel, the call settles', async () => {
    const { transport, client } = setup((m) =>
      m === 'tasks/get' ? detailed({ status: 'input_required', inputRequests: {} }) : working(m),
    );
    const boom = new Error('violation listener');
    client.on('serverViolation', () => {
      throw boom;
    });
    const call = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(1_000);
    expectAbortedWith(call.error, boom, transport);
    await client.close();
  });

  it('3: with onAbort "detach" nothing is cancelled; the call rejects with the error carrying taskId, the record stays resumable', async () => {
    const { transport, client, store } = setup(asking);
    const boom = new Error('input listener');
    client.on('inputRequired', () => {
      throw boom;
    });
    const call = outcome(client.callTool('job', {}, { onAbort: 'detach' }));
    await vi.advanceTimersByTimeAsync(1_000);
    expectAbortedWith(call.error, boom, transport, 0);
    expect((await store.get('t1', transport.serverKey))?.outcome).toBeUndefined();
    await client.close();
  });

  it('4: a throwing handle "status" listener attached in onTask (first status, emitted at start): aborted like onTask, one tasks/cancel', async () => {
    const { transport, client } = setup(working);
    const boom = new Error('status listener');
    const call = outcome(
      client.callTool(
        'job',
        {},
        {
          onTask: (h) =>
            h.on('status', () => {
              throw boom;
            }),
        },
      ),
    );
    await vi.advanceTimersByTimeAsync(0);
    expectAbortedWith(call.error, boom, transport);
    await client.close();
  });

  it('4: startTool: a throwing "status" listener on a later poll makes result() reject with it (taskId), after one tasks/cancel', async () => {
    let polls = 0;
    const { transport, client } = setup((m) =>
      m === 'tasks/get' ? detailed({ status: 'working', statusMessage: `step ${++polls}` }) : working(m),
    );
    const handle = await startTask(client);
    const boom = new Error('status listener');
    handle.on('status', () => {
      throw boom;
    });
    const result = outcome(handle.result());
    await vi.advanceTimersByTimeAsync(1_000);
    expectAbortedWith(result.error, boom, transport);
    expect(handle.done).toBe(true);
    await client.close();
  });

  it('5: a throwing onProgress on the creation request: the task is not lost; it is aborted (one tasks/cancel) and the call rejects with the error carrying taskId', async () => {
    const { transport, client } = setup(working, {}, ProgressTransport);
    const boom = new Error('onProgress');
    const call = outcome(
      client.callTool(
        'job',
        {},
        {
          onProgress: () => {
            throw boom;
          },
        },
      ),
    );
    await vi.advanceTimersByTimeAsync(0);
    expectAbortedWith(call.error, boom, transport);
    await client.close();
  });

  it("5: an onProgress that rejects on an inline result: the server's result stands, a warning says so", async () => {
    const { client, warnings } = setup(
      () => ({ resultType: 'complete', ...toolResult('inline') }),
      {},
      ProgressTransport,
    );
    const call = outcome(
      client.callTool(
        'job',
        {},
        {
          onProgress: async () => {
            throw new Error('progress rejected');
          },
        },
      ),
    );
    await flush();
    expect(call.value).toMatchObject(toolResult('inline'));
    expect(warnings.some((w) => w.includes("'onProgress'") && w.includes('progress rejected'))).toBe(true);
    await client.close();
  });

  it('8: a throwing "cancelRequested" listener: cancel() still sends tasks/cancel (once) and resolves; result() rejects with the error carrying taskId', async () => {
    const { transport, client } = setup(working);
    const handle = await startTask(client);
    const boom = new Error('cancelRequested listener');
    handle.on('cancelRequested', () => {
      throw boom;
    });
    const result = outcome(handle.result());
    await expect(handle.cancel()).resolves.toBeUndefined();
    expect(handle.cancelRequested).toBe(true);
    await flush();
    expectAbortedWith(result.error, boom, transport);
    await client.close();
  });

  it('8: a throwing "answered" listener: respond() resolves with the key it delivered; then the task is aborted (one tasks/cancel)', async () => {
    const { transport, client } = setup(asking);
    const handle = await startTask(client);
    const boom = new Error('answered listener');
    handle.on('answered', () => {
      throw boom;
    });
    const result = outcome(handle.result());
    await vi.advanceTimersByTimeAsync(1_000); // the question arrives
    await expect(handle.respond({ q: { action: 'accept', content: { ok: true } } })).resolves.toEqual(['q']);
    expect(transport.of('tasks/update')).toHaveLength(1);
    await flush();
    expectAbortedWith(result.error, boom, transport);
    await client.close();
  });

  it('a throwing "warning" listener is dropped (nowhere left to report); the outcome stands', async () => {
    let polls = 0;
    const { client } = setup((m) => (m === 'tasks/get' && ++polls >= 1 ? completed() : working(m)));
    client.on('warning', () => {
      throw new Error('warning listener');
    });
    client.on('warning', async () => {
      throw new Error('async warning listener');
    });
    const call = outcome(
      client.callTool(
        'job',
        {},
        {
          onTask: (h: TaskHandle) =>
            h.on('terminal', () => {
              throw new Error('terminal');
            }),
        },
      ),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expect(call.value).toEqual(toolResult('done'));
    await client.close();
  });

  it('a non-Error thrown by a listener becomes an Error (cause: the value) carrying taskId', async () => {
    const { client } = setup(asking);
    client.on('inputRequired', (_e: InputRequiredEvent) => {
      throw 'plain';
    });
    const call = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(call.error).toBeInstanceOf(Error);
    expect((call.error as Error).cause).toBe('plain');
    expect((call.error as { taskId?: string }).taskId).toBe('t1');
    await client.close();
  });

  it("off(), once() and listeners() see the caller's own function", async () => {
    const { client } = setup(working);
    const handle = await startTask(client);
    const fn = vi.fn();
    handle.on('status', fn);
    expect(handle.listeners('status')).toContain(fn);
    handle.off('status', fn);
    expect(handle.listeners('status')).not.toContain(fn);
    const once = vi.fn();
    client.once('warning', once);
    client.emit('warning', 'a');
    client.emit('warning', 'b');
    expect(once).toHaveBeenCalledTimes(1);
    client.on('notification', fn);
    expect(client.listenerCount('notification')).toBe(1);
    client.removeListener('notification', fn);
    expect(client.listenerCount('notification')).toBe(0);
    await client.close();
  });
});
