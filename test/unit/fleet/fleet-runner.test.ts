/**
 * The fleet engine's timing logic through its own seam (FleetHost / FleetStore), with vitest fake timers and a
 * scripted store: a lease past its local deadline is let go of (sweep, or the gate before a poll), a renewal refused
 * by the store drops the task, and stop() releases what is held.
 */
import { EventEmitter } from 'eventemitter3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FleetClaim, FleetHost, FleetLease, FleetStore, FleetTask } from '../../../src/fleet/fleet-host.js';
import { FleetRunner } from '../../../src/fleet/fleet-runner.js';
import type { TaskRecord } from '../../../src/index.js';

const LEASE_MS = 1_000;

class ScriptedTask extends EventEmitter implements FleetTask {
  done = false;
  abandoned: unknown;
  readonly method = 'tools/call';
  readonly pollIntervalMs = 100;
  readonly answeredKeys = new Set<string>(); // hook: jq
  readonly task = { taskId: 't1', status: 'working', ttlMs: null } as FleetTask['task'];
  #reject!: (e: unknown) => void;
  readonly #result = new Promise<unknown>((_, reject) => (this.#reject = reject));
  constructor(readonly taskId: string) {
    super();
    this.#result.catch(() => undefined);
  }
  result(): Promise<unknown> {
    return this.#result;
  }
  refresh(): Promise<never> {
    return new Promise(() => undefined); // no poll happens in these tests
  }
  async respond(): Promise<string[]> {
    return [];
  }
  stopFollowing(error: unknown): void {
    this.done = true;
    this.abandoned = error;
    this.#reject(error);
  }
}

function record(taskId: string): TaskRecord {
  return { version: 1, server: 'http://s/mcp', method: 'tools/call', taskId, localCreatedAt: 0, ttlMs: null, status: 'working', answeredKeys: [], updatedAt: 0 };
}

function scripted(renew: (lease: FleetLease) => Promise<boolean>) {
  const leases = new Map<string, FleetLease>();
  const released: string[] = [];
  let pending: FleetClaim[] = [{ lease: { id: 'i1', server: 'http://s/mcp', taskId: 't1', fence: 7, deadline: Date.now() + LEASE_MS * 0.8 }, record: record('t1') }];
  const store = {
    leaseMs: LEASE_MS,
    workerId: 'w',
    claim: async () => {
      const out = pending;
      pending = [];
      for (const c of out) leases.set(c.lease.taskId, c.lease);
      return out;
    },
    renew: (lease: FleetLease) => renew(lease),
    release: async (lease: FleetLease) => void released.push(lease.taskId),
    leaseOf: (_server: string, taskId: string) => leases.get(taskId),
    forget: (lease: FleetLease) => void leases.delete(lease.taskId),
    put: async () => undefined,
    get: async () => undefined,
    list: async () => [],
    delete: async () => undefined,
    prune: async () => 0,
    channel: { subscribe: () => ({ stop: async () => undefined }) },
    idempotency: {},
  } as unknown as FleetStore;
  const tasks: ScriptedTask[] = [];
  const host: FleetHost = {
    serverKey: 'http://s/mcp',
    store,
    workerId: 'w',
    now: () => Date.now(),
    attach: async (taskId) => {
      const t = new ScriptedTask(taskId);
      tasks.push(t);
      return t;
    },
    startTool: async () => ({ resultType: 'complete', result: {} }),
    onTask: () => () => undefined,
  };
  return { host, tasks, released, leases };
}

describe('FleetRunner timing', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets go of a task when its lease passes the local deadline without a renewal (Redis out of reach)', async () => {
    const s = scripted(() => new Promise(() => undefined)); // renewals never answer
    const runner = new FleetRunner(s.host, { claimIntervalMs: 50 });
    const lost: unknown[] = [];
    runner.on('leaseLost', (e) => lost.push(e));
    await vi.advanceTimersByTimeAsync(10);
    expect(runner.taskIds).toEqual(['t1']);
    await vi.advanceTimersByTimeAsync(700);
    expect(runner.taskIds).toEqual(['t1']);
    await vi.advanceTimersByTimeAsync(200); // past 80 % of the lease
    expect(runner.taskIds).toEqual([]);
    expect(s.tasks[0]?.abandoned).toMatchObject({ code: 'LEASE_LOST', reason: 'expired', fence: 7 });
    expect(lost).toHaveLength(1);
    await runner.stop();
  });

  it('refuses a poll once the lease passed its local deadline, before any sweep ran', async () => {
    const s = scripted(() => new Promise(() => undefined));
    const runner = new FleetRunner(s.host, { claimIntervalMs: 10_000 });
    await vi.advanceTimersByTimeAsync(1);
    expect(() => runner.gate('t1')).not.toThrow();
    vi.setSystemTime(Date.now() + LEASE_MS); // the process was paused: no timer ran
    expect(() => runner.gate('t1')).toThrow(expect.objectContaining({ code: 'LEASE_LOST', reason: 'expired' }));
    expect(s.tasks[0]?.done).toBe(true);
    expect(() => runner.gate('t1')).not.toThrow(); // no longer held here: not this worker's business
    await runner.stop();
  });

  it('refuses the first poll of a claim whose lease ran out while the attach was still reading the store', async () => {
    const s = scripted(() => new Promise(() => undefined));
    let runner!: FleetRunner;
    const polled: string[] = [];
    s.host.attach = async (taskId) => {
      await new Promise((r) => setTimeout(r, LEASE_MS)); // the attach's store read outlives the lease (a paused process)
      runner.gate(taskId); // the attach's first tasks/get
      polled.push(taskId);
      return new ScriptedTask(taskId);
    };
    runner = new FleetRunner(s.host, { claimIntervalMs: 10_000 });
    const lost: unknown[] = [];
    const errors: unknown[] = [];
    runner.on('leaseLost', (e) => lost.push(e));
    runner.on('error', (e) => errors.push(e));
    await vi.advanceTimersByTimeAsync(LEASE_MS + 50);
    expect(polled).toEqual([]);
    expect(runner.taskIds).toEqual([]);
    expect(lost).toEqual([expect.objectContaining({ code: 'LEASE_LOST', reason: 'expired', fence: 7 })]);
    expect(errors).toEqual([]);
    expect(() => runner.gate('t1')).not.toThrow(); // the attach is over: not this worker's business any more
    await runner.stop();
  });

  it('drops a task whose renewal the store refuses (another worker claimed it)', async () => {
    const s = scripted(async () => false);
    const runner = new FleetRunner(s.host, { claimIntervalMs: 10_000 });
    await vi.advanceTimersByTimeAsync(1);
    expect(runner.taskIds).toEqual(['t1']);
    await vi.advanceTimersByTimeAsync(LEASE_MS / 3 + LEASE_MS / 8); // the sweep renews a lease no poll renewed
    expect(runner.taskIds).toEqual([]);
    expect(s.tasks[0]?.abandoned).toMatchObject({ code: 'LEASE_LOST', reason: 'stale' });
    await runner.stop();
    expect(s.released).toEqual([]);
  });

  it('stop() releases held leases and abandons their handles, the next poll one interval away', async () => {
    const steps: string[] = [];
    const s = scripted(async (lease) => (steps.push(`renew ${lease.taskId}`), true));
    const runner = new FleetRunner(s.host, { claimIntervalMs: 10_000 });
    await vi.advanceTimersByTimeAsync(1);
    const release = s.host.store.release.bind(s.host.store);
    s.host.store.release = async (lease) => (steps.push(`release ${lease.taskId}`), release(lease));
    await runner.stop();
    expect(steps).toEqual(['renew t1', 'release t1']); // a poll of ours may be on its way: no early poll by the next holder
    expect(s.released).toEqual(['t1']);
    expect(s.tasks[0]?.done).toBe(true);
  });

  it('rejects nonsense options', () => {
    const s = scripted(async () => true);
    expect(() => new FleetRunner(s.host, { claimIntervalMs: -1 })).toThrow(/claimIntervalMs/);
    expect(() => new FleetRunner(s.host, { maxTasks: Number.NaN })).toThrow(/maxTasks/);
  });
});
