/**
 * Phase d: a fleet of FLEET_WORKERS worker processes sharing FLEET_TASKS tasks (`sleep_ms`) on the reference server
 * (its own process, loopback HTTP) through a real redis-server; each key's creation is sent by two workers (a race
 * on purpose), and one worker is killed with SIGKILL once every task exists. Reports tasks lost, outcomes recorded
 * twice, duplicate creations, early polls, polls ÷ minimum polls, takeover delay, and Redis commands per poll.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { startRedis } from '../../test/helpers/redis-server.js';
import { report, startServerProcess } from '../lib/child.js';
import { discipline } from '../lib/discipline.js';
import { envInt, percentile, round, sleep } from '../lib/measure.js';
import { lifetimes } from '../lib/random.js';

const n = envInt('FLEET_TASKS', 10_000);
const workersN = envInt('FLEET_WORKERS', 4);
const intervalMs = envInt('FLEET_INTERVAL_MS', 15_000);
const leaseMs = envInt('FLEET_LEASE_MS', 30_000);
const claimIntervalMs = envInt('FLEET_CLAIM_INTERVAL_MS', Math.min(1_000, intervalMs));
const minLife = Number(process.env.FLEET_MIN_LIFE ?? 2);
const maxLife = Number(process.env.FLEET_MAX_LIFE ?? 4);
const deadlineMs = envInt('FLEET_DEADLINE_MS', 300_000); // after the kill
// Creations each worker keeps in flight (its keys and the next worker's, raced on purpose).
const creationWindow = envInt('FLEET_CREATION_WINDOW', 32);
const WORKER = fileURLToPath(new URL('../fleet-worker.ts', import.meta.url));

const redis = await startRedis({ persistence: false });
const server = await startServerProcess({ pollIntervalMs: intervalMs, inlineBudgetMs: 0, ttlMs: 3_600_000 });
const monitor = createClient({ url: redis.url });
await monitor.connect();
const commandsProcessed = async (): Promise<number> => {
  const info = String(await monitor.sendCommand(['INFO', 'stats']));
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? Number.NaN);
};
const prefix = 'bench-fleet';
const life = lifetimes(n, minLife * intervalMs, maxLife * intervalMs, 0xf1ee7 + n);
const commands0 = await commandsProcessed();
const started = Date.now();

interface Claim {
  taskId: string;
  previousOwner: string | null;
  lateMs: number | null;
  at: number;
  by: string;
}
const claims: Claim[] = [];
const workerStats = new Map<string, { commands: number; errors: number }>();
const created = new Map<string, string>();
let createdReports = 0;
const creationStats: Array<{ won: number; wonMs: number; lost: number; lostMs: number; commands: number }> =
  [];
const workers: ChildProcess[] = [];
const allCreated = new Promise<void>((resolve) => {
  for (let index = 0; index < workersN; index++) {
    const id = `w${index}`;
    const options = {
      redisUrl: redis.url,
      prefix,
      serverUrl: server.url,
      id,
      index,
      workers: workersN,
      leaseMs,
      claimIntervalMs,
      lifetimes: life,
      window: creationWindow,
    };
    const child = fork(WORKER, [JSON.stringify(options)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.on('message', (raw) => {
      const m = raw as Record<string, any>;
      if (m.type === 'stats')
        workerStats.set(id, { commands: m.commands as number, errors: m.errors as number });
      if (m.type === 'claimed') claims.push({ ...(m as Claim), by: id });
      if (m.type === 'created') {
        for (const t of m.tasks as Array<{ key: string; taskId: string }>) created.set(t.key, t.taskId);
        creationStats.push(m.creation as (typeof creationStats)[number]);
        if (++createdReports === workersN) resolve();
      }
    });
    workers.push(child);
  }
});
await allCreated;
const createdMs = Date.now() - started;

// Kill one worker with tasks in flight.
await sleep(intervalMs);
const victim = workers[0]!;
const killAt = Date.now();
victim.kill('SIGKILL');

// Wait for every outcome (one stream entry per recorded outcome).
const eventsKey = `${prefix}:events`;
while (
  Number(await monitor.sendCommand(['XLEN', eventsKey])) < created.size &&
  Date.now() - killAt < deadlineMs
)
  await sleep(500);
const wallMs = Date.now() - started;
const entries = (await monitor.sendCommand(['XRANGE', eventsKey, '-', '+'])) as Array<[string, string[]]>;
const outcomes = new Map<string, number>();
for (const [, fields] of entries) {
  const i = fields.indexOf('taskId');
  if (fields[fields.indexOf('type') + 1] === 'outcome' && i >= 0)
    outcomes.set(fields[i + 1]!, (outcomes.get(fields[i + 1]!) ?? 0) + 1);
}
const commands = (await commandsProcessed()) - commands0;
const roundTrips = [...workerStats.values()].reduce((a, w) => a + w.commands, 0);
const tasks = [...created].map(([key, taskId]) => ({ key, taskId }));
const collected = await server.collect(tasks);
for (const w of workers.slice(1)) w.send({ type: 'stop' });
await Promise.all(
  workers.map((w) =>
    w.exitCode === null && w.signalCode === null ? new Promise((r) => w.once('exit', r)) : undefined,
  ),
);
await server.close();
await monitor.close();
await redis.close();

const observations = collected.tasks.map((t) => ({
  ...t,
  receivedAtMs: t.createdAtMs,
  resolvedAtMs: t.completedAtMs,
}));
const summary = discipline(observations, intervalMs);
const gets = collected.counts['tasks/get'] ?? 0;
// Takeovers of the killed worker's tasks: first poll after the kill, per task (server clock = this machine's).
const orphaned = new Set(claims.filter((c) => c.previousOwner === 'w0').map((c) => c.taskId));
const byId = new Map(collected.tasks.map((t) => [t.taskId, t]));
const takeoverDelays = [...orphaned]
  .map((id) => (byId.get(id)?.gets.find((g) => g >= killAt) ?? Number.NaN) - killAt)
  .filter(Number.isFinite);
if (process.env.FLEET_DEBUG === '1') {
  for (const t of collected.tasks) {
    const gaps = t.gets.map((g, i) => g - (i === 0 ? t.createdAtMs : (t.gets[i - 1] as number)));
    if (gaps.some((g) => g < intervalMs - 1)) {
      console.error(
        t.taskId.slice(0, 8),
        'gets',
        t.gets.map((g) => g - t.createdAtMs),
        'done',
        t.completedAtMs - t.createdAtMs,
        'claims',
        claims.filter((c) => c.taskId === t.taskId).map((c) => [c.by, c.at - t.createdAtMs, c.previousOwner]),
        'kill',
        killAt - t.createdAtMs,
      );
    }
  }
}
report({
  phase: 'fleet',
  tasks: n,
  workers: workersN,
  intervalMs,
  leaseMs,
  claimIntervalMs,
  createdMs,
  creationWindow,
  // Per worker: startTool calls that created the task (won) or found another worker's (lost), mean ms each, and
  // Redis commands per startTool call.
  creation: creationStats.map((c) => ({
    won: c.won,
    wonMeanMs: round(c.wonMs / Math.max(1, c.won), 1),
    lost: c.lost,
    lostMeanMs: round(c.lostMs / Math.max(1, c.lost), 1),
    redisCommandsPerCall: round(c.commands / Math.max(1, c.won + c.lost), 2),
  })),
  wallMs,
  tasksLost: tasks.filter((t) => !outcomes.has(t.taskId)).length,
  outcomesRecordedTwice: [...outcomes.values()].filter((c) => c > 1).length,
  // Creation requests the server received: more than the tasks only when a worker re-sent one after a timeout
  // (same key; the server answers with the same task). Two workers racing on each key send one request between them.
  creationRequests: collected.counts['tools/call'] ?? 0,
  // Tasks the server created beyond one per key (its registry holds every task it created, within the TTL).
  duplicateCreations: (collected.counts['tasks created'] ?? Number.NaN) - created.size,
  distinctTasks: created.size,
  earlyPolls: summary.earlyPolls,
  minGapOverInterval: summary.minGapOverInterval,
  pollsSent: summary.pollsSent,
  minimumPolls: summary.minimumPolls,
  disciplineRatio: summary.disciplineRatio,
  tasksWithMissingData: summary.tasksWithMissingData,
  takeovers: orphaned.size,
  takeoverDelayMs: {
    p50: percentile(takeoverDelays, 50),
    p99: percentile(takeoverDelays, 99),
    max: percentile(takeoverDelays, 100),
  },
  takeoverTargetMs: leaseMs + intervalMs,
  // Commands Redis executed (INFO total_commands_processed: a script's inner calls count one each) ...
  redisCommands: commands,
  redisCommandsPerPoll: round(commands / Math.max(1, gets), 3),
  // ... and round trips the workers sent (a script is one), creation included; per tasks/get the server answered.
  redisRoundTrips: roundTrips,
  redisRoundTripsPerPoll: round(roundTrips / Math.max(1, gets), 3),
  fleetErrorEvents: [...workerStats.values()].reduce((a, w) => a + w.errors, 0),
});
