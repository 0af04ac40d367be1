/**
 * Push over loopback HTTP with the reference server: subscriptions/listen is acknowledged with the known, unfinished
 * task ids, each status change arrives as notifications/tasks carrying the DetailedTask a tasks/get would return, and
 * the PushChannel hands them to its target; a server without the Tasks extension declared refuses task ids.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TaskClient } from '../../src/client/task-client.js';
import { McpError } from '../../src/errors.js';
import { META_KEYS, TASKS_EXTENSION_ID } from '../../src/protocol/constants.js';
import type { JsonRpcNotification } from '../../src/protocol/jsonrpc.js';
import type { DetailedTask } from '../../src/protocol/tasks.js';
import { listenOver } from '../../src/tasks/push/listen.js';
import { PushChannel, type PushCadence } from '../../src/tasks/push/push-channel.js';
import { benchCatalog, createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { StreamableHttpTransport } from '../../src/transport/streamable-http.js';
import { createUndiciSender } from '../../src/transport/undici-sender.js';

const meta = (tasks = true) => ({
  [META_KEYS.protocolVersion]: '2026-07-28',
  [META_KEYS.clientCapabilities]: tasks ? { extensions: { [TASKS_EXTENSION_ID]: {} } } : {},
});

let server: TaskServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function startTask(transport: StreamableHttpTransport, ms: number): Promise<string> {
  const created = await transport.request({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'sleep_ms', arguments: { ms }, _meta: meta() },
  });
  expect(created.resultType).toBe('task');
  return created.taskId as string;
}

describe('push over HTTP (reference server)', () => {
  it('a PushChannel gets the acknowledgement and the completed task, exactly the tasks/get shape', async () => {
    server = await createTaskServer({
      inlineBudgetMs: 0,
      pollIntervalMs: 60_000,
      catalog: benchCatalog().catalog,
    });
    const transport = new StreamableHttpTransport(server.url);
    const taskId = await startTask(transport, 150);
    const applied: DetailedTask[] = [];
    const cadence = new Map<string, PushCadence>();
    const errors: unknown[] = [];
    const followed = [taskId, 'unknown-task'];
    let completed!: () => void;
    const done = new Promise<void>((r) => (completed = r));
    const channel = new PushChannel(
      {
        followedTaskIds: () => followed,
        apply: (task) => {
          applied.push(task);
          if (task.status === 'completed') completed();
        },
        setCadence: (id, c) => cadence.set(id, c),
        onError: (e) => errors.push(e),
      },
      listenOver(transport, () => meta()),
      { debounceMs: 0 },
    );
    channel.changed();
    await done;
    expect([...cadence]).toEqual([
      [taskId, 'push'],
      ['unknown-task', 'poll'],
    ]);
    const last = applied.at(-1)!;
    const viaGet = await transport.request({
      jsonrpc: '2.0',
      id: 2,
      method: 'tasks/get',
      params: { taskId, _meta: meta() },
    });
    expect(last).toMatchObject({ taskId, status: 'completed', result: viaGet.result });
    expect(server.stats.counts()['tasks/get']).toBe(1); // only ours, just now: push needed no poll
    expect(errors).toEqual([]);
    channel.close();
    await transport.close();
  });

  it('the stream: ack first with the subscription id, then the current state and each change; closing it ends the subscription', async () => {
    server = await createTaskServer({ inlineBudgetMs: 0, catalog: benchCatalog().catalog });
    const transport = new StreamableHttpTransport(server.url);
    const taskId = await startTask(transport, 1_000);
    const seen: JsonRpcNotification[] = [];
    const stop = new AbortController();
    const listening = transport
      .request(
        {
          jsonrpc: '2.0',
          id: 'sub-7',
          method: 'subscriptions/listen',
          params: { notifications: { taskIds: [taskId] }, _meta: meta() },
        },
        {
          signal: stop.signal,
          onNotification: (n) => {
            seen.push(n);
            if (
              n.method === 'notifications/tasks' &&
              (n.params as { status?: string }).status === 'completed'
            )
              stop.abort(new Error('seen enough'));
          },
        },
      )
      .catch((e: unknown) => e);
    expect(await listening).toEqual(new Error('seen enough'));
    // The acknowledgement, the current state, then the change.
    expect(seen.map((n) => [n.method, (n.params as { status?: string }).status])).toEqual([
      ['notifications/subscriptions/acknowledged', undefined],
      ['notifications/tasks', 'working'],
      ['notifications/tasks', 'completed'],
    ]);
    expect(seen[0]!.params).toEqual({
      _meta: { [META_KEYS.subscriptionId]: 'sub-7' },
      notifications: { taskIds: [taskId] },
    });
    expect(seen[2]!.params).toMatchObject({
      _meta: { [META_KEYS.subscriptionId]: 'sub-7' },
      taskId,
      status: 'completed',
    });
    await expect.poll(() => server!.core.subscriptions.size).toBe(0);
    await transport.close();
  });

  it('the listen stream has a connection of its own: acknowledged while the one pooled connection is held', async () => {
    server = await createTaskServer({ inlineBudgetMs: 60_000, catalog: benchCatalog().catalog });
    const sender = createUndiciSender({ maxConnectionsPerOrigin: 1 }); // the Node default sender, one pooled connection
    const transport = new StreamableHttpTransport(server.url, { sender });
    const hold = new AbortController();
    let heldSettled = false;
    const held = transport
      .request(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'sleep_ms', arguments: { ms: 59_000 }, _meta: meta() },
        },
        { signal: hold.signal },
      )
      .catch((e: unknown) => e)
      .finally(() => (heldSettled = true));
    await expect.poll(() => server!.stats.counts()['tools/call']).toBe(1); // the pooled connection is taken
    const stop = new AbortController();
    let acked!: (params: unknown) => void;
    const ack = new Promise((resolve) => (acked = resolve));
    const listening = transport
      .request(
        {
          jsonrpc: '2.0',
          id: 'sub-1',
          method: 'subscriptions/listen',
          params: { notifications: { taskIds: ['x'] }, _meta: meta() },
        },
        {
          signal: stop.signal,
          onNotification: (n) => n.method === 'notifications/subscriptions/acknowledged' && acked(n.params),
        },
      )
      .catch((e: unknown) => e);
    expect(await ack).toEqual({
      _meta: { [META_KEYS.subscriptionId]: 'sub-1' },
      notifications: { taskIds: [] },
    });
    expect(heldSettled).toBe(false); // the inline call still holds the only pooled connection
    stop.abort(new Error('done'));
    hold.abort(new Error('done'));
    expect(await listening).toEqual(new Error('done'));
    expect(await held).toEqual(new Error('done'));
    await transport.close();
    await sender.close?.(); // the lane closes with the sender
    await expect.poll(() => server!.core.subscriptions.size).toBe(0);
  });

  it('task ids without the Tasks extension declared: -32021 naming the capability', async () => {
    server = await createTaskServer();
    const transport = new StreamableHttpTransport(server.url);
    const error = await transport
      .request({
        jsonrpc: '2.0',
        id: 1,
        method: 'subscriptions/listen',
        params: { notifications: { taskIds: ['x'] }, _meta: meta(false) },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32021);
    expect((error as McpError).data).toEqual({
      requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } },
    });
    await transport.close();
  });

  it('TaskClient with push: a task whose interval is a minute completes from the push alone, with no tasks/get', async () => {
    server = await createTaskServer({
      inlineBudgetMs: 0,
      pollIntervalMs: 60_000,
      catalog: benchCatalog().catalog,
    });
    const client = new TaskClient({
      transport: new StreamableHttpTransport(server.url),
      polling: { mode: 'push' },
    });
    const warnings: string[] = [];
    client.on('warning', (w) => warnings.push(w));
    const [a, b] = await Promise.all([
      client.callTool('sleep_ms', { ms: 100 }),
      client.callTool('sleep_ms', { ms: 200 }),
    ]);
    expect(a.structuredContent).toMatchObject({ ms: 100 });
    expect(b.structuredContent).toMatchObject({ ms: 200 });
    expect(server.stats.counts()['tasks/get'] ?? 0).toBe(0);
    expect(server.stats.counts()['subscriptions/listen']).toBeGreaterThanOrEqual(1);
    expect(warnings).toEqual([]);
    await client.close();
    await expect.poll(() => server!.core.subscriptions.size).toBe(0);
  });

  it('TaskClient with push against a server that refuses listen: plain polling, one refused request', async () => {
    server = await createTaskServer({
      inlineBudgetMs: 0,
      pollIntervalMs: 50,
      catalog: benchCatalog().catalog,
    });
    const transport = new StreamableHttpTransport(server.url);
    const refusing = {
      serverKey: transport.serverKey,
      request: (
        message: Parameters<typeof transport.request>[0],
        options?: Parameters<typeof transport.request>[1],
      ) =>
        message.method === 'subscriptions/listen'
          ? Promise.reject(
              new McpError('subscriptions/listen', { code: -32601, message: 'Method not found' }),
            )
          : transport.request(message, options),
      notify: transport.notify.bind(transport),
      close: () => transport.close(),
    };
    const client = new TaskClient({ transport: refusing, polling: { mode: 'push', minIntervalMs: 10 } });
    const result = await client.callTool('sleep_ms', { ms: 120 });
    expect(result.structuredContent).toMatchObject({ ms: 120 });
    expect(server.stats.counts()['tasks/get']).toBeGreaterThanOrEqual(1);
    await client.close();
  });
});
