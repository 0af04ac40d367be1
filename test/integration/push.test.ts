/**
 * Push over loopback HTTP with the reference server: subscriptions/listen is acknowledged with the known, unfinished
 * task ids, each status change arrives as notifications/tasks carrying the DetailedTask a tasks/get would return, and
 * the PushChannel hands them to its target; a server without the Tasks extension declared refuses task ids.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpError } from '../../src/errors.js';
import { META_KEYS, TASKS_EXTENSION_ID } from '../../src/protocol/constants.js';
import type { JsonRpcNotification } from '../../src/protocol/jsonrpc.js';
import type { DetailedTask } from '../../src/protocol/tasks.js';
import { listenOver } from '../../src/tasks/push/listen.js';
import { PushChannel, type PushCadence } from '../../src/tasks/push/push-channel.js';
import { benchCatalog, createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { StreamableHttpTransport } from '../../src/transport/streamable-http.js';

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
  const created = await transport.request({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'sleep_ms', arguments: { ms }, _meta: meta() } });
  expect(created.resultType).toBe('task');
  return created.taskId as string;
}

describe('push over HTTP (reference server)', () => {
  it('a PushChannel gets the acknowledgement and the completed task, exactly the tasks/get shape', async () => {
    server = await createTaskServer({ inlineBudgetMs: 0, pollIntervalMs: 60_000, catalog: benchCatalog().catalog });
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
    expect([...cadence]).toEqual([[taskId, 'push'], ['unknown-task', 'poll']]);
    const last = applied.at(-1)!;
    const viaGet = await transport.request({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId, _meta: meta() } });
    expect(last).toMatchObject({ taskId, status: 'completed', result: viaGet.result });
    expect(server.stats.counts()['tasks/get']).toBe(1); // only ours, just now: push needed no poll
    expect(errors).toEqual([]);
    channel.close();
    await transport.close();
  });

  it('the stream: ack first with the subscription id, then notifications/tasks; closing it ends the subscription', async () => {
    server = await createTaskServer({ inlineBudgetMs: 0, catalog: benchCatalog().catalog });
    const transport = new StreamableHttpTransport(server.url);
    const taskId = await startTask(transport, 100);
    const seen: JsonRpcNotification[] = [];
    const stop = new AbortController();
    const listening = transport
      .request({ jsonrpc: '2.0', id: 'sub-7', method: 'subscriptions/listen', params: { notifications: { taskIds: [taskId] }, _meta: meta() } }, {
        signal: stop.signal,
        onNotification: (n) => {
          seen.push(n);
          if (n.method === 'notifications/tasks') stop.abort(new Error('seen enough'));
        },
      })
      .catch((e: unknown) => e);
    expect(await listening).toEqual(new Error('seen enough'));
    expect(seen.map((n) => n.method)).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tasks']);
    expect(seen[0]!.params).toEqual({ _meta: { [META_KEYS.subscriptionId]: 'sub-7' }, notifications: { taskIds: [taskId] } });
    expect(seen[1]!.params).toMatchObject({ _meta: { [META_KEYS.subscriptionId]: 'sub-7' }, taskId, status: 'completed' });
    await expect.poll(() => server!.core.subscriptions.size).toBe(0);
    await transport.close();
  });

  it('task ids without the Tasks extension declared: -32021 naming the capability', async () => {
    server = await createTaskServer();
    const transport = new StreamableHttpTransport(server.url);
    const error = await transport
      .request({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications: { taskIds: ['x'] }, _meta: meta(false) } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32021);
    expect((error as McpError).data).toEqual({ requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } });
    await transport.close();
  });
});
