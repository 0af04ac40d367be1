/**
 * RedisTaskStore on a real redis-server: the TaskStore contract, records validated on read, and the lease rules
 * (atomic claim, fencing of stale writes, release on the terminal outcome, once-only outcome).
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskRecord } from '../../src/index.js';
import { LeaseLostError, RedisTaskStore } from '../../src/redis-store.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

let redis: RedisServer;
const clients: Array<{ destroy(): void }> = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const c of clients) c.destroy();
  await redis.close();
});

async function store(
  prefix: string,
  options: { workerId?: string; onInvalid?: (id: string, reason: string) => void } = {},
): Promise<RedisTaskStore> {
  const c = createClient({ url: redis.url });
  await c.connect();
  clients.push(c);
  return new RedisTaskStore({ client: c, prefix, leaseMs: 60_000, ...options });
}

const record = (taskId: string, extra: Partial<TaskRecord> = {}): TaskRecord => ({
  version: 1,
  server: 'http://127.0.0.1:1/mcp',
  method: 'tools/call',
  taskId,
  localCreatedAt: 1_000,
  ttlMs: 60_000,
  pollIntervalMs: 0,
  status: 'working',
  answeredKeys: [],
  updatedAt: 1_000,
  ...extra,
});

describe('RedisTaskStore', () => {
  it('keeps the TaskStore contract: put, get, list, delete, prune', async () => {
    const s = await store(`p-${randomUUID()}`);
    await s.put(record('a'));
    await s.put(record('b', { ttlMs: 10 }));
    expect((await s.get('a', 'http://127.0.0.1:1/mcp'))?.taskId).toBe('a');
    expect((await s.get('b'))?.ttlMs).toBe(10);
    expect((await s.list()).map((r) => r.taskId).sort()).toEqual(['a', 'b']);
    expect(await s.prune(5_000)).toBe(1);
    await s.delete('a');
    expect(await s.list()).toEqual([]);
    await expect(s.put({ ...record('c'), status: 'bogus' } as unknown as TaskRecord)).rejects.toThrow();
  });

  it('validates records on read: a corrupt or foreign entry is reported and skipped', async () => {
    const prefix = `p-${randomUUID()}`;
    const invalid: string[] = [];
    const s = await store(prefix, { onInvalid: (_id, reason) => invalid.push(reason) });
    await s.put(record('ok'));
    await s.client.sendCommand(['SADD', `${prefix}:tasks`, 'x1', 'x2']);
    await s.client.sendCommand(['HSET', `${prefix}:task:x1`, 'record', '{not json']);
    await s.client.sendCommand([
      'HSET',
      `${prefix}:task:x2`,
      'record',
      JSON.stringify({ version: 1, taskId: 'x', __proto__: { polluted: true } }),
    ]);
    expect((await s.list()).map((r) => r.taskId)).toEqual(['ok']);
    expect(invalid).toHaveLength(2);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('fencing: once another worker claimed the task, the old holder’s writes are refused', async () => {
    const prefix = `p-${randomUUID()}`;
    const a = await store(prefix, { workerId: 'a' });
    const b = await store(prefix, { workerId: 'b' });
    await a.leases.acquire('http://127.0.0.1:1/mcp', 't'); // a follows the task…
    await a.put(record('t')); // …and records it under its lease
    expect(await b.claim(10)).toEqual([]); // a's lease is live: nothing to claim
    await expect(b.put(record('t', { statusMessage: 'b was here' }))).rejects.toMatchObject({
      code: 'LEASE_LOST',
      reason: 'leased',
    });
    // a's lease ends (simulated by shortening it in Redis); b claims with a higher fence.
    const lease = a.leaseOf('http://127.0.0.1:1/mcp', 't')!;
    await a.client.sendCommand(['HSET', `${prefix}:task:${lease.id}`, 'until', '0', 'due', '0']);
    await a.client.sendCommand(['ZADD', `${prefix}:due`, '0', lease.id]);
    const [claimed] = await b.claim(10);
    expect(claimed?.previousOwner).toBe('a');
    expect(claimed!.lease.fence).toBeGreaterThan(lease.fence);
    expect(await b.claim(10)).toEqual([]); // claimed once
    const stale = a.put(record('t', { statusMessage: 'stale write' }));
    await expect(stale).rejects.toBeInstanceOf(LeaseLostError);
    await expect(stale).rejects.toMatchObject({ reason: 'stale' });
    expect(await a.renew(lease, 100)).toBe(false);
    // b records the outcome once; the lease is released and a conflicting outcome write is refused.
    await b.put(
      record('t', { status: 'completed', outcome: { status: 'completed', result: { content: [] } } }),
    );
    expect(b.leaseOf('http://127.0.0.1:1/mcp', 't')).toBeUndefined();
    await expect(
      b.put(record('t', { status: 'completed', outcome: { status: 'cancelled' } })),
    ).rejects.toMatchObject({ reason: 'final' });
    expect((await a.get('t'))?.outcome?.status).toBe('completed');
  });

  it('the same outcome written twice (engine and fleet) is accepted and recorded once; a different one is refused', async () => {
    const prefix = `p-${randomUUID()}`;
    const a = await store(prefix, { workerId: 'a' });
    const b = await store(prefix, { workerId: 'b' });
    await a.leases.acquire('http://127.0.0.1:1/mcp', 't');
    await a.put(record('t'));
    await a.put(record('t', { status: 'working', outcome: { status: 'unknown' } })); // the engine: task lost
    await b.put(record('t', { status: 'working', outcome: { status: 'unknown' } })); // the fleet: same outcome, no lease
    await a.put(record('t', { status: 'working', outcome: { status: 'unknown' } }));
    await expect(
      b.put(record('t', { status: 'working', outcome: { status: 'expired' } })),
    ).rejects.toMatchObject({ code: 'LEASE_LOST', reason: 'final' });
    const entries = (await a.client.sendCommand(['XRANGE', `${prefix}:events`, '-', '+'])) as Array<
      [string, string[]]
    >;
    expect(entries.filter(([, f]) => f[f.indexOf('type') + 1] === 'outcome')).toHaveLength(1);
    expect((await b.get('t'))?.outcome).toEqual({ status: 'unknown' });
  });

  it('a fenced poll pushes the earliest next poll by ANY worker one interval (plus the send window) ahead', async () => {
    const prefix = `p-${randomUUID()}`;
    const a = await store(prefix, { workerId: 'a' });
    const b = await store(prefix, { workerId: 'b' });
    await a.leases.acquire('http://127.0.0.1:1/mcp', 't');
    await a.put(record('t'));
    const lease = a.leaseOf('http://127.0.0.1:1/mcp', 't')!;
    expect(await a.fencePoll(lease, 5_000)).toBe(true);
    expect(lease.sendBy).toBeGreaterThan(0);
    const key = `${prefix}:task:${lease.id}`;
    const [due, polled] = ((await a.client.sendCommand(['HMGET', key, 'due', 'polled'])) as string[]).map(
      Number,
    );
    expect(due! - polled!).toBe(5_000 + a.sendWindowMs);
    // The lease ends early (a paused holder): a takeover still waits for the poll floor recorded in Redis.
    await a.client.sendCommand(['HSET', key, 'until', '0']);
    await a.client.sendCommand(['ZADD', `${prefix}:due`, '0', lease.id]);
    expect(await b.claim(10)).toEqual([]);
    expect(Number(await a.client.sendCommand(['ZSCORE', `${prefix}:due`, lease.id]))).toBe(due);
    // The old holder cannot fence a poll on a lease that ended, even before anyone claimed it.
    expect(await a.fencePoll(lease, 5_000)).toBe(false);
    expect(a.leaseOf('http://127.0.0.1:1/mcp', 't')).toBeUndefined();
    // Once the floor passed, b claims and fences; a's stale lease stays refused.
    await a.client.sendCommand(['HSET', key, 'due', '0']);
    await a.client.sendCommand(['ZADD', `${prefix}:due`, '0', lease.id]);
    const [claimed] = await b.claim(10);
    expect(await b.fencePoll(claimed!.lease, 5_000)).toBe(true);
    expect(await a.fencePoll(lease, 5_000)).toBe(false);
  });

  it('fair share: a worker claims at most ⌈open tasks ÷ live workers⌉ minus what it holds', async () => {
    const prefix = `p-${randomUUID()}`;
    const a = await store(prefix, { workerId: 'a' });
    const b = await store(prefix, { workerId: 'b' });
    for (const id of ['t1', 't2', 't3', 't4', 't5', 't6']) await a.put(record(id, { pollIntervalMs: 0 }));
    const ids = (await a.client.sendCommand(['SMEMBERS', `${prefix}:tasks`])) as string[];
    for (const id of ids) {
      await a.client.sendCommand(['HDEL', `${prefix}:task:${id}`, 'token', 'owner', 'until']); // given back
      await a.client.sendCommand(['ZADD', `${prefix}:due`, '0', id]);
    }
    expect(await a.claim(100, 6, 60_000)).toEqual([]); // a alone, holding 6 (its share): registers, claims nothing
    expect(await b.claim(100, 0, 60_000)).toHaveLength(3); // two live workers: ⌈6 ÷ 2⌉ = 3
    expect(await b.claim(100, 3, 60_000)).toEqual([]);
    expect(await a.claim(100, 0, 60_000)).toHaveLength(3);
    await a.client.sendCommand(['ZADD', `${prefix}:workers`, '0', 'a']); // a's last round is long ago: not live
    for (const id of ids) await a.client.sendCommand(['HSET', `${prefix}:task:${id}`, 'until', '0']);
    for (const id of ids) await a.client.sendCommand(['ZADD', `${prefix}:due`, '0', id]);
    expect(await b.claim(100, 0, 60_000)).toHaveLength(6); // b alone: every open task
  });

  it('idempotency keys: one claim per key across workers; the loser reads the bound task', async () => {
    const prefix = `p-${randomUUID()}`;
    const a = await store(prefix);
    const b = await store(prefix);
    const [ca, cb] = await Promise.all([
      a.idempotency.claim('srv', 'k', 'a', 5_000),
      b.idempotency.claim('srv', 'k', 'b', 5_000),
    ]);
    const states = [ca.state, cb.state].sort();
    expect(states).toEqual(['claimed', 'pending']);
    const winner = ca.state === 'claimed' ? ca : cb;
    if (winner.state !== 'claimed') throw new Error('unreachable');
    expect(await a.idempotency.bind('srv', 'k', winner.pending, 'task-1', 60_000)).toBe(true);
    expect(await b.idempotency.claim('srv', 'k', 'b', 5_000)).toEqual({ state: 'task', taskId: 'task-1' });
  });
});
