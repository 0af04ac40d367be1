/**
 * `npm run bench`: the client's cost, measured. Runs each phase in a fresh Node process (`bench/phases/*.ts`), prints
 * a table and writes `bench/results.json`. Sizes come from the environment (see docs/performance.md), e.g.
 * `BENCH_QUICK=1 npm run bench` for a quick run at reduced sizes.
 */
import { writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { runPhase } from './lib/child.js';
import { envInt, round } from './lib/measure.js';
import { sideBySideRows, type Row } from './lib/side-by-side-rows.js';

const quick = process.env.BENCH_QUICK === '1';
const sizes = {
  inlineCalls: envInt('INLINE_CALLS', quick ? 400 : 2_000),
  fanoutHttpTasks: envInt('FANOUT_HTTP_TASKS', quick ? 200 : 1_000),
  fanoutMemoryTasks: envInt('FANOUT_MEMORY_TASKS', quick ? 2_000 : 10_000),
  fanoutIntervalMs: envInt('FANOUT_INTERVAL_MS', 1_000),
  fanoutSlowIntervalMs: envInt('FANOUT_SLOW_INTERVAL_MS', 5_000),
  holdTasks: envInt('HOLD_TASKS', quick ? 10_000 : 100_000),
  holdIntervalMs: envInt('HOLD_INTERVAL_MS', 60_000),
  requestCostCalls: envInt('REQUEST_COST_CALLS', quick ? 400 : 2_000),
  peerTasks: (process.env.PEER_TASKS ?? (quick ? '200' : '200,1000')).split(',').map(Number),
  peerIntervalsMs: (process.env.PEER_INTERVALS_MS ?? '500,1000').split(',').map(Number),
  // Idle tasks held over HTTP, ours and ext-tasks side by side (100000 is possible, and slow: HOLD_HTTP_TASKS=10000,100000).
  holdHttpTasks: (process.env.HOLD_HTTP_TASKS ?? (quick ? '2000' : '10000')).split(',').map(Number),
  fleetTasks: envInt('FLEET_TASKS', quick ? 2_000 : 10_000),
};
// Phases by name: BENCH_ONLY=a,b or `npm run bench -- fleet` (the fleet phase is also included in a full run).
const only =
  process.env.BENCH_ONLY?.split(',') ?? (process.argv.length > 2 ? process.argv.slice(2) : undefined);
const want = (name: string): boolean => only === undefined || only.includes(name);

type Result = Record<string, unknown> & { phase: string };
const results: Record<string, Result> = {};
const load = (): number[] => loadavg().map((v) => round(v, 2));
const loadBefore = load();
const started = Date.now();

async function phase(name: string, file: string, env: Record<string, string>): Promise<void> {
  if (!want(name)) return;
  const t0 = Date.now();
  process.stderr.write(`bench: ${name} … `);
  const result = await runPhase<Result>(file, env);
  results[name] = { ...result, wallMs: Date.now() - t0, loadAvgAfter: load() };
  process.stderr.write(`${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}

await phase('correctness', 'correctness', {});
await phase('inline', 'inline', { INLINE_CALLS: String(sizes.inlineCalls) });
await phase('request-cost', 'request-cost', { REQUEST_COST_CALLS: String(sizes.requestCostCalls) });
await phase('request-cost-no-otel', 'request-cost', {
  REQUEST_COST_CALLS: String(sizes.requestCostCalls),
  REQUEST_COST_OTEL: 'absent',
});
// Side by side with @modelcontextprotocol/ext-tasks: ours, the peer, ours with push, at each size and interval.
for (const tasks of sizes.peerTasks) {
  for (const interval of sizes.peerIntervalsMs) {
    const env = {
      FANOUT_TRANSPORT: 'http',
      FANOUT_TASKS: String(tasks),
      FANOUT_INTERVAL_MS: String(interval),
    };
    await phase(`peer-ours-${tasks}-${interval}`, 'fanout', env);
    await phase(`peer-ext-${tasks}-${interval}`, 'fanout', { ...env, FANOUT_CLIENT: 'peer' });
    await phase(`peer-push-${tasks}-${interval}`, 'fanout', { ...env, FANOUT_PUSH: '1' });
  }
}
for (const tasks of sizes.holdHttpTasks) {
  await phase(`hold-http-ours-${tasks}`, 'hold-http', { HOLD_CLIENT: 'ours', HOLD_TASKS: String(tasks) });
  await phase(`hold-http-peer-${tasks}`, 'hold-http', { HOLD_CLIENT: 'peer', HOLD_TASKS: String(tasks) });
}
await phase('fanout-http', 'fanout', {
  FANOUT_TRANSPORT: 'http',
  FANOUT_TASKS: String(sizes.fanoutHttpTasks),
  FANOUT_INTERVAL_MS: String(sizes.fanoutIntervalMs),
});
await phase('fanout-memory', 'fanout', {
  FANOUT_TRANSPORT: 'memory',
  FANOUT_TASKS: String(sizes.fanoutMemoryTasks),
  FANOUT_INTERVAL_MS: String(sizes.fanoutIntervalMs),
});
await phase('fanout-memory-slow', 'fanout', {
  FANOUT_TRANSPORT: 'memory',
  FANOUT_TASKS: String(sizes.fanoutMemoryTasks),
  FANOUT_INTERVAL_MS: String(sizes.fanoutSlowIntervalMs),
});
await phase('hold-callTool', 'hold', {
  HOLD_API: 'callTool',
  HOLD_TASKS: String(sizes.holdTasks),
  HOLD_INTERVAL_MS: String(sizes.holdIntervalMs),
});
await phase('hold-startTool', 'hold', {
  HOLD_API: 'startTool',
  HOLD_TASKS: String(sizes.holdTasks),
  HOLD_INTERVAL_MS: String(sizes.holdIntervalMs),
});
await phase('fleet', 'fleet', { FLEET_TASKS: String(sizes.fleetTasks) });

const machine = {
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cpus: cpus().length,
  totalMemGb: round(totalmem() / 2 ** 30, 1),
  freeMemGb: round(freemem() / 2 ** 30, 1),
  loadAvgBefore: loadBefore,
  loadAvgAfter: load(),
};
const output = {
  date: new Date().toISOString(),
  wallSeconds: round((Date.now() - started) / 1000, 1),
  machine,
  sizes,
  results,
};
writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(output, null, 2)}\n`);

// The table.
const rows: Row[] = [];
const get = (name: string): Record<string, any> | undefined =>
  results[name] as Record<string, any> | undefined;
rows.push(...sideBySideRows(get, sizes));
for (const name of ['fanout-http', 'fanout-memory', 'fanout-memory-slow']) {
  const r = get(name);
  if (!r) continue;
  const label = `b. ${r.tasks} tasks, ${r.transport}, I=${r.intervalMs} ms`;
  const delayTarget = round(1.1 + 50 / r.intervalMs, 3);
  rows.push([
    `${label}: poll-discipline ratio`,
    `${r.disciplineRatio} (${r.pollsSent}/${r.minimumPolls})`,
    'target ≤ 1.05',
  ]);
  rows.push([`${label}: early polls`, `${r.earlyPolls} (min gap ${r.minGapOverInterval}·I)`, 'target 0']);
  rows.push([
    `${label}: completion delay p50 / p99 (·I)`,
    `${r.delay.p50} / ${r.delay.p99}`,
    `target p99 ≤ ${delayTarget}`,
  ]);
  rows.push([
    `${label}: poll gap p50 / p99 / max (·I)`,
    `${r.gapOverInterval.p50} / ${r.gapOverInterval.p99} / ${r.gapOverInterval.max}`,
    '',
  ]);
  rows.push([
    `${label}: heap / RSS per task KB`,
    `${r.heapPerTaskKb.retainedAllOutstanding} / ${r.rssPerTaskKb}`,
    r.serverInProcess ? 'server in this heap' : 'client only',
  ]);
  rows.push([
    `${label}: event-loop p99 ms (creation / polling)`,
    `${r.eventLoop.creation.p99Ms} / ${r.eventLoop.polling.p99Ms}`,
    '',
  ]);
}
for (const name of ['hold-callTool', 'hold-startTool']) {
  const r = get(name);
  if (!r) continue;
  const label = `c. ${r.tasks} idle tasks (${r.api})`;
  rows.push([`${label}: heap per task KB, client`, `${r.heapPerTaskKb.clientOnly}`, 'target ≤ 3.5']);
  rows.push([`${label}: heap per task KB, client+server`, `${r.heapPerTaskKb.clientAndServer}`, '']);
  rows.push([
    `${label}: event-loop p99 ms (idle / creation)`,
    `${r.eventLoop.idle.p99Ms} / ${r.eventLoop.creation.p99Ms}`,
    'target ≤ 50',
  ]);
}
const fleet = get('fleet');
if (fleet) {
  const label = `d. fleet: ${fleet.tasks} tasks, ${fleet.workers} workers (1 killed), I=${fleet.intervalMs} ms, lease ${fleet.leaseMs} ms`;
  rows.push([
    `${label}: tasks lost / outcomes twice / duplicate creations`,
    `${fleet.tasksLost} / ${fleet.outcomesRecordedTwice} / ${fleet.duplicateCreations}`,
    'target 0 / 0 / 0',
  ]);
  rows.push([`${label}: early polls`, `${fleet.earlyPolls}`, 'target 0']);
  rows.push([
    `${label}: polls ÷ minimum polls`,
    `${fleet.disciplineRatio} (${fleet.pollsSent}/${fleet.minimumPolls})`,
    'target ≤ 1.05',
  ]);
  rows.push([
    `${label}: takeover delay p50 / p99 ms (${fleet.takeovers} tasks)`,
    `${fleet.takeoverDelayMs.p50} / ${fleet.takeoverDelayMs.p99}`,
    `target p99 ≤ ${fleet.takeoverTargetMs}`,
  ]);
  rows.push([
    `${label}: Redis commands per poll`,
    `${fleet.redisCommandsPerPoll} (${fleet.redisCommands} total)`,
    '',
  ]);
  rows.push([
    `${label}: Redis round trips per poll / creation s`,
    `${fleet.redisRoundTripsPerPoll} / ${Math.round(fleet.createdMs / 1000)}`,
    'incl. creation',
  ]);
}
const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => (row[i] as string).length), 8));
const line = (row: Row): string => row.map((cell, i) => cell.padEnd(widths[i] as number)).join(' │ ');
console.log(line(['measure', 'value', 'note']));
console.log(widths.map((w) => '─'.repeat(w)).join('─┼─'));
for (const row of rows) console.log(line(row));
console.log(
  `\nNode ${machine.node}, ${machine.cpus} × ${machine.cpu}, load ${loadBefore.join(' ')} → ${machine.loadAvgAfter.join(' ')}; ${output.wallSeconds} s; bench/results.json written.`,
);
