/**
 * One worker of the fleet phase (bench/phases/fleet.ts), in its own process: creates its share of the tasks through
 * `fleet.startTool` (each key is also re-sent by the next worker, racing on purpose), then follows whatever it claims.
 * Options as JSON in argv[2]; reports claims and progress over IPC.
 */
import { createClient } from 'redis';
import { StreamableHttpTransport, TaskClient } from '../src/index.js';
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

const redis = createClient({ url: o.redisUrl, socket: { reconnectStrategy: (n: number) => Math.min(50 * n, 500) } });
redis.on('error', () => undefined);
await redis.connect();
const store = new RedisTaskStore({ client: redis, prefix: o.prefix, leaseMs: o.leaseMs, workerId: o.id, maxStreamLength: 1_000_000 });
const client = new TaskClient({ transport: new StreamableHttpTransport(o.serverUrl), store, workerId: o.id, maxConcurrentPolls: 64 });
client.on('warning', () => undefined);
const fleet = client.runFleet({ claimIntervalMs: o.claimIntervalMs, maxTasks: 100_000 });
fleet.on('claimed', (c) => send({ type: 'claimed', taskId: c.taskId, previousOwner: c.previousOwner ?? null, lateMs: c.lateMs ?? null, at: Date.now() }));
fleet.on('error', () => undefined);

// Keys this worker owns, and the next worker's keys re-sent (a racing duplicate creation per key).
const mine: number[] = [];
for (let i = 0; i < o.lifetimes.length; i++) {
  const owner = i % o.workers;
  if (owner === o.index || (owner + 1) % o.workers === o.index) mine.push(i);
}
let next = 0;
const created: Array<{ key: string; taskId: string }> = [];
await Promise.all(
  Array.from({ length: o.window }, async () => {
    while (next < mine.length) {
      const i = mine[next++] as number;
      const key = `k${i}`;
      // Redis or the server may time out on a loaded machine: the key makes a re-send safe.
      for (let attempt = 1; ; attempt++) {
        try {
          const start = await fleet.startTool('sleep_ms', { ms: o.lifetimes[i], key }, { idempotencyKey: key });
          if (start.resultType === 'task') created.push({ key, taskId: start.taskId });
          break;
        } catch (error) {
          if (attempt >= 10) throw error;
          await new Promise((r) => setTimeout(r, 200 * attempt));
        }
      }
    }
  }),
);
send({ type: 'created', tasks: created });
process.on('message', (m) => {
  if ((m as { type?: string }).type === 'stop') void fleet.stop().then(() => process.exit(0));
});
