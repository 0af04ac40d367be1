/**
 * One lease mechanism for every shared store: the file store (lock files) and the Redis store (a fenced hash) both
 * give the client's engine the same `TaskStore.leases` (acquire, renew, release), and the engine follows a task
 * through it the same way. A second process (another TaskClient on its own store instance) that wants a task held
 * elsewhere is refused with TaskFollowedElsewhereError naming the holder and sends nothing; once the holder's lease
 * lapses (a crashed holder never renews it) it takes the task over (ext-tasks § Task Polling: one follower polls).
 * The in-memory store is one process's alone: it has no leases, and the engine's follower registry is enough there.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTaskStore } from '../../src/file-store.js';
import {
  MemoryTaskStore,
  StreamableHttpTransport,
  TaskClient,
  TaskFollowedElsewhereError,
  type TaskStore,
} from '../../src/node.js';
import type { TaskLeases } from '../../src/store/task-store.js';
import { RedisTaskStore } from '../../src/redis-store.js';
import { benchCatalog, createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

const POLL_MS = 50;
let server: TaskServer;
let redis: RedisServer;
const cleanups: Array<() => Promise<unknown> | unknown> = [];

beforeAll(async () => {
  server = await createTaskServer({
    inlineBudgetMs: 0,
    pollIntervalMs: POLL_MS,
    catalog: benchCatalog().catalog,
  });
  redis = await startRedis();
});
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await server.close();
  await redis.close();
});

/** A shared place (a directory, a Redis prefix) and a way to open it as one more process's store. */
interface Kind {
  name: string;
  place(): Promise<(owner: string, leaseMs: number) => Promise<TaskStore & { leases: TaskLeases }>>;
}

const KINDS: Kind[] = [
  {
    name: 'FileTaskStore',
    async place() {
      const dir = await mkdtemp(join(tmpdir(), 'one-lease-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      return async (_owner, leaseMs) => new FileTaskStore(dir, { leaseMs });
    },
  },
  {
    name: 'RedisTaskStore',
    async place() {
      const prefix = `one-lease-${randomUUID()}`;
      return async (owner, leaseMs) => {
        const connection = createClient({ url: redis.url });
        await connection.connect();
        cleanups.push(() => connection.destroy());
        return new RedisTaskStore({ client: connection, prefix, leaseMs, workerId: owner });
      };
    },
  },
];

function clientOn(store: TaskStore): TaskClient {
  const client = new TaskClient({ transport: new StreamableHttpTransport(server.url), store });
  client.on('warning', () => undefined);
  cleanups.push(() => client.close());
  return client;
}

describe.each(KINDS)('one lease mechanism: $name', (kind) => {
  it('a second process is refused naming the holder, sends nothing, and takes over once the lease lapses', async () => {
    const open = await kind.place();
    const a = clientOn(await open('holder-a', 2_000));
    const bStore = await open('follower-b', 2_000);
    const acquired: string[] = [];
    const acquire = bStore.leases.acquire.bind(bStore.leases);
    bStore.leases.acquire = (srv, id) => (acquired.push(id), acquire(srv, id)); // the one interface the engine takes
    const b = clientOn(bStore);
    const start = await a.startTool('sleep_ms', { ms: 1_200 }, { onAbort: 'detach' });
    if (start.resultType !== 'task') throw new Error('expected a task');
    const taskId = start.task.taskId;
    while (server.stats.taskGetTimes(taskId).length === 0) await new Promise((r) => setTimeout(r, 10));

    // Held by a: b is told who follows it.
    const refused = await b.task(taskId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TaskFollowedElsewhereError);
    expect(refused).toMatchObject({ code: 'TASK_FOLLOWED_ELSEWHERE', taskId });
    const holderA = (refused as TaskFollowedElsewhereError).holder;
    if (kind.name === 'RedisTaskStore') expect(holderA).toBe('holder-a');
    else expect(holderA).toMatch(new RegExp(`:${process.pid}:`));
    expect(acquired).toEqual([taskId]);

    // a closes (its lease released), then a process that dies takes the lease and never renews it.
    await a.close();
    const crashedStore = await open('crashed-c', 300);
    const taken = await crashedStore.leases.acquire(
      new StreamableHttpTransport(server.url).serverKey,
      taskId,
    );
    if (!('lease' in taken)) throw new Error(`expected the lease, held by ${taken.holder}`);
    const before = server.stats.taskGetTimes(taskId).length; // nobody polls now: a closed, c never will
    const refusedAgain = await b.task(taskId).catch((error: unknown) => error);
    expect(refusedAgain).toMatchObject({ code: 'TASK_FOLLOWED_ELSEWHERE', holder: taken.lease.owner });
    expect(server.stats.taskGetTimes(taskId)).toHaveLength(before); // b sent nothing

    // The dead holder's lease lapses: b takes the task over through the same lease interface, and finishes it.
    await new Promise((r) => setTimeout(r, 350));
    const handle = await b.task(taskId);
    await expect(handle.result()).resolves.toMatchObject({ structuredContent: { ms: 1_200 } });
    expect(acquired).toEqual([taskId, taskId, taskId]);
    const times = server.stats.taskGetTimes(taskId);
    expect(times.slice(1).filter((t, i) => t - (times[i] ?? 0) < POLL_MS - 1)).toEqual([]);
  });
});

describe('the in-memory store', () => {
  it('has no leases: one process, whose engine shares one follower per task', () => {
    expect((new MemoryTaskStore() as TaskStore).leases).toBeUndefined();
  });
});
