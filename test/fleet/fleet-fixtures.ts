/**
 * Shared pieces of the fleet tests: a real redis-server, the reference server on loopback HTTP, and workers (a
 * TaskClient on a RedisTaskStore each, with its own Redis connection).
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { StreamableHttpTransport, TaskClient } from '../../src/node.js'; // undici underneath, as in Node
import { RedisTaskStore } from '../../src/redis-store.js';
import {
  benchCatalog,
  createTaskServer,
  type TaskServer,
  type TaskServerOptions,
} from '../../src/testing/index.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

export interface Worker {
  id: string;
  client: TaskClient;
  store: RedisTaskStore;
  close(): Promise<void>;
}

export interface FleetEnv {
  redis: RedisServer;
  server: TaskServer;
  prefix: string;
  worker(id: string, options?: { leaseMs?: number }): Promise<Worker>;
  close(): Promise<void>;
}

/** Redis + reference server (with `sleep_ms`), and a factory of workers sharing one fleet prefix. */
export async function fleetEnv(options: {
  leaseMs: number;
  server?: TaskServerOptions;
  persistence?: boolean;
}): Promise<FleetEnv> {
  const redis = await startRedis({ persistence: options.persistence ?? false });
  const server = await createTaskServer({
    inlineBudgetMs: 0,
    ...options.server,
    catalog: { ...benchCatalog().catalog, ...options.server?.catalog },
  });
  const prefix = `fleet-${randomUUID().slice(0, 8)}`;
  const workers: Worker[] = [];
  return {
    redis,
    server,
    prefix,
    async worker(id, o = {}) {
      const connection = createClient({
        url: redis.url,
        socket: { reconnectStrategy: (n: number) => Math.min(50 * n, 500) },
      });
      connection.on('error', () => undefined);
      await connection.connect();
      const store = new RedisTaskStore({
        client: connection,
        prefix,
        leaseMs: o.leaseMs ?? options.leaseMs,
        workerId: id,
      });
      const client = new TaskClient({
        transport: new StreamableHttpTransport(server.url),
        store,
      });
      const worker: Worker = {
        id,
        client,
        store,
        close: async () => {
          await client.close();
          connection.destroy();
        },
      };
      workers.push(worker);
      return worker;
    },
    async close() {
      await Promise.all(workers.map((w) => w.close().catch(() => undefined)));
      await server.close();
      await redis.close();
    },
  };
}

/** Resolves once `check()` is true, checking every `everyMs` (real time; for multi-process tests, not assertions). */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
  everyMs = 20,
): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Gaps between consecutive `tasks/get` arrivals of a task shorter than `floorMs` (server clock). */
export function earlyPolls(times: number[], floorMs: number): number {
  let early = 0;
  for (let i = 1; i < times.length; i++) if ((times[i] ?? 0) - (times[i - 1] ?? 0) < floorMs - 1) early++;
  return early;
}

/** Outcome entries on the fleet's stream, by task id. */
export async function outcomeCounts(redisUrl: string, prefix: string): Promise<Map<string, number>> {
  const c = createClient({ url: redisUrl });
  await c.connect();
  try {
    const entries = (await c.sendCommand(['XRANGE', `${prefix}:events`, '-', '+'])) as Array<
      [string, string[]]
    >;
    const counts = new Map<string, number>();
    for (const [, fields] of entries) {
      const f: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
      if (f.type === 'outcome') counts.set(f.taskId!, (counts.get(f.taskId!) ?? 0) + 1);
    }
    return counts;
  } finally {
    await c.close();
  }
}
