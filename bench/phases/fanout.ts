/**
 * Phase b: N concurrent tasks (`sleep_ms`, lifetimes spread over [FANOUT_MIN_LIFE, FANOUT_MAX_LIFE] intervals) on the
 * reference server, over HTTP on loopback (server in another process) or the in-process transport (server core in
 * this process). Measures poll discipline from the server's arrival times, completion-observation delay, memory and
 * event-loop delay of this process. FANOUT_CLIENT=peer drives `@modelcontextprotocol/ext-tasks` instead (HTTP only,
 * through bench/lib/peer-host.ts), the way its README says a host should: `session.callTool`, then `settle()`.
 * Ours runs with the undici sender, as the Node entry point installs it.
 */
import { TaskClient } from '../../src/client/task-client.js';
import { StreamableHttpTransport } from '../../src/transport/streamable-http.js';
import { benchCatalog, InMemoryTransport, TaskServerCore } from '../../src/testing/index.js';
import type { Transport } from '../../src/transport/transport.js';
import { report, startServerProcess, type ServerProcess, type TaskTimes } from '../lib/child.js';
import { discipline } from '../lib/discipline.js';
import { envInt, LoopDelay, MemorySampler, retainedHeap, round } from '../lib/measure.js';
import { lifetimes } from '../lib/random.js';
import { createPeerHost, type PeerHost } from '../lib/peer-host.js';
import { percentile } from '../lib/measure.js';
import { createFloor } from '../lib/floor.js';
import { describeOutcome, errorChain } from '../lib/outcome.js';
import { setDefaultHttpSender } from '../../src/transport/http-sender.js';
import { createUndiciSender } from '../../src/transport/undici-sender.js';

setDefaultHttpSender(createUndiciSender);
const side = process.env.FANOUT_CLIENT === 'peer' ? 'peer' : 'ours';
const lags: number[] = [];

const n = envInt('FANOUT_TASKS', 1_000);
const mode = process.env.FANOUT_TRANSPORT === 'memory' ? 'memory' : 'http';
const intervalMs = envInt('FANOUT_INTERVAL_MS', 1_000);
const minLife = Number(process.env.FANOUT_MIN_LIFE ?? 1);
const maxLife = Number(process.env.FANOUT_MAX_LIFE ?? 5);
const serverOptions = { pollIntervalMs: intervalMs, inlineBudgetMs: 0, ttlMs: 3_600_000 };

let server: ServerProcess | undefined;
let core: TaskServerCore | undefined;
let bench: ReturnType<typeof benchCatalog> | undefined;
let transport: Transport;
if (mode === 'http') {
  server = await startServerProcess(serverOptions);
  transport = new StreamableHttpTransport(server.url);
} else {
  bench = benchCatalog();
  core = new TaskServerCore({ ...serverOptions, catalog: bench.catalog });
  transport = new InMemoryTransport(core);
}
const push = process.env.FANOUT_PUSH === '1';
// With push: each subscriptions/listen's wait for its acknowledgement, and when each task id was first acknowledged
// (coverage: from the task's creation to its id on an acknowledged stream).
const ackWaitMs: number[] = [];
const firstAckAt = new Map<string, number>();
if (push) {
  const request = transport.request.bind(transport);
  transport.request = (message, options) => {
    if (message.method !== 'subscriptions/listen') return request(message, options);
    const sentAt = Date.now();
    return request(message, {
      ...options,
      onNotification: (notification) => {
        if (notification.method === 'notifications/subscriptions/acknowledged') {
          const now = Date.now();
          ackWaitMs.push(now - sentAt);
          const ids =
            (notification.params as { notifications?: { taskIds?: string[] } } | undefined)?.notifications
              ?.taskIds ?? [];
          for (const id of ids) if (!firstAckAt.has(id)) firstAckAt.set(id, now);
        }
        options?.onNotification?.(notification);
      },
    });
  };
}
// Scheduler lag, seen at the transport: how late each tasks/get leaves past the latest time the scheduler could have
// planned it (the last answer about the task + the interval + the most jitter, 5 % of it and at most 1 s).
const lastAnswerAt = new Map<string, number>();
const latestDueMs = intervalMs + Math.min(intervalMs * 0.05, 1_000);
{
  const request = transport.request.bind(transport);
  transport.request = async (message, options) => {
    const params = message.params as { taskId?: string } | undefined;
    if (message.method === 'tasks/get' && params?.taskId !== undefined) {
      const last = lastAnswerAt.get(params.taskId);
      if (last !== undefined) lags.push(Math.max(0, Date.now() - (last + latestDueMs)));
    }
    const reply = await request(message, options);
    const result = reply as { taskId?: unknown; task?: { taskId?: unknown } };
    const taskId = params?.taskId ?? result.task?.taskId ?? result.taskId;
    if (typeof taskId === 'string') lastAnswerAt.set(taskId, Date.now());
    return reply;
  };
}
const client = new TaskClient({ transport, polling: { mode: push ? 'push' : 'auto' } });
// The loopback round trip (bare undici POST of an inline echo), the reference of the push delay target.
const floor = server ? createFloor(server.url) : undefined;
const loopbackRoundTripMs = floor ? await floor.roundTrip(100) : null;
await floor?.close();
/** Tasks that did not end `completed` on the client: what the client reported (message and cause chain). */
const failures: Array<Record<string, unknown>> = [];
const peer: PeerHost | undefined = side === 'peer' && server ? await createPeerHost(server.url) : undefined;
// Warm the code paths (JIT, sockets) before measuring; these tasks are not counted.
await Promise.all(Array.from({ length: 20 }, () => client.callTool('echo', { text: 'warm-up' })));
if (peer)
  await Promise.all(
    Array.from({ length: 20 }, async () =>
      (await peer.session.callTool('echo', { text: 'warm-up' })).settle(),
    ),
  );
server?.reset();
core?.stats.reset();

const life = lifetimes(n, minLife * intervalMs, maxLife * intervalMs, 0x5eed + n);
const baseHeap = await retainedHeap();
const baseRss = process.memoryUsage().rss;
const loop = new LoopDelay();
const memory = new MemorySampler();
const taskIds: string[] = new Array(n);
const receivedAt: number[] = new Array(n);
const resolvedAt: number[] = new Array(n);
let created = 0;
let allCreated!: () => void;
const creation = new Promise<void>((resolve) => (allCreated = resolve));
const started = Date.now();
const cpu0 = process.cpuUsage();
// Creations are started through a window of FANOUT_WINDOW calls in flight (a host starting work as it comes, and
// what a connection pool would allow); every task stays outstanding until it completes, so all N overlap.
const windowSize = envInt('FANOUT_WINDOW', 100);
const calls: Array<Promise<void>> = new Array(n);
let slots = windowSize;
let waiting: (() => void) | undefined;
const launch = async (): Promise<void> => {
  for (let i = 0; i < n; i++) {
    if (slots === 0) await new Promise<void>((resolve) => (waiting = resolve));
    slots--;
    const ms = life[i] as number;
    if (peer) {
      calls[i] = peer.session.callTool('sleep_ms', { ms, key: `k${i}` }).then(async (execution) => {
        taskIds[i] = execution.kind === 'task' ? execution.handle.taskId : '';
        receivedAt[i] = Date.now();
        slots++;
        waiting?.();
        waiting = undefined;
        if (++created === n) allCreated();
        const { outcome } = await execution.settle();
        if (outcome.status === 'completed') resolvedAt[i] = Date.now();
        else failures.push(describeOutcome(i, taskIds[i], outcome));
      });
      continue;
    }
    calls[i] = client
      .callTool(
        'sleep_ms',
        { ms, key: `k${i}` },
        {
          onTask: (h) => {
            taskIds[i] = h.taskId;
            receivedAt[i] = h.localCreatedAt;
            slots++;
            waiting?.();
            waiting = undefined;
            if (++created === n) allCreated();
          },
        },
      )
      .then(
        () => {
          resolvedAt[i] = Date.now();
        },
        (error: unknown) => {
          failures.push({ index: i, taskId: taskIds[i], status: 'rejected', ...errorChain(error) });
        },
      );
  }
};
await launch();
await Promise.race([creation, Promise.all(calls)]);
const creationMs = Date.now() - started;
const creationLoop = loop.summary();
const creationCpu = process.cpuUsage(cpu0);
loop.pause();
const heapAllOutstanding = await retainedHeap();
loop.reset();
loop.resume();
const cpu1 = process.cpuUsage();
await Promise.all(calls);
const totalMs = Date.now() - started;
const pollingCpu = process.cpuUsage(cpu1);
memory.stop();
loop.stop();

const keyed = taskIds.map((taskId, i) => ({ taskId, key: `k${i}` }));
let times: TaskTimes[];
let counts: Record<string, number>;
if (server) {
  ({ tasks: times, counts } = await server.collect(keyed));
  await server.close();
} else {
  const c = core as TaskServerCore;
  times = keyed.map(({ taskId, key }) => ({
    taskId,
    createdAtMs: c.registry.get(taskId)?.createdAtMs ?? Number.NaN,
    completedAtMs: bench?.completions.get(key)?.completedAt ?? Number.NaN,
    gets: c.stats.taskGetTimes(taskId),
  }));
  counts = c.stats.counts();
  c.close();
}
await client.close();
await peer?.close();

const coverageMs = push
  ? taskIds
      .map((id, i) => (firstAckAt.get(id) ?? Number.NaN) - (receivedAt[i] ?? Number.NaN))
      .filter((ms) => Number.isFinite(ms))
  : [];
const dist = (values: number[]) => ({
  count: values.length,
  p50: round(percentile(values, 50), 0),
  p99: round(percentile(values, 99), 0),
  max: round(Math.max(0, ...values), 0),
});
const kb = (bytes: number): number => round(bytes / 1024 / n, 2);
const polls = counts['tasks/get'] ?? 0;
const pollingCpuMs = (pollingCpu.user + pollingCpu.system) / 1e3;
report({
  phase: 'fanout',
  client: side,
  push,
  transport: mode,
  intervalMs,
  lifetimeIntervals: [minLife, maxLife],
  creationWindow: windowSize,
  creationMs,
  totalMs,
  tasksGetTotal: counts['tasks/get'] ?? 0,
  ...discipline(
    times.map((t, i) => ({
      ...t,
      receivedAtMs: receivedAt[i] ?? Number.NaN,
      resolvedAtMs: resolvedAt[i] ?? Number.NaN,
    })),
    intervalMs,
  ),
  // Per 1,000 polls (null without any poll: push alone) and per task (comparable with and without push).
  cpuMsPer1000Polls: polls > 0 ? round((pollingCpuMs / polls) * 1000, 1) : null,
  cpuMsPerTask: round(pollingCpuMs / n, 3),
  listenRequests: counts['subscriptions/listen'] ?? 0,
  listenAckWaitMs: push ? dist(ackWaitMs) : null,
  coverageMs: push ? { ...dist(coverageMs), neverCovered: n - coverageMs.length } : null,
  loopbackRoundTripMs,
  failures: failures.slice(0, 20),
  failureCount: failures.length,
  schedulerLagMs:
    side === 'ours'
      ? {
          p50: round(percentile(lags, 50), 1),
          p99: round(percentile(lags, 99), 1),
          max: round(Math.max(0, ...lags), 1),
        }
      : null,
  cpuMs: {
    creation: round((creationCpu.user + creationCpu.system) / 1e3, 0),
    polling: round((pollingCpu.user + pollingCpu.system) / 1e3, 0),
  },
  heapPerTaskKb: {
    retainedAllOutstanding: kb(heapAllOutstanding - baseHeap),
    peakSampled: kb(memory.peakHeap - baseHeap),
  },
  rssPerTaskKb: kb(memory.peakRss - baseRss),
  peakRssMb: round(memory.peakRss / 2 ** 20, 1),
  eventLoop: { creation: creationLoop, polling: loop.summary() },
  serverInProcess: mode === 'memory',
});
