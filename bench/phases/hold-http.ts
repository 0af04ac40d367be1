/**
 * Phase "hold-http": HOLD_TASKS idle tasks held over HTTP on loopback by one client, the reference server in its own
 * process (so every byte measured here is the client's). HOLD_CLIENT=ours (TaskClient, undici sender, `callTool`
 * with a promise per task) or peer (`@modelcontextprotocol/ext-tasks`: `session.callTool`, then `settle()` per
 * execution, as its README says; the host of bench/lib/peer-host.ts). Every task sleeps a day and the server's
 * interval is HOLD_INTERVAL_MS (longer than the run), so the tasks are held, scheduled and idle.
 *
 * Heap per task = (heap after a full GC with all N held − heap before) ÷ N, and the same after closing the client
 * and dropping every reference (what is left is not the tasks'). Both sides open up to HOLD_CONCURRENCY keep-alive
 * sockets while creating (ours: at most 16 per origin, the undici pool; the peer: the global fetch pool).
 */
// The built Node entry (undici sender installed), as users run it; see bench/phases/hold.ts on why not the sources.
import { StreamableHttpTransport, TaskClient } from '../../dist/node.js';
import { report, startServerProcess } from '../lib/child.js';
import { envInt, retainedHeap, round, sleep } from '../lib/measure.js';
import { createPeerHost, type PeerHost } from '../lib/peer-host.js';

const n = envInt('HOLD_TASKS', 10_000);
const intervalMs = envInt('HOLD_INTERVAL_MS', 600_000);
const window = envInt('HOLD_CONCURRENCY', 100);
const side = process.env.HOLD_CLIENT === 'peer' ? 'peer' : 'ours';

const server = await startServerProcess({ pollIntervalMs: intervalMs, inlineBudgetMs: 0, ttlMs: null });
let client: TaskClient | undefined;
let peer: PeerHost | undefined;
if (side === 'peer') peer = await createPeerHost(server.url);
else client = new TaskClient({ transport: new StreamableHttpTransport(server.url) });
// Warm-up (JIT, sockets, the session's tool list), not counted.
for (let i = 0; i < 20; i++) {
  if (peer) await (await peer.session.callTool('echo', { text: 'warm-up' })).settle();
  else await client?.callTool('echo', { text: 'warm-up' });
}

const heapBase = await retainedHeap();
let held: Array<Promise<unknown>> | undefined = [];
const started = Date.now();
let next = 0;
const worker = async (): Promise<void> => {
  while (next < n) {
    next++;
    if (peer) {
      const execution = await peer.session.callTool('sleep_ms', { ms: 86_400_000 });
      const settled = execution.settle();
      settled.catch(() => undefined);
      held?.push(settled);
    } else {
      await new Promise<void>((resolve, reject) => {
        const call = (client as TaskClient).callTool(
          'sleep_ms',
          { ms: 86_400_000 },
          { onTask: () => resolve() },
        );
        call.catch(reject);
        held?.push(call);
      });
    }
  }
};
await Promise.all(Array.from({ length: window }, worker));
const creationMs = Date.now() - started;
await sleep(1_000); // let creation tails (sockets, timers of the first poll) settle
const heapAll = await retainedHeap();
const { counts } = await server.collect([]);

// Drop the client and everything it holds (its tasks stay on the server).
if (peer) await peer.close();
else await client?.close();
peer = undefined;
client = undefined;
held = undefined;
const heapAfterClose = await retainedHeap();
await server.close();

const kb = (bytes: number): number => round(bytes / 1024 / n, 3);
report({
  phase: 'hold-http',
  client: side,
  tasks: n,
  intervalMs,
  creationWindow: window,
  creationMs,
  tasksCreatedOnServer: counts['tasks created'] ?? null,
  tasksGetDuringHold: counts['tasks/get'] ?? 0,
  heapPerTaskKb: {
    held: kb(heapAll - heapBase),
    afterClose: kb(heapAfterClose - heapBase),
    clientOnly: kb(heapAll - heapAfterClose),
  },
});
