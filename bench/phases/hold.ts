/**
 * Phase c: HOLD_TASKS outstanding tasks held by one process over the in-process transport. Every task sleeps far
 * longer than the run, and the server's interval (HOLD_INTERVAL_MS) is long, so the tasks are idle: held, scheduled,
 * not yet polled. Measures retained heap per task after a full GC (client and server together, then the client's
 * share by dropping the client), and event-loop delay while creating them, while they sit idle, and while one
 * round of their polls drains (HOLD_POLL_ROUND=1).
 */
// The built package, as users run it: through tsx, the sources would carry esbuild's `keepNames` wrappers, which give
// every closure its own property store (about 1.5 KB more per held task than the shipped code).
import { TaskClient, type TaskHandle } from '../../dist/index.js';
import { benchCatalog, InMemoryTransport, TaskServerCore } from '../../dist/testing/index.js';
import { report } from '../lib/child.js';
import { envInt, GcPauses, LoopDelay, MemorySampler, retainedHeap, round, sleep } from '../lib/measure.js';

const n = envInt('HOLD_TASKS', 100_000);
const intervalMs = envInt('HOLD_INTERVAL_MS', 60_000);
const idleMs = envInt('HOLD_IDLE_MS', 5_000);
const window = envInt('HOLD_CONCURRENCY', 1_000);
const api = process.env.HOLD_API === 'startTool' ? 'startTool' : 'callTool';

const bench = benchCatalog();
const core = new TaskServerCore({
  pollIntervalMs: intervalMs,
  inlineBudgetMs: 0,
  ttlMs: null,
  catalog: bench.catalog,
});
let client: TaskClient | undefined = new TaskClient({ transport: new InMemoryTransport(core) });
await Promise.all(Array.from({ length: 20 }, () => client?.callTool('echo', { text: 'warm-up' })));

const heapBase = await retainedHeap();
const rssBase = process.memoryUsage().rss;
const memory = new MemorySampler(100);
let loop = new LoopDelay();
let handles: Array<TaskHandle<unknown>> | undefined = [];
let pending: Array<Promise<unknown>> | undefined = [];
const started = Date.now();
// At most `window` creations in flight, like a host starting work as it arrives.
let nextIndex = 0;
const worker = async (): Promise<void> => {
  const c = client as TaskClient;
  while (nextIndex < n) {
    nextIndex++;
    if (api === 'startTool') {
      const start = await c.startTool('sleep_ms', { ms: 86_400_000 });
      if (start.resultType === 'task') handles?.push(start.task as TaskHandle<unknown>);
    } else {
      await new Promise<void>((resolve) => {
        const call = c.callTool('sleep_ms', { ms: 86_400_000 }, { onTask: () => resolve() });
        call.catch(() => undefined);
        pending?.push(call);
      });
    }
  }
};
await Promise.all(Array.from({ length: window }, worker));
const creationMs = Date.now() - started;
const creationLoop = loop.summary();
loop.stop();

const heapAll = await retainedHeap();
loop = new LoopDelay();
const gc = new GcPauses();
await sleep(idleMs);
const idleLoop = loop.summary();
const idleGc = gc.stop();
loop.stop();
const heapAfterIdle = await retainedHeap();

// The client's share: drop the client and everything it holds; the server keeps its tasks running.
await (client as TaskClient).close();
client = undefined;
handles = undefined;
pending = undefined;
const heapServerOnly = await retainedHeap();
memory.stop();
const registrySize = core.registry.size;
core.close();

const kb = (bytes: number): number => round(bytes / 1024 / n, 3);
report({
  phase: 'hold',
  api,
  tasks: n,
  registrySize,
  intervalMs,
  creationMs,
  heapPerTaskKb: {
    clientAndServer: kb(heapAll - heapBase),
    clientOnly: kb(heapAll - heapServerOnly),
    serverOnly: kb(heapServerOnly - heapBase),
    clientAndServerAfterIdle: kb(heapAfterIdle - heapBase),
  },
  rssPerTaskKb: kb(memory.peakRss - rssBase),
  peakRssMb: round(memory.peakRss / 2 ** 20, 1),
  eventLoop: { creation: creationLoop, idle: idleLoop },
  gcDuringIdle: idleGc,
  creationWindow: window,
});
