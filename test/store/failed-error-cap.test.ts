/**
 * A task that fails with an enormous JSON-RPC error (a 2,000,000-character message, 4 MB of data, an extra member):
 * the caller's `TaskFailedError.error` is the error exactly as the server sent it, while the task record in the
 * store (FileTaskStore, RedisTaskStore) keeps the code, the head of the message and of the data's JSON, each cut
 * marked, in kilobytes. Real HTTP on loopback (a hostile server of our own), real files, real redis-server.
 * CLIENT-REQUIREMENTS: hostile server input, durable records.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { FileTaskStore } from '../../src/file-store.js';
import { StreamableHttpTransport, TaskClient, TaskFailedError, type TaskStore } from '../../src/node.js';
import { RedisTaskStore } from '../../src/redis-store.js';
import {
  MAX_STORED_ERROR_DATA_CHARS,
  MAX_STORED_ERROR_MESSAGE_CHARS,
  storedTaskError,
} from '../../src/store/task-record.js';
import { startHostile, wireTask, type HostileServer } from '../faults/hostile3-server.js';
import { startRedis } from '../helpers/redis-server.js';

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const HUGE_MESSAGE = `disk full${'!'.repeat(2_000_000)}`;
const HUGE_DATA = { log: 'x'.repeat(4_000_000), step: 7 };
const HUGE_ERROR = { code: -32000, message: HUGE_MESSAGE, data: HUGE_DATA, extra: 'y'.repeat(100_000) };

const stores: Array<[string, () => Promise<TaskStore>]> = [
  [
    'FileTaskStore',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'failed-error-cap-'));
      cleanup.push(() => rm(dir, { recursive: true, force: true }));
      return new FileTaskStore(dir);
    },
  ],
  [
    'RedisTaskStore',
    async () => {
      const redis = await startRedis({ persistence: false });
      cleanup.push(() => redis.close());
      const connection = createClient({ url: redis.url });
      connection.on('error', () => undefined);
      await connection.connect();
      cleanup.push(() => connection.destroy());
      return new RedisTaskStore({ client: connection, prefix: 'cap', leaseMs: 60_000, workerId: 'w' });
    },
  ],
];

describe.each(stores)('a huge failed-task error in a %s record', (_name, makeStore) => {
  it('the caller gets it whole; the record keeps its code and the marked heads of message and data', async () => {
    const store = await makeStore();
    const hostile: HostileServer = await startHostile();
    const client = new TaskClient({
      transport: new StreamableHttpTransport(hostile.url),
      store,
      era: 'modern',
    });
    cleanup.push(() => hostile.close(client));
    const taskId = 'task-huge-error';
    hostile.auto = (held) => {
      if (held.method === 'tools/call') {
        held.result({ resultType: 'task', ...wireTask(taskId, { status: 'failed', error: HUGE_ERROR }) });
        return true;
      }
      if (held.method === 'tasks/get') {
        held.result({ resultType: 'complete', ...wireTask(taskId, { status: 'failed', error: HUGE_ERROR }) });
        return true;
      }
      return undefined;
    };
    const error = await client.callTool('deploy', {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TaskFailedError);
    expect((error as TaskFailedError).error).toEqual(HUGE_ERROR); // as the server sent it

    const record = await store.get(taskId, hostile.url);
    const stored = {
      code: -32000,
      message: `${HUGE_MESSAGE.slice(0, MAX_STORED_ERROR_MESSAGE_CHARS)}… [truncated: the server's message was ${HUGE_MESSAGE.length} characters; the first 4096 are stored]`,
      data: `${JSON.stringify(HUGE_DATA).slice(0, MAX_STORED_ERROR_DATA_CHARS)}… [truncated: the server's data was ${JSON.stringify(HUGE_DATA).length} characters of JSON; the first 16384 are stored]`,
    };
    expect(record?.outcome).toEqual({ status: 'failed', error: stored });
    expect(record?.task?.status === 'failed' && record.task.error).toEqual(stored);
    expect(JSON.stringify(record).length).toBeLessThan(50_000);
  }, 30_000);
});

describe('storedTaskError', () => {
  it.each([
    [
      'a small error is kept exactly, extra members too',
      { code: 1, message: 'no', data: { a: 1 }, x: 2 },
      { code: 1, message: 'no', data: { a: 1 }, x: 2 },
    ],
    [
      'a long message alone is cut; small data kept as its JSON text',
      { code: 2, message: 'm'.repeat(40_000), data: [1] },
      {
        code: 2,
        message: `${'m'.repeat(4_096)}… [truncated: the server's message was 40000 characters; the first 4096 are stored]`,
        data: '[1]',
      },
    ],
    [
      'a cut never splits a surrogate pair',
      { code: 3, message: `${'m'.repeat(4_095)}😀${'n'.repeat(40_000)}` },
      {
        code: 3,
        message: `${'m'.repeat(4_095)}… [truncated: the server's message was 44097 characters; the first 4095 are stored]`,
      },
    ],
  ])('%s', (_what, error, stored) => {
    expect(storedTaskError(error)).toEqual(stored);
  });
});
