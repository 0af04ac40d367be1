/**
 * Fleet workers as separate processes on a real redis-server and the reference server (loopback HTTP): a worker
 * killed with SIGKILL, a worker paused past its lease (SIGSTOP) and resumed, and Redis restarted mid-run with
 * persistence on. Assertions are counts (claims, writes, outcomes, early polls), never wall-clock windows.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CallToolResult } from '../../src/index.js';
import { killAll, spawnWorker, type WorkerProcess } from './children.js';
import { earlyPolls, fleetEnv, outcomeCounts, until, type FleetEnv } from './fleet-fixtures.js';

const POLL = 100;
const LEASE = 1_500;
const CLAIM_EVERY = 100;
let env: FleetEnv | undefined;
let workers: WorkerProcess[] = [];

afterEach(async () => {
  await killAll(workers);
  workers = [];
  await env?.close();
  env = undefined;
});

/** Creates `n` tasks of `ms` from this process, then gives their leases back so the worker processes claim them. */
async function seed(e: FleetEnv, n: number, ms: number, tag: string): Promise<string[]> {
  const creator = await e.worker(`creator-${tag}`);
  const fleet = creator.client.runFleet({ claim: false });
  const starts = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      fleet.startTool('sleep_ms', { ms }, { idempotencyKey: `${tag}-${i}` }),
    ),
  );
  await fleet.stop();
  return starts.map((s) => (s.resultType === 'task' ? s.taskId : ''));
}

function start(e: FleetEnv, ids: string[]): WorkerProcess[] {
  return ids.map((id) =>
    spawnWorker({
      redisUrl: e.redis.url,
      prefix: e.prefix,
      serverUrl: e.server.url,
      id,
      leaseMs: LEASE,
      claimIntervalMs: CLAIM_EVERY,
    }),
  );
}

const claimsOf = (w: WorkerProcess): string[] =>
  w.events.filter((e) => e.event === 'claimed').map((e) => e.taskId as string);

/**
 * Waits until every seeded task is claimed and returns the worker that claimed the most. Which worker holds which
 * tasks is a race (each claims at most its fair share): the victim is chosen after it, never before.
 */
async function claimedBy(ws: WorkerProcess[], ids: string[]): Promise<WorkerProcess> {
  await until(() => ids.every((id) => ws.some((w) => claimsOf(w).includes(id))), 'tasks claimed', 60_000);
  return [...ws].sort((a, b) => claimsOf(b).length - claimsOf(a).length)[0]!;
}

/** The task ids `w` reports following, from its next `held` report. */
async function heldNow(w: WorkerProcess): Promise<string[]> {
  const from = w.events.length;
  let found: string[] | undefined;
  await until(
    () => {
      found = w.events.slice(from).find((e) => e.event === 'held')?.taskIds as string[] | undefined;
      return found !== undefined;
    },
    'held report',
    60_000,
  );
  return found!;
}

async function allResults(e: FleetEnv, ids: string[]): Promise<void> {
  const reader = await e.worker('reader');
  const results = await Promise.all(
    ids.map((id) => reader.client.resultOf<CallToolResult>(id, { checkIntervalMs: 100 })),
  );
  expect(results).toHaveLength(ids.length);
}

/** Every outcome recorded once; no early poll (counted from the server's receive times). */
async function expectOnceEach(e: FleetEnv, ids: string[]): Promise<void> {
  const outcomes = await outcomeCounts(e.redis.url, e.prefix);
  expect(ids.map((id) => outcomes.get(id) ?? 0)).toEqual(ids.map(() => 1));
  for (const id of ids) expect(earlyPolls(e.server.stats.taskGetTimes(id), POLL), `task ${id}`).toBe(0);
}

describe('fleet workers as processes', () => {
  it('kill -9 of a worker: the others take its tasks over and every outcome is recorded once', {
    timeout: 180_000,
  }, async () => {
    env = await fleetEnv({ leaseMs: LEASE, server: { pollIntervalMs: POLL } });
    workers = start(env, ['p1', 'p2', 'p3']);
    await until(
      () => workers.every((w) => w.events.some((e) => e.event === 'ready')),
      'workers ready',
      90_000,
    );
    const ids = await seed(env, 24, 5_000, 'kill');
    const victim = await claimedBy(workers, ids);
    // The victim's tasks: those whose latest claim (across the fleet) was the victim's when it was killed.
    const latest = new Map<string, string>();
    for (const e of workers
      .flatMap((w) => w.events.filter((x) => x.event === 'claimed'))
      .sort((x, y) => x.at - y.at))
      latest.set(e.taskId, e.workerId);
    const orphaned = [...latest].filter(([, by]) => by === victim.id).map(([id]) => id);
    victim.kill('SIGKILL');
    await victim.exited;
    await allResults(env, ids);
    const survivors = workers.filter((w) => w !== victim);
    for (const id of orphaned) {
      // Taken over by a survivor (on a loaded machine a survivor may itself lose the lease and another take it then).
      const takeovers = survivors
        .flatMap((w) => w.events)
        .filter((e) => e.event === 'claimed' && e.taskId === id && e.previousOwner === victim.id);
      // How soon after the lease's end a survivor claims (`lateMs`) is a speed, measured by the fleet bench, not
      // bounded here: this test pins that the takeover happened, by a survivor, from the victim, and (below) that
      // every outcome was recorded once with no early poll.
      expect(takeovers.length, `task ${id}`).toBeGreaterThanOrEqual(1);
    }
    await expectOnceEach(env, ids);
  });

  it('a worker paused past its lease (SIGSTOP) and resumed sends and writes nothing for the tasks taken over', {
    timeout: 180_000,
  }, async () => {
    env = await fleetEnv({ leaseMs: LEASE, server: { pollIntervalMs: POLL } });
    workers = start(env, ['s1', 's2']);
    await until(
      () => workers.every((w) => w.events.some((e) => e.event === 'ready')),
      'workers ready',
      90_000,
    );
    const ids = await seed(env, 10, 8_000, 'stop');
    const paused = await claimedBy(workers, ids);
    // What it follows when paused (its own report; a lease it already lost under load is not counted).
    const held = await heldNow(paused);
    // pausedAt and resumedAt are cut points on the system clock the workers stamp their events with: they order
    // events (claimed after the pause, sent after the resume), they measure no duration.
    const pausedAt = Date.now();
    paused.kill('SIGSTOP');
    const other = workers.find((w) => w !== paused)!;
    // Liveness waits only: each wait ends on what the workers report, whatever the machine's load.
    await until(
      () =>
        held.every((id) =>
          other.events.some((e) => e.event === 'claimed' && e.taskId === id && e.at >= pausedAt),
        ),
      'takeover of the paused worker',
      120_000,
    );
    const before = paused.events.length;
    const resumedAt = Date.now();
    paused.kill('SIGCONT');
    const taken = new Set(held);
    await until(
      () => {
        const latest = paused.events
          .slice(before)
          .filter((e) => e.event === 'held')
          .at(-1);
        return latest !== undefined && !(latest.taskIds as string[]).some((id) => taken.has(id));
      },
      'paused worker lets go',
      120_000,
    );
    await allResults(env, ids);
    const after = paused.events.slice(before);
    // Nothing written after the resume for the tasks taken over while it was paused (unless it legitimately claimed
    // one again later). A write sent before the pause may be answered after it: Redis ran it while the lease held.
    const reclaimed = new Set(after.filter((e) => e.event === 'claimed').map((e) => e.taskId as string));
    const writes = after.filter(
      (e) =>
        e.event === 'put' &&
        e.sentAt >= resumedAt &&
        held.includes(e.taskId as string) &&
        !reclaimed.has(e.taskId as string),
    );
    expect(writes).toEqual([]);
    // Every poll is fenced in Redis when it is sent: the resumed worker polls nothing it no longer holds.
    await expectOnceEach(env, ids);
  });

  it('Redis restarted mid-run with persistence on: workers reconnect and nothing is lost', {
    timeout: 180_000,
  }, async () => {
    env = await fleetEnv({ leaseMs: LEASE, server: { pollIntervalMs: POLL }, persistence: true });
    workers = start(env, ['r1', 'r2']);
    await until(
      () => workers.every((w) => w.events.some((e) => e.event === 'ready')),
      'workers ready',
      90_000,
    );
    const ids = await seed(env, 12, 4_000, 'restart');
    await until(() => workers.flatMap(claimsOf).length >= ids.length, 'tasks claimed', 60_000);
    await env.redis.stop();
    await new Promise((r) => setTimeout(r, 300));
    await env.redis.restart();
    await allResults(env, ids);
    const outcomes = await outcomeCounts(env.redis.url, env.prefix);
    expect(ids.map((id) => outcomes.get(id) ?? 0)).toEqual(ids.map(() => 1));
    expect(env.server.stats.count('tools/call')).toBe(ids.length);
  });
});
