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

async function store(prefix: string, options: { workerId?: string; onInvalid?: (id: string, reason: string) => void } = {}): Promise<RedisTaskStore> {
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
    await s.client.sendCommand(['HSET', `${prefix}:task:x2`, 'record', JSON.stringify({ version: 1, taskId: 'x', __proto__: { polluted: true } })]);
    expect((await s.list()).map((r) => r.taskId)).toEqual(['ok']);
    expect(invalid).toHaveLength(2);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('fencing: once another worker claimed the task, the old holder’s writes are refused', async () => {
    const prefix = `p-${randomUUID()}`;
    const a = await store(prefix, { workerId: 'a' });
    const b = await store(prefix, { workerId: 'b' });
    await a.put(record('t')); // created leased to a
    expect(await b.claim(10)).toEqual([]); // a's lease is live: nothing to claim
    await expect(b.put(record('t', { statusMessage: 'b was here' }))).rejects.toMatchObject({ code: 'LEASE_LOST', reason: 'leased' });
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
    // b records the outcome once; the lease is released and a second outcome write is refused.
    await b.put(record('t', { status: 'completed', outcome: { status: 'completed', result: { content: [] } } }));
    expect(b.leaseOf('http://127.0.0.1:1/mcp', 't')).toBeUndefined();
    await expect(b.put(record('t', { status: 'completed', outcome: { status: 'cancelled' } }))).rejects.toMatchObject({ reason: 'final' });
    expect((await a.get('t'))?.outcome?.status).toBe('completed');
  });

  it('idempotency keys: one claim per key across workers; the loser reads the bound task', async () => {
    const prefix = `p-${randomUUID()}`;
    const a = await store(prefix);
    const b = await store(prefix);
    const [ca, cb] = await Promise.all([a.idempotency.claim('srv', 'k', 'a', 5_000), b.idempotency.claim('srv', 'k', 'b', 5_000)]);
    const states = [ca.state, cb.state].sort();
    expect(states).toEqual(['claimed', 'pending']);
    const winner = ca.state === 'claimed' ? ca : cb;
    if (winner.state !== 'claimed') throw new Error('unreachable');
    expect(await a.idempotency.bind('srv', 'k', winner.pending, 'task-1', 60_000)).toBe(true);
    expect(await b.idempotency.claim('srv', 'k', 'b', 5_000)).toEqual({ state: 'task', taskId: 'task-1' });
  });
});
