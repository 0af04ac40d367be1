/**
 * The Redis store's poll fence (`leases.beforePoll`), which the client's engine runs right before every `tasks/get`
 * of a task it follows on a RedisTaskStore: on a real redis-server, with the store's local clock injected (no timer
 * decides anything here). A poll past the lease's local deadline is refused unfenced; a fenced poll may be written
 * only inside its send window (a fifth of the lease); a fence answered after its window is tried again, three times
 * at most; a fence Redis refuses (another worker claimed the task) sends nothing. Each refusal lets the lease go.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaseLostError, RedisTaskStore, type Lease } from '../../src/redis-store.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

const LEASE_MS = 10_000;
const WINDOW_MS = LEASE_MS / 5;
const SERVER = 'http://127.0.0.1:1/mcp';
let redis: RedisServer;
const connections: Array<{ destroy(): void }> = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const c of connections) c.destroy();
  await redis.close();
});

/** A store whose local clock the test moves. */
async function worker(prefix: string, workerId: string) {
  const connection = createClient({ url: redis.url });
  await connection.connect();
  connections.push(connection);
  const clock = { now: 1_000_000 };
  const store = new RedisTaskStore({
    client: connection,
    prefix,
    leaseMs: LEASE_MS,
    workerId,
    now: () => clock.now,
  });
  return { store, clock };
}

async function held(store: RedisTaskStore, taskId = 't'): Promise<Lease> {
  const taken = await store.leases.acquire(SERVER, taskId);
  if (!('lease' in taken)) throw new Error('expected the lease');
  return taken.lease as Lease;
}

describe('RedisTaskStore poll fence (leases.beforePoll)', () => {
  it('fences with the task’s interval; the write check passes inside the send window and lets go after it', async () => {
    const { store, clock } = await worker(`f-${randomUUID()}`, 'a');
    const lease = await held(store);
    const intervals: number[] = [];
    const fence = store.fencePoll.bind(store);
    store.fencePoll = (l, intervalMs) => (intervals.push(intervalMs), fence(l, intervalMs));
    const check = await store.leases.beforePoll!(lease, 250);
    expect(intervals).toEqual([250]);
    expect(() => check()).not.toThrow(); // written inside the window
    clock.now += WINDOW_MS; // the request waited for a connection past the window
    expect(() => check()).toThrow(expect.objectContaining({ code: 'LEASE_LOST', reason: 'expired' }));
    expect(store.leaseOf(SERVER, 't')).toBeUndefined(); // let go: claimed again once its recorded next poll is due
  });

  it('refuses a poll once the lease passed its local deadline, without fencing it', async () => {
    const { store, clock } = await worker(`f-${randomUUID()}`, 'a');
    const lease = await held(store);
    let fences = 0;
    const fence = store.fencePoll.bind(store);
    store.fencePoll = (l, intervalMs) => (fences++, fence(l, intervalMs));
    clock.now += LEASE_MS * 0.8; // the process was paused: no renewal ran
    await expect(store.leases.beforePoll!(lease, 100)).rejects.toMatchObject({
      code: 'LEASE_LOST',
      reason: 'expired',
      fence: lease.fence,
    });
    expect(fences).toBe(0);
    expect(store.leaseOf(SERVER, 't')).toBeUndefined();
  });

  it('re-fences a poll whose fence answered after its send window, and lets go after three slow answers', async () => {
    const { store, clock } = await worker(`f-${randomUUID()}`, 'a');
    const lease = await held(store);
    let slow = 1;
    let fences = 0;
    const fence = store.fencePoll.bind(store);
    store.fencePoll = async (l, intervalMs) => {
      fences++;
      const ok = await fence(l, intervalMs);
      if (slow-- > 0) clock.now += WINDOW_MS + 10; // Redis answered after the window closed
      return ok;
    };
    await expect(store.leases.beforePoll!(lease, 100)).resolves.toBeTypeOf('function');
    expect(fences).toBe(2); // fenced again, not sent late
    slow = 3;
    fences = 0;
    await expect(store.leases.beforePoll!(lease, 100)).rejects.toMatchObject({ reason: 'expired' });
    expect(fences).toBe(3);
    expect(store.leaseOf(SERVER, 't')).toBeUndefined();
  });

  it('a fence Redis refuses (the task was claimed by another worker) is refused as stale', async () => {
    const prefix = `f-${randomUUID()}`;
    const a = await worker(prefix, 'a');
    const b = await worker(prefix, 'b');
    const lease = await held(a.store);
    await a.store.put({
      version: 1,
      server: SERVER,
      method: 'tools/call',
      taskId: 't',
      localCreatedAt: 0,
      ttlMs: null,
      status: 'working',
      answeredKeys: [],
      updatedAt: 0,
    });
    // a's lease ends in Redis (a paused holder) and b claims the task with a higher fence.
    await a.store.client.sendCommand(['HSET', `${prefix}:task:${lease.id}`, 'until', '0', 'due', '0']);
    await a.store.client.sendCommand(['ZADD', `${prefix}:due`, '0', lease.id]);
    const [claimed] = await b.store.claim(10);
    expect(claimed?.previousOwner).toBe('a');
    const refused = a.store.leases.beforePoll!(lease, 100);
    await expect(refused).rejects.toBeInstanceOf(LeaseLostError);
    await expect(refused).rejects.toMatchObject({ reason: 'stale', fence: lease.fence });
    expect(a.store.leaseOf(SERVER, 't')).toBeUndefined();
    // b's claim is the lease its client's engine takes: acquire hands it over without a second round trip.
    await expect(b.store.leases.acquire(SERVER, 't')).resolves.toEqual({ lease: claimed?.lease });
  });

  it('a holder’s live lease refuses another worker’s acquire, naming the holder', async () => {
    const prefix = `f-${randomUUID()}`;
    const a = await worker(prefix, 'a');
    const b = await worker(prefix, 'b');
    await held(a.store);
    await expect(b.store.leases.acquire(SERVER, 't')).resolves.toMatchObject({ holder: 'a' });
  });
});
