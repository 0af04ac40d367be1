/**
 * `client.resultOf(taskId, { signal })` from a fleet's shared store, twelve at once on one caller's signal: each wait
 * follows that signal through one listener of ours, so Node's MaxListenersExceededWarning (past ten) never fires; the
 * abort ends every wait with its reason. Real redis-server, real HTTP (nothing is sent: the store answers).
 * CLIENT-REQUIREMENTS 1.3.
 */
import { getEventListeners } from 'node:events';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamableHttpTransport, TaskClient } from '../../src/node.js';
import { RedisTaskStore } from '../../src/redis-store.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { ioTurn, startHostile, until, type HostileServer } from './hostile3-server.js';
import { settledBox } from './hostile3-harness.js';

let redis: RedisServer | undefined;
let hostile: HostileServer | undefined;
let cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
  await hostile?.close();
  await redis?.close();
  redis = hostile = undefined;
});

describe('hostile3: resultOf on one shared signal', () => {
  it('12 waits: no MaxListenersExceededWarning, at most one listener, every wait rejects with the reason', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    cleanup.push(() => process.off('warning', onWarning));
    redis = await startRedis({ persistence: false });
    hostile = await startHostile();
    const connection = createClient({ url: redis.url });
    connection.on('error', () => undefined);
    await connection.connect();
    cleanup.push(() => connection.destroy());
    const store = new RedisTaskStore({
      client: connection,
      prefix: 'hostile3',
      leaseMs: 60_000,
      workerId: 'w',
    });
    const client = new TaskClient({
      transport: new StreamableHttpTransport(hostile.url),
      store,
      era: 'modern',
    });
    cleanup.push(() => client.close());
    const now = Date.now();
    for (let i = 0; i < 12; i++)
      await store.put({
        version: 1,
        server: new StreamableHttpTransport(hostile.url).serverKey,
        method: 'tools/call',
        name: 'deploy',
        taskId: `task-${i}`,
        localCreatedAt: now,
        ttlMs: null,
        status: 'working',
        answeredKeys: [],
        updatedAt: now,
      });
    const controller = new AbortController();
    const waits = Array.from({ length: 12 }, (_, i) =>
      settledBox(client.resultOf(`task-${i}`, { signal: controller.signal, checkIntervalMs: 60_000 })),
    );
    await until(() => getEventListeners(controller.signal, 'abort').length > 0, 'waiting');
    for (let i = 0; i < 20; i++) await ioTurn();
    expect(warnings).toEqual([]);
    expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
    const reason = new Error('stop');
    controller.abort(reason);
    await until(() => waits.every((w) => w.settled), 'settled');
    for (const wait of waits) expect(wait.error).toBe(reason);
    expect(hostile.log).toEqual([]);
  });
});
