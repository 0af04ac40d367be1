/**
 * The fleet engine's timing logic through its own seam (FleetHost / FleetStore), with vitest fake timers and a
 * scripted store: a lease past its local deadline is let go of (sweep, or the gate before a poll), a renewal refused
 * by the store drops the task, and stop() releases what is held.
 */
import { EventEmitter } from 'eventemitter3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FleetClaim, FleetHost, FleetLease, FleetStore, FleetTask } from '../../src/fleet/fleet-host.js';
import { FleetRunner } from '../../src/fleet/fleet-runner.js';
import type { TaskRecord } from '../../src/index.js';

const LEASE_MS = 1_000;

class ScriptedTask extends EventEmitter implements FleetTask {
  done = false;
  abandoned: unknown;
  readonly method = 'tools/call';
  readonly pollIntervalMs = 100;
  readonly localCreatedAt = 0;
  readonly answeredKeys = new Set<string>();
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
  return {
    version: 1,
    server: 'http://s/mcp',
    method: 'tools/call',
    taskId,
    localCreatedAt: 0,
    ttlMs: null,
    status: 'working',
    answeredKeys: [],
    updatedAt: 0,
  };
}

/** A fence that answers at once: the lease is extended and a poll may be sent within 200 ms. */
async function fenceNow(lease: FleetLease): Promise<boolean> {
  lease.deadline = Date.now() + LEASE_MS * 0.8;
  lease.sendBy = Date.now() + LEASE_MS / 5;
  return true;
}

function scripted(
  renew: (lease: FleetLease) => Promise<boolean>,
  fence: (lease: FleetLease) => Promise<boolean> = fenceNow,
) {
  const leases = new Map<string, FleetLease>();
  const released: string[] = [];
  const fences: Array<{ taskId: string; intervalMs: number }> = [];
  const claims: Array<{ limit: number; held: number; liveMs: number }> = [];
  let pending: FleetClaim[] = [
    {
      lease: {
        id: 'i1',
        server: 'http://s/mcp',
        taskId: 't1',
        fence: 7,
        deadline: Date.now() + LEASE_MS * 0.8,
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
    renew: (lease: FleetLease) => renew(lease),
    fencePoll: (lease: FleetLease, intervalMs: number) => (
      fences.push({ taskId: lease.taskId, intervalMs }), fence(lease)
    ),
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
    gatePolls: () => undefined,
    attach: async (taskId) => {
      const t = new ScriptedTask(taskId);
      tasks.push(t);
      return t;
    },
    startTool: async () => ({ resultType: 'complete', result: {} }),
    onTask: () => () => undefined,
  };
  return { host, tasks, released, leases, fences, claims };
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
    await expect(runner.gate('t1')).resolves.toBeTypeOf('function');
    vi.setSystemTime(Date.now() + LEASE_MS); // the process was paused: no timer ran
    await expect(runner.gate('t1')).rejects.toMatchObject({ code: 'LEASE_LOST', reason: 'expired' });
    expect(s.fences).toHaveLength(1); // the expired lease was not even fenced
    expect(s.tasks[0]?.done).toBe(true);
    expect(runner.gate('t1')).toBeUndefined(); // no longer held here: not this worker's business
    await runner.stop();
  });

  it('fences every poll in the store with the task’s interval, and sends only inside the fenced window', async () => {
    const s = scripted(async () => true);
    const runner = new FleetRunner(s.host, { claimIntervalMs: 10_000 });
    await vi.advanceTimersByTimeAsync(1);
    const check = await runner.gate('t1');
    expect(s.fences).toEqual([{ taskId: 't1', intervalMs: 100 }]);
    expect(() => check!()).not.toThrow(); // written inside the window
    await vi.advanceTimersByTimeAsync(LEASE_MS / 5); // the request waited for a connection past the window
    expect(() => check!()).toThrow(expect.objectContaining({ code: 'LEASE_LOST', reason: 'expired' }));
    expect(runner.taskIds).toEqual([]); // let go: another worker claims it once its recorded next poll is due
    expect(s.tasks[0]?.abandoned).toMatchObject({ reason: 'expired' });
    await runner.stop();
  });

  it('re-fences a poll whose fence answered after its send window, and lets go after three slow answers', async () => {
    let slowMs = 0;
    const s = scripted(
      async () => true,
      async (lease) => {
        const fencedAt = Date.now(); // the store's answer is timed from when the fence was sent
        if (slowMs > 0) await new Promise((r) => setTimeout(r, slowMs));
        lease.deadline = fencedAt + LEASE_MS * 0.8;
        lease.sendBy = fencedAt + LEASE_MS / 5;
        return true;
      },
    );
    const runner = new FleetRunner(s.host, { claimIntervalMs: 10_000 });
    await vi.advanceTimersByTimeAsync(1);
    // Redis answers after the send window closed (a stall between fence and send): fenced again, not sent late.
    slowMs = LEASE_MS / 5 + 10;
    const sent = vi.fn();
    const gate = runner.gate('t1')!.then(sent, (e: unknown) => e);
    await vi.advanceTimersByTimeAsync(slowMs - 20);
    slowMs = 0; // the second fence is answered at once
    await vi.advanceTimersByTimeAsync(40);
    await gate;
    expect(sent).toHaveBeenCalledOnce();
    expect(s.fences).toHaveLength(2);
    // Three slow answers in a row: the lease is let go, nothing is sent.
    slowMs = LEASE_MS / 5 + 10;
    const refused = runner.gate('t1')!.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(3 * slowMs);
    expect(await refused).toMatchObject({ code: 'LEASE_LOST', reason: 'expired' });
    expect(runner.taskIds).toEqual([]);
    await runner.stop();
  });

  it('a fence the store refuses (the lease moved to another worker) drops the task and sends nothing', async () => {
    const s = scripted(
      () => new Promise(() => undefined),
      async () => false,
    );
    const runner = new FleetRunner(s.host, { claimIntervalMs: 10_000 });
    const lost: unknown[] = [];
    runner.on('leaseLost', (e) => lost.push(e));
    await vi.advanceTimersByTimeAsync(1);
    await expect(runner.gate('t1')).rejects.toMatchObject({ code: 'LEASE_LOST', reason: 'stale', fence: 7 });
    expect(runner.taskIds).toEqual([]);
    expect(s.tasks[0]?.abandoned).toMatchObject({ reason: 'stale' });
    expect(lost).toHaveLength(1);
    await runner.stop();
  });

  it('claims pass what this worker holds and how long a worker counts as live (the fair share)', async () => {
    const s = scripted(async () => true);
    const runner = new FleetRunner(s.host, { claimIntervalMs: 50 });
    await vi.advanceTimersByTimeAsync(60);
    expect(s.claims[0]).toEqual({ limit: 100, held: 0, liveMs: 250 });
    expect(s.claims[1]).toEqual({ limit: 100, held: 1, liveMs: 250 });
    await runner.stop();
    const slow = scripted(async () => true);
    const runner2 = new FleetRunner(slow.host, { claimIntervalMs: 900 });
    await vi.advanceTimersByTimeAsync(1);
    expect(slow.claims[0]?.liveMs).toBe(LEASE_MS); // never longer than the lease period
    await runner2.stop();
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
