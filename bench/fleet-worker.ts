/**
 * One worker of the fleet phase (bench/phases/fleet.ts), in its own process: creates its share of the tasks through
 * `fleet.startTool` (each key is also re-sent by the next worker, racing on purpose), then follows whatever it claims.
 * Options as JSON in argv[2]; reports claims and progress over IPC.
 */
import { createClient } from 'redis';
import { StreamableHttpTransport, TaskClient } from '../src/node.js'; // undici underneath, as in Node
import { RedisTaskStore } from '../src/redis-store.js';

interface WorkerOptions {
  redisUrl: string;
  prefix: string;
  serverUrl: string;
  id: string;
  index: number;
  workers: number;
  leaseMs: number;
  claimIntervalMs: number;
  lifetimes: number[];
  window: number;
}
const o = JSON.parse(process.argv[2] ?? '{}') as WorkerOptions;
const send = (message: Record<string, unknown>): void => void process.send?.(message);

const redis = createClient({
  url: o.redisUrl,
  socket: { reconnectStrategy: (n: number) => Math.min(50 * n, 500) },
});
redis.on('error', () => undefined);
await redis.connect();
const store = new RedisTaskStore({
  client: redis,
  prefix: o.prefix,
  leaseMs: o.leaseMs,
  workerId: o.id,
  maxStreamLength: 1_000_000,
});
// Polls must not wait for a connection after their fence (docs/fleet.md): as many connections as concurrent polls,
// plus the creation window.
const transport = new StreamableHttpTransport(o.serverUrl, { maxConnectionsPerOrigin: 64 + o.window });
const client = new TaskClient({ transport, store, limits: { maxConcurrentPolls: 64 } });
client.on('warning', () => undefined);
const fleet = client.runFleet({ claimIntervalMs: o.claimIntervalMs, maxTasks: 100_000 });
fleet.on('claimed', (c) =>
  send({
    type: 'claimed',
    taskId: c.taskId,
    previousOwner: c.previousOwner ?? null,
    lateMs: c.lateMs ?? null,
    at: Date.now(),
  }),
);
let errors = 0;
fleet.on('error', () => void errors++);
// Round trips to Redis this worker made so far (a script counts as one), reported every second: the killed worker's
// last report stands for its total.
setInterval(() => send({ type: 'stats', commands: store.commandCount, errors }), 1_000).unref();

// Keys this worker owns, and the next worker's keys re-sent (a racing duplicate creation per key).
const mine: number[] = [];
for (let i = 0; i < o.lifetimes.length; i++) {
  const owner = i % o.workers;
  if (owner === o.index || (owner + 1) % o.workers === o.index) mine.push(i);
}
let next = 0;
const created: Array<{ key: string; taskId: string }> = [];
const creation = {
  ms: 0,
  wonMs: 0,
  won: 0,
  lostMs: 0,
  lost: 0,
  commands0: store.commandCount,
  startedAt: Date.now(),
};
await Promise.all(
  Array.from({ length: o.window }, async () => {
    while (next < mine.length) {
      const i = mine[next++] as number;
      const key = `k${i}`;
      // Redis or the server may time out on a loaded machine: the key makes a re-send safe.
      for (let attempt = 1; ; attempt++) {
        try {
          const t0 = performance.now();
          const start = await fleet.startTool(
            'sleep_ms',
            { ms: o.lifetimes[i], key },
            { idempotencyKey: key },
          );
          const took = performance.now() - t0;
          if (start.resultType === 'task') {
            created.push({ key, taskId: start.taskId });
            if (start.created) creation.won++, (creation.wonMs += took);
            else creation.lost++, (creation.lostMs += took);
          }
          break;
        } catch (error) {
          if (attempt >= 10) throw error;
          await new Promise((r) => setTimeout(r, 200 * attempt));
        }
      }
    }
  }),
);
creation.ms = Date.now() - creation.startedAt;
send({
  type: 'created',
  tasks: created,
  creation: { ...creation, commands: store.commandCount - creation.commands0 },
});
process.on('message', (m) => {
  if ((m as { type?: string }).type === 'stop') void fleet.stop().then(() => process.exit(0));
});
