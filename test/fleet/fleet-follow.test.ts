/**
 * One follower per fleet task: a worker following many tasks stays quiet (no listener-leak warning), and messages
 * about the store say what happened (behaviour 5, 6 of the engine rebuild).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { StreamableHttpTransport, TaskClient } from '../../src/node.js';
import { RedisTaskStore, StoreUnavailableError } from '../../src/redis-store.js';
import { startRedis } from '../helpers/redis-server.js';
import { fleetEnv, type FleetEnv } from './fleet-fixtures.js';

let env: FleetEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('fleet following', () => {
  it('a worker following more than ten tasks prints no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      env = await fleetEnv({ leaseMs: 2_000, server: { pollIntervalMs: 50, timeScale: 0.5 } });
      const worker = await env.worker('w');
      worker.client.on('inputRequired', () => undefined); // declares elicitation; the fleet answers
      const fleet = worker.client.runFleet({ claimIntervalMs: 50 });
      const asked: string[] = [];
      fleet.on('inputRequired', (q) => {
        asked.push(q.taskId);
        // Answered once every task asked: twelve open update scopes at once.
        if (asked.length === 12) setTimeout(() => void Promise.all(answers.map((a) => a())), 200);
      });
      const answers: Array<() => Promise<boolean>> = [];
      fleet.on(
        'inputRequired',
        (q) => void answers.push(() => q.respond({ action: 'accept', content: { confirm: true } })),
      );
      const starts = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          fleet.startTool('deploy_release', { version: `1.0.${i}` }, { idempotencyKey: `many-${i}` }),
        ),
      );
      expect(starts.every((s) => s.resultType === 'task')).toBe(true);
      await Promise.all(
        starts.map((s) =>
          s.resultType === 'task' ? worker.client.resultOf(s.taskId, { checkIntervalMs: 50 }) : null,
        ),
      );
      await fleet.stop();
      await new Promise((r) => setTimeout(r, 50));
      expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('what the store reports', () => {
  it('resultOf for a task the store never recorded says so, without claiming the server was asked', async () => {
    env = await fleetEnv({ leaseMs: 2_000 });
    const w = await env.worker('w');
    const error = await w.client.resultOf('never-recorded').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TASK_NOT_FOUND', reason: 'not-recorded', taskId: 'never-recorded' });
    expect((error as Error).message).toMatch(
      /^task \S+ has no record in the task store \(the server was not asked\)$/,
    );
    expect(env.server.stats.count('tasks/get')).toBe(0);
  });

  it('StoreUnavailableError carries the Redis error as cause, and its words in the message', async () => {
    const redis = await startRedis();
    const connection = createClient({ url: redis.url, socket: { reconnectStrategy: false } });
    connection.on('error', () => undefined);
    await connection.connect();
    const store = new RedisTaskStore({ client: connection, prefix: 'down' });
    const client = new TaskClient({
      transport: new StreamableHttpTransport('http://127.0.0.1:9/mcp'),
      store,
    });
    await redis.close(); // Redis goes away
    const errors: unknown[] = [];
    const fleet = client.runFleet({ claimIntervalMs: 20 });
    fleet.on('error', (e) => void errors.push(e));
    const got = await store.get('t1', 'srv').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    await fleet.stop().catch(() => undefined);
    await client.close();
    connection.destroy();
    for (const error of [got, ...errors]) {
      expect(error).toBeInstanceOf(StoreUnavailableError);
      const cause = (error as StoreUnavailableError).cause as Error;
      expect(cause).toBeInstanceOf(Error);
      expect(cause.message).not.toBe('');
      expect((error as Error).message).toBe(
        `Redis ${(error as StoreUnavailableError).command} failed: ${cause.message}`,
      );
    }
    expect(errors.length).toBeGreaterThan(0);
  });
});
