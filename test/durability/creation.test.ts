/**
 * Exactly-once creation through a fault proxy that drops the connection after the server received the creation
 * request and before the client got the response.
 */
import { describe, expect, it } from 'vitest';
import {
  MemoryTaskStore,
  NetworkError,
  OutcomeUnknownError,
  StreamableHttpTransport,
  TaskClient,
  type TaskClientOptions,
} from '../../src/index.js';
import { IDEMPOTENCY_META_KEY } from '../../src/protocol/constants.js';
import { createFaultProxy, dropResponse } from '../helpers/fault-proxy.js';
import { createTaskServer } from '../../src/testing/index.js';
import { sendInvoice, textOf, useProxiedServer } from './fixtures.js';
import '../helpers/no-jitter.js';

const env = useProxiedServer(
  { pollIntervalMs: 50, ttlMs: 60_000, inlineBudgetMs: 20, catalog: { tools: [sendInvoice] } },
  { creationRetry: { minTimeoutMs: 50 } },
);
const newClient = (options: Partial<TaskClientOptions> = {}): TaskClient => env.newClient(options);

/** Drops the response of the next `tools/call` of `tool`, once. */
function dropNextCreation(tool: string): void {
  env.proxy.rule({ method: 'tools/call', when: (a) => a.name === tool, action: dropResponse, times: 1 });
}

describe('creation through a connection that drops after the server received it', () => {
  it('with an idempotency key: re-sends with a new id and the same key, one task exists, the call resolves', async () => {
    const client = newClient();
    const before = env.server.core.tasksCreated;
    dropNextCreation('send_invoice');
    const result = await client.callTool(
      'send_invoice',
      { to: 'ada@example.com', ms: 400 },
      { idempotencyKey: 'invoice-2026-001' },
    );

    expect(textOf(result)).toBe('invoice sent to ada@example.com');
    expect(env.server.core.tasksCreated - before).toBe(1);
    expect(env.server.core.idempotency.replays).toBeGreaterThanOrEqual(1);
    const calls = env.proxy.of('tools/call');
    expect(calls.map((a) => a.action)).toEqual(['drop-response', 'forward']);
    expect(calls[0]!.id).not.toEqual(calls[1]!.id);
    const keys = calls.map((a) => (a.params?._meta as Record<string, unknown>)[IDEMPOTENCY_META_KEY]);
    expect(keys).toEqual(['invoice-2026-001', 'invoice-2026-001']);
    expect(calls[0]!.params?.arguments).toEqual(calls[1]!.params?.arguments);
  });

  it('with the key in an argument the server reads (idempotencyKeyIn: { argument })', async () => {
    const argServer = await createTaskServer({
      pollIntervalMs: 50,
      inlineBudgetMs: 20,
      idempotencyArgument: 'request_id',
      catalog: { tools: [sendInvoice] },
    });
    const argProxy = await createFaultProxy(argServer.url);
    const client = new TaskClient({
      transport: new StreamableHttpTransport(argProxy.url),
      idempotencyKeyIn: { argument: 'request_id' },
      creationRetry: { minTimeoutMs: 50 },
    });
    try {
      argProxy.rule({ method: 'tools/call', action: dropResponse, times: 1 });
      const result = await client.callTool(
        'send_invoice',
        { to: 'bob@example.com', ms: 400 },
        { idempotencyKey: 'inv-7' },
      );
      expect(textOf(result)).toBe('invoice sent to bob@example.com');
      expect(argServer.core.tasksCreated).toBe(1);
      const calls = argProxy.of('tools/call');
      expect(calls).toHaveLength(2);
      for (const call of calls) {
        expect(call.params?.arguments).toMatchObject({ request_id: 'inv-7' });
        expect(call.params?._meta).not.toHaveProperty([IDEMPOTENCY_META_KEY]);
      }
    } finally {
      await client.close();
      await argProxy.close();
      await argServer.close();
    }
  });

  it('without a key, for a tool with neither idempotentHint nor readOnlyHint: OutcomeUnknownError, no re-send', async () => {
    const client = newClient();
    const before = env.server.core.tasksCreated;
    dropNextCreation('send_invoice');
    const error = await client
      .callTool('send_invoice', { to: 'eve@example.com', ms: 400 })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).code).toBe('OUTCOME_UNKNOWN');
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(/may or may not have started/);
    expect(env.proxy.of('tools/call')).toHaveLength(1);
    // The work did start: the server made a task the client never heard of.
    expect(env.server.core.tasksCreated - before).toBe(1);
  });

  it('without a key, for a tool annotated idempotentHint: re-sends (the server may run it twice, harmlessly)', async () => {
    const client = newClient();
    await client.listTools();
    const before = env.server.core.tasksCreated;
    dropNextCreation('reindex_corpus');
    const result = await client.callTool('reindex_corpus', { documents: 100 });
    expect(textOf(result)).toBe('Indexed 100 documents');
    expect(env.proxy.of('tools/call').map((a) => a.action)).toEqual(['drop-response', 'forward']);
    expect(env.server.core.tasksCreated - before).toBe(2);
  });

  it('with a key, when the re-send arrives after the task finished: resolves with the result', async () => {
    const client = newClient({ creationRetry: { minTimeoutMs: 300 } });
    const before = env.server.core.tasksCreated;
    dropNextCreation('send_invoice');
    const result = await client.callTool(
      'send_invoice',
      { to: 'late@example.com', ms: 60 },
      { idempotencyKey: 'late-1' },
    );
    expect(textOf(result)).toBe('invoice sent to late@example.com');
    expect(env.server.core.tasksCreated - before).toBe(1);
  });

  it('writes no record for a creation whose outcome is unknown, and one record for the keyed task', async () => {
    const store = new MemoryTaskStore();
    const client = newClient({ store });
    dropNextCreation('send_invoice');
    await expect(client.callTool('send_invoice', { to: 'x@example.com', ms: 200 })).rejects.toBeInstanceOf(
      OutcomeUnknownError,
    );
    expect(await store.list()).toEqual([]);

    dropNextCreation('send_invoice');
    let taskId = '';
    await client.callTool(
      'send_invoice',
      { to: 'y@example.com', ms: 200 },
      { idempotencyKey: 'k-y', onTask: (h) => (taskId = h.taskId) },
    );
    await expect.poll(async () => (await store.list())[0]?.outcome?.status).toBe('completed');
    const records = await store.list();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      taskId,
      idempotencyKey: 'k-y',
      name: 'send_invoice',
      status: 'completed',
      outcome: { status: 'completed' },
    });
  });
});
