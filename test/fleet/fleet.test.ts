/**
 * A fleet of workers in one process on a real redis-server and the reference server over loopback HTTP: lease
 * exclusivity under contention, idempotent creation across workers, a question answered by a worker that does not
 * hold the lease, and resultOf. Counts are taken on the server side (request stats) and in Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CallToolResult } from '../../src/index.js';
import { earlyPolls, fleetEnv, outcomeCounts, until, type FleetEnv } from './fleet-fixtures.js';

let env: FleetEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('fleet on Redis', () => {
  it('lease exclusivity: 4 workers contend for 40 tasks and no task is polled by two workers in one interval', async () => {
    const POLL = 100;
    env = await fleetEnv({ leaseMs: 3_000, server: { pollIntervalMs: POLL } });
    const creator = await env.worker('creator');
    const creatorFleet = creator.client.runFleet({ claim: false });
    const starts = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        creatorFleet.startTool('sleep_ms', { ms: 4_000 + 10 * i }, { idempotencyKey: `contend-${i}` }),
      ),
    );
    const ids = starts.map((s) => (s.resultType === 'task' ? s.taskId : ''));
    await creatorFleet.stop(); // releases every lease: the four workers race for all of them
    const open = new Set((await creator.store.list()).filter((r) => !r.outcome).map((r) => r.taskId));
    expect(open.size).toBeGreaterThan(0);
    const workers = await Promise.all([1, 2, 3, 4].map((n) => env!.worker(`w${n}`)));
    const claimedBy = new Map<string, string[]>();
    const fleets = workers.map((w) => {
      const fleet = w.client.runFleet({ claimIntervalMs: 50, maxTasks: 10 });
      fleet.on('claimed', (c) => claimedBy.set(c.taskId, [...(claimedBy.get(c.taskId) ?? []), w.id]));
      return fleet;
    });
    const results = await Promise.all(
      ids.map((id) => workers[0]!.client.resultOf<CallToolResult>(id, { checkIntervalMs: 50 })),
    );
    expect(results.every((r) => (r.structuredContent as { ms: number }).ms >= 4_000)).toBe(true);
    await Promise.all(fleets.map((f) => f.stop()));

    for (const id of ids) {
      expect(earlyPolls(env.server.stats.taskGetTimes(id), POLL), `task ${id}`).toBe(0);
      // Claimed once if still open at the stop (nobody lost or stole a lease), never if it had already finished.
      expect(claimedBy.get(id)?.length ?? 0, `task ${id}`).toBe(open.has(id) ? 1 : 0);
    }
    expect(new Set([...claimedBy.values()].flat()).size).toBeGreaterThan(1); // the work was shared
    const outcomes = await outcomeCounts(env.redis.url, env.prefix);
    expect(ids.map((id) => outcomes.get(id))).toEqual(ids.map(() => 1));
    expect(env.server.stats.count('tools/call')).toBe(40);
  });

  it('idempotent creation: two workers racing on one key create one task on the server', async () => {
    env = await fleetEnv({ leaseMs: 2_000, server: { pollIntervalMs: 50 } });
    const [a, b] = await Promise.all([env.worker('a'), env.worker('b')]);
    const fa = a.client.runFleet({ claimIntervalMs: 50 });
    const fb = b.client.runFleet({ claimIntervalMs: 50 });
    const [sa, sb] = await Promise.all([
      fa.startTool('sleep_ms', { ms: 200 }, { idempotencyKey: 'order-42' }),
      fb.startTool('sleep_ms', { ms: 200 }, { idempotencyKey: 'order-42' }),
    ]);
    if (sa.resultType !== 'task' || sb.resultType !== 'task') throw new Error('expected tasks');
    expect(sa.taskId).toBe(sb.taskId);
    expect([sa.created, sb.created].sort()).toEqual([false, true]);
    expect(env.server.stats.count('tools/call')).toBe(1);
    const [ra, rb] = await Promise.all([
      a.client.resultOf<CallToolResult>(sa.taskId),
      b.client.resultOf<CallToolResult>(sb.taskId),
    ]);
    expect(ra).toEqual(rb);
    // A re-send after both finished still finds the task.
    const again = await fb.startTool('sleep_ms', { ms: 200 }, { idempotencyKey: 'order-42' });
    expect(again).toEqual({ resultType: 'task', taskId: sa.taskId, created: false });
    expect(env.server.stats.count('tools/call')).toBe(1);
  });

  it('a question answered on a worker that does not hold the lease is sent once by the holder', async () => {
    env = await fleetEnv({ leaseMs: 2_000, server: { pollIntervalMs: 50, timeScale: 0.5 } });
    const holder = await env.worker('holder');
    const ui = await env.worker('ui');
    holder.client.on('inputRequired', () => undefined); // declares elicitation; the holder never answers itself
    const holderFleet = holder.client.runFleet({ claimIntervalMs: 50 });
    const uiFleet = ui.client.runFleet({ claim: false });
    const seenByHolder: string[] = [];
    holderFleet.on('inputRequired', (q) => seenByHolder.push(q.key));
    const answered: boolean[] = [];
    uiFleet.on('inputRequired', (q) => {
      void q.respond({ action: 'accept', content: { confirm: true } }).then((first) => answered.push(first));
      void q.respond({ action: 'decline' }).then((first) => answered.push(first)); // a second answer loses
    });
    const start = await holderFleet.startTool(
      'deploy_release',
      { version: '9.9.9' },
      { idempotencyKey: 'deploy-9' },
    );
    if (start.resultType !== 'task') throw new Error('expected a task');
    const result = await ui.client.resultOf<CallToolResult>(start.taskId, { checkIntervalMs: 50 });
    expect(result.content).toEqual([{ type: 'text', text: 'deployed 9.9.9' }]);
    expect(answered.sort()).toEqual([false, true]);
    expect(seenByHolder).toEqual(['confirm']);
    const updates = env.server.stats.taskUpdates(start.taskId);
    expect(updates).toHaveLength(1);
    expect(updates[0]?.inputResponses).toEqual({ confirm: { action: 'accept', content: { confirm: true } } });
    const record = await ui.store.get(start.taskId);
    expect(record?.answeredKeys).toEqual(['confirm']);
    expect(record?.outcome?.status).toBe('completed');
  });

  it('a task lost before its takeover: the engine and the fleet both write the same outcome, recorded once, no error', async () => {
    env = await fleetEnv({ leaseMs: 2_000, server: { pollIntervalMs: 100, ttlMs: 1_000 } });
    const creator = await env.worker('creator');
    const creatorFleet = creator.client.runFleet({ claim: false });
    const start = await creatorFleet.startTool('sleep_ms', { ms: 60_000 }, { idempotencyKey: 'lost-1' });
    if (start.resultType !== 'task') throw new Error('expected a task');
    const createdAt = Date.now();
    await creatorFleet.stop(); // given back: the next worker claims it after its TTL ran out on the server
    await until(() => Date.now() > createdAt + 1_500, 'the task outlived its TTL'); // a precondition, not a tolerance
    const w = await env.worker('w');
    const fleet = w.client.runFleet({ claimIntervalMs: 50 });
    const errors: unknown[] = [];
    fleet.on('error', (e) => errors.push(e));
    await until(
      async () => (await w.store.get(start.taskId))?.outcome !== undefined,
      'the lost task recorded',
      60_000,
    );
    await fleet.stop();
    expect((await w.store.get(start.taskId))?.outcome?.status).toMatch(/^(expired|unknown)$/);
    expect((await outcomeCounts(env.redis.url, env.prefix)).get(start.taskId)).toBe(1);
    expect(errors).toEqual([]);
  });

  it('resultOf rejects for a task the store does not know', async () => {
    env = await fleetEnv({ leaseMs: 2_000 });
    const w = await env.worker('w');
    await expect(w.client.resultOf('no-such-task')).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
  });

  it('runFleet needs a store with leases', async () => {
    env = await fleetEnv({ leaseMs: 2_000 });
    const { TaskClient, MemoryTaskStore, StreamableHttpTransport } = await import('../../src/index.js');
    const plain = new TaskClient({
      transport: new StreamableHttpTransport(env.server.url),
      store: new MemoryTaskStore(),
    });
    expect(() => plain.runFleet()).toThrow(/RedisTaskStore/);
    await plain.close();
  });
});
