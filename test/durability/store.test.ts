/**
 * The task store: one contract for MemoryTaskStore and FileTaskStore, then what only
 * the file store does: owner-only permissions, atomic writes, zod validation on read, and corrupt or foreign files
 * reported and skipped.
 */
import { readdir, readFile, stat, writeFile, chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileTaskStore } from '../../src/file-store.js';
import { MemoryTaskStore, type TaskRecord, type TaskStore } from '../../src/index.js';
import { TASK_RECORD_VERSION } from '../../src/store/task-record.js';
import { tempDir } from './fixtures.js';

const NOW = Date.UTC(2026, 7, 1, 9, 0, 0);
const SERVER = 'http://127.0.0.1:3000/mcp';

function record(overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    version: TASK_RECORD_VERSION,
    server: SERVER,
    method: 'tools/call',
    name: 'reindex_corpus',
    params: { argumentKeys: ['documents'] },
    taskId: 'task-1',
    idempotencyKey: 'key-1',
    localCreatedAt: NOW,
    ttlMs: 60_000,
    pollIntervalMs: 250,
    status: 'working',
    statusMessage: 'indexed 10/100',
    answeredKeys: [],
    updatedAt: NOW,
    ...overrides,
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function fileStore(onInvalid?: (file: string, reason: string) => void): Promise<FileTaskStore> {
  const dir = await tempDir('store');
  cleanups.push(dir.remove);
  return new FileTaskStore(join(dir.path, 'tasks'), { onInvalid });
}

const stores: Array<[string, () => Promise<TaskStore>]> = [
  ['MemoryTaskStore', async () => new MemoryTaskStore()],
  ['FileTaskStore', () => fileStore()],
];

describe.each(stores)('TaskStore contract: %s', (name, make) => {
  it('puts, gets (with and without server), lists and deletes', async () => {
    const store = await make();
    expect(await store.list()).toEqual([]);
    expect(await store.get('task-1')).toBeUndefined();
    const r = record();
    await store.put(r);
    expect(await store.get('task-1')).toEqual(r);
    expect(await store.get('task-1', SERVER)).toEqual(r);
    expect(await store.get('task-1', 'http://127.0.0.1:9/mcp')).toBeUndefined();
    expect(await store.list()).toEqual([r]);
    await store.delete('task-1');
    expect(await store.list()).toEqual([]);
    await store.delete('task-1'); // absent: no error
  });

  it('replaces a record on put and keeps every field, outcome included', async () => {
    const store = await make();
    await store.put(record());
    const done = record({
      status: 'completed',
      answeredKeys: ['confirm'],
      outcome: { status: 'completed', result: { content: [] } },
      updatedAt: NOW + 5,
    });
    await store.put(done);
    expect(await store.list()).toEqual([done]);
  });

  it('keeps the same taskId on two servers apart', async () => {
    const store = await make();
    const other = 'http://127.0.0.1:4000/mcp';
    await store.put(record());
    await store.put(record({ server: other, status: 'input_required' }));
    expect(await store.list()).toHaveLength(2);
    expect((await store.get('task-1', other))?.status).toBe('input_required');
    await store.delete('task-1', other);
    expect(await store.list()).toEqual([record()]);
  });

  it('hands out copies: changing a returned record does not change the store', async () => {
    const store = await make();
    await store.put(record());
    const got = (await store.get('task-1'))!;
    got.answeredKeys.push('mutated');
    got.status = 'failed';
    expect(await store.get('task-1')).toEqual(record());
  });

  it('prune() removes records whose TTL passed, keeps live and unlimited ones', async () => {
    const store = await make();
    await store.put(record({ taskId: 'expired', ttlMs: 1_000 }));
    await store.put(record({ taskId: 'edge', ttlMs: 5_000 }));
    await store.put(record({ taskId: 'live', ttlMs: 60_000 }));
    await store.put(record({ taskId: 'forever', ttlMs: null }));
    await store.put(
      record({
        taskId: 'done-expired',
        ttlMs: 1_000,
        status: 'completed',
        outcome: { status: 'completed', result: {} },
      }),
    );
    expect(await store.prune(NOW + 5_000)).toBe(3);
    expect((await store.list()).map((r) => r.taskId).sort()).toEqual(['forever', 'live']);
    expect(await store.prune(NOW + 5_000)).toBe(0);
  });

  it('rejects a record that does not match the schema on put', async () => {
    const store = await make();
    await expect(store.put({ ...record(), taskId: '' })).rejects.toThrow();
    await expect(store.put({ ...record(), status: 'done' } as unknown as TaskRecord)).rejects.toThrow();
    expect(await store.list()).toEqual([]);
  });
});

describe('FileTaskStore on disk', () => {
  it('creates the folder 0700 and files 0600, and leaves no temporary files behind', async () => {
    const store = await fileStore();
    await Promise.all([1, 2, 3, 4, 5].map((i) => store.put(record({ taskId: `t${i}` }))));
    await Promise.all([1, 2, 3].map((i) => store.put(record({ taskId: 't1', updatedAt: NOW + i }))));
    expect((await stat(store.dir)).mode & 0o777).toBe(0o700);
    const names = await readdir(store.dir);
    expect(names).toHaveLength(5);
    for (const name of names) {
      expect(name).toMatch(/^[0-9a-f]{32}\.json$/);
      expect((await stat(join(store.dir, name))).mode & 0o777).toBe(0o600);
      JSON.parse(await readFile(join(store.dir, name), 'utf8'));
    }
  });

  it('tightens an existing folder to 0700', async () => {
    const dir = await tempDir('loose');
    cleanups.push(dir.remove);
    const path = join(dir.path, 'tasks');
    await mkdir(path, { mode: 0o755 });
    await chmod(path, 0o755);
    await new FileTaskStore(path).put(record());
    expect((await stat(path)).mode & 0o777).toBe(0o700);
  });

  it('is durable across instances: a new store on the same folder reads what the old one wrote', async () => {
    const store = await fileStore();
    await store.put(record({ answeredKeys: ['confirm'] }));
    const reopened = new FileTaskStore(store.dir);
    expect(await reopened.get('task-1', SERVER)).toEqual(record({ answeredKeys: ['confirm'] }));
  });

  it('reports corrupt, foreign and future-version files through onInvalid and skips them', async () => {
    const invalid: Array<[string, string]> = [];
    const store = await fileStore((file, reason) => invalid.push([file, reason]));
    await store.put(record({ taskId: 'good' }));
    await writeFile(join(store.dir, 'corrupt.json'), '{"version": 1, "taskId": "half', { mode: 0o600 });
    await writeFile(
      join(store.dir, 'foreign.json'),
      JSON.stringify({ name: 'my-app', settings: { theme: 'dark' } }),
      { mode: 0o600 },
    );
    await writeFile(
      join(store.dir, 'future.json'),
      JSON.stringify({ ...record({ taskId: 'future' }), version: TASK_RECORD_VERSION + 1 }),
      { mode: 0o600 },
    );
    await writeFile(join(store.dir, 'notes.txt'), 'not a record, not even .json');

    const list = await store.list();
    expect(list.map((r) => r.taskId)).toEqual(['good']);
    expect(invalid.map(([file]) => file).sort()).toEqual(['corrupt.json', 'foreign.json', 'future.json']);
    for (const [, reason] of invalid) expect(reason.length).toBeGreaterThan(0);
    expect(await store.get('good')).toBeDefined();
    expect(await store.get('future')).toBeUndefined();
    expect(await store.prune(NOW + 10 ** 9)).toBe(1); // the good one expired; invalid files are left alone
  });

  it('reports a file whose fields have the wrong types (zod on read)', async () => {
    const invalid: string[] = [];
    const store = await fileStore((file) => invalid.push(file));
    await store.put(record());
    const [name] = await readdir(store.dir);
    const text = await readFile(join(store.dir, name!), 'utf8');
    await writeFile(join(store.dir, name!), text.replace('"ttlMs": 60000', '"ttlMs": "sixty seconds"'));
    expect(await store.list()).toEqual([]);
    expect(invalid).toEqual([name]);
  });

  it('lists nothing (and does not fail) when the folder does not exist yet', async () => {
    const dir = await tempDir('absent');
    cleanups.push(dir.remove);
    const store = new FileTaskStore(join(dir.path, 'never-created'));
    expect(await store.list()).toEqual([]);
    expect(await store.get('x')).toBeUndefined();
    expect(await store.prune()).toBe(0);
  });
});
