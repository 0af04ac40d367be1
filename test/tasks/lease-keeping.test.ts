/**
 * How the client's engine keeps a task's lease in a shared store, the same for every store (the file store's lock
 * files, the Redis store's fenced hash): taken before the first poll, asked again while the store is out of reach
 * (the task is polled by nobody meanwhile, and recorded once leased), renewed while followed, let go of when it
 * passed its `expiresAt` without renewal, and a lease lost is never a reason to cancel the task (another process
 * follows it). A scripted lease table on a memory store stands in for the shared store (vitest fake timers).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryTaskStore, TaskFollowedElsewhereError } from '../../src/index.js';
import { LeaseLostError } from '../../src/redis-store.js';
import type { FollowLease, LeaseAttempt, TaskLeases } from '../../src/store/task-store.js';
import { created, detailed, outcome } from '../helpers/unit-fixtures.js';
import { setup, T0 } from '../helpers/engine-setup.js';

const LEASE_MS = 3_000;

/** A store shared "with other processes": its leases answer as the test says. */
class LeasedStore extends MemoryTaskStore {
  readonly calls: string[] = [];
  acquireFails = 0;
  renewal: 'ok' | 'refused' | 'hangs' = 'ok';
  readonly leases: TaskLeases = {
    leaseMs: LEASE_MS,
    acquire: async (server, taskId): Promise<LeaseAttempt> => {
      this.calls.push(`acquire ${taskId}`);
      if (this.acquireFails-- > 0) throw new Error('store out of reach');
      return { lease: { server, taskId, owner: 'me', expiresAt: Date.now() + LEASE_MS } };
    },
    renew: async (lease: FollowLease): Promise<boolean> => {
      this.calls.push(`renew ${lease.taskId}`);
      if (this.renewal === 'hangs') return new Promise(() => undefined);
      if (this.renewal === 'refused') return false;
      lease.expiresAt = Date.now() + LEASE_MS;
      return true;
    },
    release: async (lease: FollowLease): Promise<void> => void this.calls.push(`release ${lease.taskId}`),
  };
}

describe('the engine keeps a task’s lease the same way for every shared store', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('a task whose lease cannot be taken (store out of reach) is not polled until it is, then recorded', async () => {
    const store = new LeasedStore();
    let down = true; // the store is out of reach: lease and record writes fail
    store.acquireFails = 3;
    const put = store.put.bind(store);
    store.put = async (record) => {
      if (down) throw new Error('store out of reach');
      return put(record);
    };
    const { transport, client, warnings } = setup((m) => (m === 'tools/call' ? created() : detailed()), {
      store,
    });
    const start = await client.startTool('job', {});
    if (start.resultType !== 'task') throw new Error('expected a task');
    await vi.advanceTimersByTimeAsync(1_000); // asked again every eighth of the lease period: at 0, 375 and 750 ms
    expect(transport.of('tasks/get')).toEqual([]); // nobody polls a task not leased
    expect(warnings.filter((w) => w.includes('could not take the lease'))).toHaveLength(3);
    expect(await store.get('t1')).toBeUndefined();
    down = false;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(transport.of('tasks/get').length).toBeGreaterThan(0);
    expect(store.calls.filter((c) => c.startsWith('acquire'))).toHaveLength(4);
    expect((await store.get('t1'))?.status).toBe('working'); // recorded once leased
    await client.close();
    expect(store.calls.at(-1)).toBe('release t1');
  });

  it('renews the lease every third of its period while following', async () => {
    const store = new LeasedStore();
    const { client } = setup((m) => (m === 'tools/call' ? created() : detailed()), { store });
    await client.startTool('job', {});
    await vi.advanceTimersByTimeAsync(LEASE_MS * 2);
    const renewals = store.calls.filter((c) => c === 'renew t1').length;
    expect(renewals).toBeGreaterThanOrEqual(5);
    expect(renewals).toBeLessThanOrEqual(6);
    await client.close();
  });

  it('a lease past its expiry without renewal (renewals hang) is let go: the task is no longer polled here', async () => {
    const store = new LeasedStore();
    store.renewal = 'hangs';
    const { transport, client } = setup((m) => (m === 'tools/call' ? created() : detailed()), { store });
    const start = await client.startTool('job', {});
    if (start.resultType !== 'task') throw new Error('expected a task');
    const result = outcome(start.task.result());
    await vi.advanceTimersByTimeAsync(LEASE_MS + LEASE_MS / 8);
    expect(result.error).toBeInstanceOf(LeaseLostError);
    expect(result.error).toMatchObject({ code: 'LEASE_LOST', reason: 'expired', taskId: 't1' });
    const polls = transport.of('tasks/get').length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(transport.of('tasks/get')).toHaveLength(polls);
    await client.close();
  });

  it('a lease another process took (renewal refused) stops following, and the call does not cancel the task', async () => {
    const store = new LeasedStore();
    const { transport, client } = setup(
      (m) => (m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : detailed()),
      { store },
    );
    const call = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(100);
    store.renewal = 'refused';
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(call.error).toBeInstanceOf(TaskFollowedElsewhereError);
    expect(call.error).toMatchObject({ taskId: 't1' });
    expect(transport.of('tasks/cancel')).toEqual([]); // another process follows it: not ours to cancel
    await client.close();
  });
});
