/**
 * What is left to the fleet engine once the client's engine follows every task through the store's leases: claiming
 * (the fair share), handing claims to the client, reporting a claim whose lease moved on as `leaseLost`, and giving
 * every lease back on stop(). A scripted client and store stand in for TaskClient and RedisTaskStore (vitest fake
 * timers); the lease timing itself (fenced polls, renewals, local deadlines) is the engine's and the store's, tested
 * in test/store/redis-leases.test.ts and test/tasks/lease-keeping.test.ts.
 */
import { EventEmitter } from 'eventemitter3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FleetClient } from '../../src/fleet/fleet-client.js';
import { FleetRunner } from '../../src/fleet/fleet-runner.js';
import type { TaskRecord } from '../../src/index.js';
import { LeaseLostError, type ClaimedTask, type Lease, type RedisTaskStore } from '../../src/redis-store.js';
import type { TaskHandle } from '../../src/tasks/task-handle.js';

const LEASE_MS = 1_000;
const SERVER = 'http://s/mcp';

class ScriptedTask extends EventEmitter {
  done = false;
  abandoned: unknown;
  readonly task = { taskId: 't1', status: 'working', ttlMs: null };
  readonly answeredKeys = new Set<string>();
  #reject!: (e: unknown) => void;
  readonly #result = new Promise<unknown>((_, reject) => (this.#reject = reject));
  constructor(readonly taskId: string) {
    super();
    this.#result.catch(() => undefined);
  }
  result(): Promise<unknown> {
    return this.#result;
  }
  stopFollowing(error: unknown): void {
    this.done = true;
    this.abandoned = error;
    this.#reject(error);
  }
}

function record(taskId: string): TaskRecord {
  return {
    version: 1,
    server: SERVER,
    method: 'tools/call',
    taskId,
    localCreatedAt: 0,
    ttlMs: null,
    status: 'working',
    answeredKeys: [],
    updatedAt: 0,
  };
}

function scripted(attach?: (taskId: string) => Promise<ScriptedTask>) {
  const leases = new Map<string, Lease>();
  const released: string[] = [];
  const claims: Array<{ limit: number; held: number; liveMs: number }> = [];
  let pending: ClaimedTask[] = [
    {
      lease: {
        id: 'i1',
        server: SERVER,
        taskId: 't1',
        owner: 'w',
        token: 'x',
        fence: 7,
        expiresAt: LEASE_MS,
      },
      record: record('t1'),
    },
  ];
  const store = {
    leaseMs: LEASE_MS,
    workerId: 'w',
    claim: async (limit: number, held: number, liveMs: number) => {
      claims.push({ limit, held, liveMs });
      const out = pending;
      pending = [];
      for (const c of out) leases.set(c.lease.taskId, c.lease);
      return out;
    },
    release: async (lease: Lease) => void released.push(lease.taskId),
    leaseOf: (_server: string, taskId: string) => leases.get(taskId),
    recordIdOf: (server: string, taskId: string) => `${server}\n${taskId}`,
    put: async () => undefined,
    channel: { subscribe: () => ({ stop: async () => undefined }) },
    idempotency: {},
  } as unknown as RedisTaskStore;
  const tasks: ScriptedTask[] = [];
  const client: FleetClient = {
    task: async (taskId) => {
      const t = attach ? await attach(taskId) : new ScriptedTask(taskId);
      tasks.push(t);
      return t as unknown as TaskHandle<unknown>;
    },
    startTool: async () => ({ resultType: 'complete', result: {} }),
    on: () => undefined,
    off: () => undefined,
  };
  return { client, store, tasks, released, claims };
}

describe('FleetRunner', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('claims pass what this worker holds and how long a worker counts as live (the fair share)', async () => {
    const s = scripted();
    const runner = new FleetRunner(s.client, s.store, SERVER, { claimIntervalMs: 50 });
    await vi.advanceTimersByTimeAsync(60);
    expect(s.claims[0]).toEqual({ limit: 100, held: 0, liveMs: 250 });
    expect(s.claims[1]).toEqual({ limit: 100, held: 1, liveMs: 250 });
    expect(runner.taskIds).toEqual(['t1']);
    await runner.stop();
    const slow = scripted();
    const runner2 = new FleetRunner(slow.client, slow.store, SERVER, { claimIntervalMs: 900 });
    await vi.advanceTimersByTimeAsync(1);
    expect(slow.claims[0]?.liveMs).toBe(LEASE_MS); // never longer than the lease period
    await runner2.stop();
  });

  it('a claim whose lease moved on before the client followed it is reported as leaseLost, not as an error', async () => {
    const s = scripted(async (taskId) => {
      throw new LeaseLostError(taskId, 'expired', 7); // the client's first fenced poll refused it
    });
    const runner = new FleetRunner(s.client, s.store, SERVER, { claimIntervalMs: 10_000 });
    const lost: unknown[] = [];
    const errors: unknown[] = [];
    runner.on('leaseLost', (e) => lost.push(e));
    runner.on('error', (e) => errors.push(e));
    await vi.advanceTimersByTimeAsync(1);
    expect(lost).toEqual([expect.objectContaining({ code: 'LEASE_LOST', reason: 'expired', fence: 7 })]);
    expect(errors).toEqual([]);
    expect(runner.taskIds).toEqual([]);
    await runner.stop();
  });

  it('a followed task stopped by the loss of its lease is let go and reported once', async () => {
    const s = scripted();
    const runner = new FleetRunner(s.client, s.store, SERVER, { claimIntervalMs: 10_000 });
    const lost: unknown[] = [];
    runner.on('leaseLost', (e) => lost.push(e));
    await vi.advanceTimersByTimeAsync(1);
    expect(runner.taskIds).toEqual(['t1']);
    s.tasks[0]?.stopFollowing(new LeaseLostError('t1', 'stale', 7)); // the engine's fence was refused
    await vi.advanceTimersByTimeAsync(1);
    expect(runner.taskIds).toEqual([]);
    expect(lost).toEqual([expect.objectContaining({ reason: 'stale' })]);
    await runner.stop();
    expect(s.released).toEqual([]); // nothing held any more
  });

  it('stop() abandons the handles it follows and releases their leases', async () => {
    const s = scripted();
    const runner = new FleetRunner(s.client, s.store, SERVER, { claimIntervalMs: 10_000 });
    await vi.advanceTimersByTimeAsync(1);
    await runner.stop();
    expect(s.released).toEqual(['t1']);
    expect(s.tasks[0]?.done).toBe(true);
  });

  it('rejects nonsense options', () => {
    const s = scripted();
    expect(() => new FleetRunner(s.client, s.store, SERVER, { claimIntervalMs: -1 })).toThrow(
      /claimIntervalMs/,
    );
    expect(() => new FleetRunner(s.client, s.store, SERVER, { maxTasks: Number.NaN })).toThrow(/maxTasks/);
  });
});
