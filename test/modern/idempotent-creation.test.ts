/**
 * Issue 6 on the client side, with a scripted server and fake timers: idempotent creation, the task record, resume.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  MemoryTaskStore,
  NetworkError,
  OutcomeUnknownError,
  TaskClient,
  TaskExpiredError,
  type TaskClientOptions,
  type TaskRecord,
} from '../../src/index.js';
import { IDEMPOTENCY_META_KEY } from '../../src/protocol/constants.js';
import { ScriptedTransport, type Handler } from '../helpers/scripted-transport.js';
import { completed, created, detailed, elicit, rpcError, toolResult } from '../helpers/unit-fixtures.js';
import '../helpers/no-jitter.js';

function setup(handler: Handler, options: Partial<TaskClientOptions> = {}) {
  const transport = new ScriptedTransport(handler);
  const store = new MemoryTaskStore();
  const client = new TaskClient({ transport, store, ...options });
  return { transport, client, store };
}

/** Fails the first `n` tools/call with a network error (the request may have reached the server). */
function lostThenCreated(n: number, tools: unknown[] = []): Handler {
  let calls = 0;
  return (method) => {
    if (method === 'tools/list') return { tools };
    if (method === 'tools/call') {
      if (calls++ < n) throw new NetworkError('tools/call', { cause: new Error('socket hang up') });
      return created();
    }
    if (method === 'tasks/get') return completed();
    return {};
  };
}

describe('idempotent creation', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('re-sends a lost creation with the same idempotency key in _meta and a new JSON-RPC id', async () => {
    const { transport, client } = setup(lostThenCreated(2));
    const call = client.callTool('deploy', { v: 1 }, { idempotencyKey: 'key-1' });
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(call).resolves.toEqual(toolResult('done'));
    const creations = transport.of('tools/call').map((s) => s.message);
    expect(creations).toHaveLength(3);
    expect(new Set(creations.map((m) => m.id)).size).toBe(3);
    for (const m of creations)
      expect((m.params as { _meta: Record<string, unknown> })._meta[IDEMPOTENCY_META_KEY]).toBe('key-1');
    expect(creations.map((m) => (m.params as { arguments: unknown }).arguments)).toEqual([
      { v: 1 },
      { v: 1 },
      { v: 1 },
    ]);
  });

  it('puts the key in a tool argument with idempotencyKeyIn: { argument }', async () => {
    const { transport, client } = setup(lostThenCreated(0), { idempotencyKeyIn: { argument: 'requestId' } });
    const call = client.callTool('deploy', { v: 1 }, { idempotencyKey: 'key-2' });
    await vi.advanceTimersByTimeAsync(5_000);
    await call;
    const params = transport.of('tools/call')[0]?.message.params as {
      arguments: unknown;
      _meta: Record<string, unknown>;
    };
    expect(params.arguments).toEqual({ v: 1, requestId: 'key-2' });
    expect(params._meta[IDEMPOTENCY_META_KEY]).toBeUndefined();
  });

  it('without a key and without hints: OutcomeUnknownError and no re-send', async () => {
    const { transport, client } = setup(
      lostThenCreated(1, [{ name: 'deploy', inputSchema: { type: 'object' } }]),
    );
    const error = await client.callTool('deploy', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).code).toBe('OUTCOME_UNKNOWN');
    expect((error as Error).message).toBe(
      'tools/call: no response arrived; the work may or may not have started on the server',
    );
    expect((error as Error).cause).toBeInstanceOf(NetworkError);
    expect(transport.of('tools/call')).toHaveLength(1);
  });

  it.each([['idempotentHint'], ['readOnlyHint']])(
    'without a key, a tool annotated %s is re-sent (tools/list fetched once)',
    async (hint) => {
      const tools = [{ name: 'deploy', inputSchema: { type: 'object' }, annotations: { [hint]: true } }];
      const { transport, client } = setup(lostThenCreated(1, tools));
      const call = client.callTool('deploy', {});
      await vi.advanceTimersByTimeAsync(10_000);
      await expect(call).resolves.toEqual(toolResult('done'));
      expect(transport.of('tools/call')).toHaveLength(2);
      expect(transport.of('tools/list')).toHaveLength(1);
    },
  );

  it('a JSON-RPC error is a response: never re-sent, surfaced as it is', async () => {
    const { transport, client } = setup((m) => (m === 'tools/call' ? rpcError(-32602, 'unknown tool') : {}));
    await expect(client.callTool('nope', {}, { idempotencyKey: 'k' })).rejects.toMatchObject({
      code: -32602,
    });
    expect(transport.of('tools/call')).toHaveLength(1);
  });

  it('gives up after the retry budget with OutcomeUnknownError', async () => {
    const { transport, client } = setup(lostThenCreated(100), {
      creationRetry: { retries: 2, minTimeoutMs: 10 },
    });
    const call = client.callTool('deploy', {}, { idempotencyKey: 'k' }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await call).toBeInstanceOf(OutcomeUnknownError);
    expect(transport.of('tools/call')).toHaveLength(3);
  });
});

describe('task records and resume', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000 }));
  afterEach(() => vi.useRealTimers());

  it('writes the record before the handle is handed out and keeps it in step', async () => {
    let polls = 0;
    const { client, store } = setup((m) => {
      if (m === 'tools/call') return created({ ttlMs: 60_000, pollIntervalMs: 500 });
      if (m === 'tasks/get')
        return ++polls < 2
          ? detailed({ statusMessage: 'half way', pollIntervalMs: 500 })
          : completed(toolResult('ok'));
      return {};
    });
    let atHandOut: TaskRecord | undefined;
    const call = client.callTool(
      'reindex',
      { documents: 5, token: 's3cret' },
      {
        idempotencyKey: 'k-9',
        onTask: (h) => void store.get(h.taskId).then((r) => (atHandOut = r)),
      },
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(atHandOut).toMatchObject({
      version: 1,
      server: 'scripted://server',
      method: 'tools/call',
      name: 'reindex',
      taskId: 't1',
      idempotencyKey: 'k-9',
      localCreatedAt: 1_000,
      ttlMs: 60_000,
      pollIntervalMs: 500,
      status: 'working',
      answeredKeys: [],
    });
    expect(atHandOut?.params).toEqual({ argumentKeys: ['documents', 'token'] });
    expect(JSON.stringify(atHandOut)).not.toContain('s3cret');
    await vi.advanceTimersByTimeAsync(1_000);
    await call;
    await vi.advanceTimersByTimeAsync(0);
    const final = await store.get('t1');
    expect(final).toMatchObject({
      status: 'completed',
      statusMessage: undefined,
      outcome: { status: 'completed', result: toolResult('ok') },
    });
  });

  it('remembers answered keys across a restart: resume() does not ask them again', async () => {
    const store = new MemoryTaskStore();
    const server: Handler = (m) => {
      if (m === 'tools/call') return created();
      if (m === 'tasks/get')
        return detailed({ status: 'input_required', inputRequests: { q1: elicit('Go?') } });
      return {};
    };
    const first = new TaskClient({ transport: new ScriptedTransport(server), store });
    first.on('inputRequired', (e) => void e.respond({ action: 'accept', content: { ok: true } }));
    void first.callTool('deploy', {}).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.advanceTimersByTimeAsync(0);
    expect((await store.get('t1'))?.answeredKeys).toEqual(['q1']);
    await first.close();

    const second = new TaskClient({ transport: new ScriptedTransport(server), store });
    const asked: string[] = [];
    second.on('inputRequired', (e) => asked.push(e.key));
    const [handle] = await second.resumeAll();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(handle?.taskId).toBe('t1');
    expect(handle?.answeredKeys.has('q1')).toBe(true);
    expect(asked).toEqual([]);
    await second.close();
  });

  it('reports a task whose TTL passed while nobody watched as expired, in result() and in the record', async () => {
    const store = new MemoryTaskStore();
    await store.put({
      version: 1,
      server: 'scripted://server',
      method: 'tools/call',
      taskId: 'gone',
      localCreatedAt: 0,
      ttlMs: 500,
      status: 'working',
      answeredKeys: [],
      updatedAt: 0,
    });
    const client = new TaskClient({
      transport: new ScriptedTransport(() => rpcError(-32602, 'unknown task')),
      store,
    });
    const [handle] = await client.resumeAll();
    const outcome = handle?.result().catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    expect(await outcome).toBeInstanceOf(TaskExpiredError);
    await vi.advanceTimersByTimeAsync(0);
    expect((await store.get('gone'))?.outcome).toEqual({ status: 'expired' });
    expect(await client.resumeAll()).toEqual([]);
  });

  it('returns a stored terminal outcome without asking the server', async () => {
    const store = new MemoryTaskStore();
    await store.put({
      version: 1,
      server: 'scripted://server',
      method: 'tools/call',
      taskId: 'done',
      localCreatedAt: 0,
      ttlMs: null,
      status: 'completed',
      answeredKeys: [],
      updatedAt: 0,
      outcome: { status: 'completed', result: toolResult('kept') },
    });
    const transport = new ScriptedTransport(() => ({}));
    const client = new TaskClient({ transport, store });
    const handle = await client.resume('done');
    await expect(handle.result()).resolves.toEqual(toolResult('kept'));
    expect(transport.sent).toHaveLength(0);
  });

  it('resume without a store is a TypeError naming the option', async () => {
    const client = new TaskClient({ transport: new ScriptedTransport(() => ({})) });
    await expect(client.resume('x')).rejects.toThrow(
      'TaskClient.resume: no store was configured (option "store")',
    );
  });
});
