/**
 * What the client writes to its store and when: the record exists before the first poll, follows status
 * changes and answers, keeps only what `redactParams` allows, and ends with the outcome. Resume in one process:
 * `resume(taskId)` of a task that finished while nobody watched, of a stored outcome, and of an unknown id.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  MemoryTaskStore,
  StreamableHttpTransport,
  TaskClient,
  TaskNotFoundError,
  type TaskClientOptions,
  type TaskRecord,
  type TaskStore,
} from '../../src/index.js';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { textOf } from './fixtures.js';
import '../helpers/no-jitter.js';

let server: TaskServer;
const clients: TaskClient[] = [];

function newClient(options: Partial<TaskClientOptions> = {}): TaskClient {
  const client = new TaskClient({
    transport: new StreamableHttpTransport(server.url),
    ...options,
  });
  clients.push(client);
  return client;
}

/** A store that logs each write with the time it was made. */
function loggingStore(): TaskStore & { puts: Array<{ at: number; record: TaskRecord }> } {
  const inner = new MemoryTaskStore();
  const puts: Array<{ at: number; record: TaskRecord }> = [];
  return {
    puts,
    put: async (record) => {
      puts.push({ at: Date.now(), record: structuredClone(record) });
      await inner.put(record);
    },
    get: (id, s) => inner.get(id, s),
    list: () => inner.list(),
    delete: (id, s) => inner.delete(id, s),
    prune: (now) => inner.prune(now),
  };
}

beforeAll(async () => {
  server = await createTaskServer({ pollIntervalMs: 50, ttlMs: 60_000, inlineBudgetMs: 20, timeScale: 0.5 });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await server.close();
});

describe('task records', () => {
  it('is written before the first poll, follows status and answers, and ends with the outcome', async () => {
    const store = loggingStore();
    const client = newClient({
      store,
      handlers: { elicitation: () => ({ action: 'accept', content: { confirm: true } }) },
    });
    let taskId = '';
    const result = await client.callTool(
      'deploy_release',
      { version: '9.9.9' },
      { idempotencyKey: 'deploy-999', onTask: (h) => (taskId = h.taskId) },
    );
    expect(textOf(result)).toBe('deployed 9.9.9');

    const firstGet = server.stats.taskGetTimes(taskId)[0]!;
    const writes = store.puts.filter((p) => p.record.taskId === taskId);
    expect(writes[0]!.at).toBeLessThanOrEqual(firstGet);
    expect(writes[0]!.record).toMatchObject({
      server: server.url,
      method: 'tools/call',
      name: 'deploy_release',
      taskId,
      idempotencyKey: 'deploy-999',
      status: 'working',
      answeredKeys: [],
      ttlMs: 60_000,
      pollIntervalMs: 50,
    });
    expect(writes.map((w) => w.record.status)).toContain('input_required');
    await expect.poll(async () => (await store.get(taskId))?.outcome?.status).toBe('completed');
    const last = (await store.get(taskId))!;
    expect(last).toMatchObject({ status: 'completed', answeredKeys: ['confirm'] });
    expect(
      textOf(
        last.outcome!.status === 'completed' ? (last.outcome!.result as { content: [] }) : { content: [] },
      ),
    ).toBe('deployed 9.9.9');
    // The answer was recorded only after the server acknowledged it.
    const answeredAt = writes.find((w) => w.record.answeredKeys.includes('confirm'))!.at;
    expect(answeredAt).toBeGreaterThanOrEqual(server.stats.taskUpdates(taskId)[0]!.at);
  });

  it('stores argument names only by default, and what redactParams returns otherwise', async () => {
    const plain = new MemoryTaskStore();
    const a = newClient({ store: plain });
    await a.callTool('reindex_corpus', { documents: 200, api_token: 'sk-SECRET' });
    const [stored] = await plain.list();
    expect(JSON.stringify(stored)).not.toContain('sk-SECRET');
    expect(stored!.params).toEqual({ argumentKeys: ['api_token', 'documents'] });

    const custom = new MemoryTaskStore();
    const seen: Array<[string, Record<string, unknown>]> = [];
    const b = newClient({
      store: custom,
      redactParams: (method, params) => {
        seen.push([method, params]);
        return { documents: (params.arguments as { documents: number }).documents };
      },
    });
    await b.callTool('reindex_corpus', { documents: 200, api_token: 'sk-SECRET' });
    const [customRecord] = await custom.list();
    expect(customRecord!.params).toEqual({ documents: 200 });
    expect(seen[0]![0]).toBe('tools/call');
    expect(seen[0]![1]).not.toHaveProperty('_meta');
  });

  it('resume(taskId) of a task that finished while nobody watched: the result, and the outcome stored', async () => {
    const { store, taskId, second } = await finishedWhileNobodyWatched();
    const handle = await second.resume(taskId);
    expect(textOf(await handle.result())).toBe('Indexed 100 documents');
    await expect.poll(async () => (await store.get(taskId))?.outcome?.status).toBe('completed');
  });

  it('resume(taskId) of a task that finished while nobody watched: the record status says completed', async () => {
    const { store, taskId, second } = await finishedWhileNobodyWatched();
    const handle = await second.resume(taskId);
    await handle.result();
    await expect.poll(async () => (await store.get(taskId))?.outcome?.status).toBe('completed');
    expect((await store.get(taskId))?.status).toBe('completed');
  });

  async function finishedWhileNobodyWatched(): Promise<{
    store: MemoryTaskStore;
    taskId: string;
    second: TaskClient;
  }> {
    const store = new MemoryTaskStore();
    const first = newClient({ store });
    const start = await first.startTool('reindex_corpus', { documents: 100 }); // ≈ 100 ms at timeScale 0.5
    if (start.resultType !== 'task') throw new Error('expected a task');
    const taskId = start.task.taskId;
    await first.close(); // the "crash": nobody polls any more
    // A wait (not a measure) until the server finished the task on its own.
    await expect
      .poll(() => server.core.registry.get(taskId)?.run.status, { timeout: 10_000 })
      .toBe('completed');
    expect((await store.get(taskId))?.outcome).toBeUndefined();
    return { store, taskId, second: newClient({ store }) };
  }

  it('resume(taskId) of a stored outcome answers from the store without asking the server', async () => {
    const store = new MemoryTaskStore();
    const client = newClient({ store });
    let taskId = '';
    await client.callTool('reindex_corpus', { documents: 100 }, { onTask: (h) => (taskId = h.taskId) });
    await expect.poll(async () => (await store.get(taskId))?.outcome?.status).toBe('completed');
    const gets = server.stats.taskGetTimes(taskId).length;
    const handle = await newClient({ store }).resume(taskId);
    expect(textOf(await handle.result())).toBe('Indexed 100 documents');
    expect(server.stats.taskGetTimes(taskId)).toHaveLength(gets);
    expect(await newClient({ store }).resumeAll()).toEqual([]); // terminal records are not re-attached
  });

  it('resume(taskId) of an id the store does not hold rejects with TaskNotFoundError', async () => {
    const client = newClient({ store: new MemoryTaskStore() });
    await expect(client.resume('no-such-task')).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});
