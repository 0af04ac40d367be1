/**
 * A fleet task is never polled by two workers, even when Redis was down at its creation: the creator does not poll a
 * task it could not record; once Redis is back it records the task under its own lease and follows it fenced, so a
 * second worker never claims it while the creator polls.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { StreamableHttpTransport, TaskClient } from '../../src/node.js';
import { RedisTaskStore } from '../../src/redis-store.js';
import { earlyPolls, fleetEnv, until, type FleetEnv } from './fleet-fixtures.js';

let env: FleetEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('a task created while Redis is down', () => {
  it('is polled by one worker at a time: recorded under the creator’s lease once Redis is back, never claimed by another', async () => {
    const POLL = 100;
    env = await fleetEnv({ leaseMs: 600, server: { pollIntervalMs: POLL } });
    // The creator's Redis connection fails fast while Redis is down (no offline queue): its first record write fails.
    const connection = createClient({
      url: env.redis.url,
      disableOfflineQueue: true,
      socket: { reconnectStrategy: (n: number) => Math.min(20 * n, 100) },
    });
    connection.on('error', () => undefined);
    await connection.connect();
    const store = new RedisTaskStore({
      client: connection,
      prefix: env.prefix,
      leaseMs: 600,
      workerId: 'creator',
    });
    const creator = new TaskClient({
      transport: new StreamableHttpTransport(env.server.url),
      store,
    });
    const warnings: string[] = [];
    creator.on('warning', (w) => warnings.push(w));
    const creatorFleet = creator.runFleet({ claim: false });
    creatorFleet.on('error', () => undefined);
    const other = await env.worker('other');
    const otherFleet = other.client.runFleet({ claimIntervalMs: 50 });
    const claimedByOther: string[] = [];
    otherFleet.on('claimed', (c) => claimedByOther.push(c.taskId));
    otherFleet.on('error', () => undefined);

    await env.redis.stop();
    const start = await creator.startTool('sleep_ms', { ms: 3_000 });
    if (start.resultType !== 'task') throw new Error('expected a task');
    const taskId = start.task.taskId;
    expect(warnings.some((w) => w.includes('could not write'))).toBe(true);
    const result = start.task.result().then(
      (r) => ({ ok: true, r }),
      (e: unknown) => ({ ok: false, e }),
    );
    await new Promise((r) => setTimeout(r, 400)); // Redis down: nobody polls the unrecorded task
    const pollsWhileDown = env.server.stats.taskGetTimes(taskId).length;
    await env.redis.restart();
    await until(
      async () => (await env!.server.stats.taskGetTimes(taskId).length) > pollsWhileDown + 3,
      'polls resume',
    );
    const settled = await result;
    await until(
      async () => (await other.store.get(taskId))?.outcome !== undefined,
      'the outcome is recorded',
      10_000,
    );
    await Promise.all([creatorFleet.stop(), otherFleet.stop()]);
    await creator.close();
    connection.destroy();

    expect(pollsWhileDown).toBe(0);
    expect(settled.ok).toBe(true);
    expect(claimedByOther).toEqual([]);
    expect(earlyPolls(env.server.stats.taskGetTimes(taskId), POLL)).toBe(0);
    expect((await other.store.get(taskId))?.outcome?.status).toBe('completed');
  });
});
