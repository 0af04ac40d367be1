/**
 * `await handle.result()` and `await handle.cancel()` settle only after the record write they caused has finished:
 * a process that exits right after the `await` keeps the final state on disk (`FileTaskStore`, real files, read
 * synchronously in the continuation). A failed write is a `warning` event, never a rejection of `result()`.
 * Only `setTimeout`/`Date` are faked, so the file system works as usual.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FileTaskStore } from '../../src/file-store.js';
import { MemoryTaskStore, TaskCancelledError, type TaskRecord } from '../../src/index.js';
import { completed, created, detailed, queue, rpcError, toolResult } from '../helpers/unit-fixtures.js';
import { RECORD_FLUSH_WAIT_MS } from '../../src/tasks/task-handle.js';
import { setup, startTask, T0 } from '../helpers/engine-setup.js';

let dir: string;
beforeEach(() => {
  vi.useFakeTimers({ now: T0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  dir = mkdtempSync(join(tmpdir(), 'record-before-settle-'));
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

/** The one record in `dir`, read synchronously. */
function onDisk(): TaskRecord {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  expect(files).toHaveLength(1);
  return JSON.parse(readFileSync(join(dir, files[0] ?? ''), 'utf8')) as TaskRecord;
}

describe('record writes finish before result() / cancel() settle', () => {
  it('result(): the completed outcome is on disk the moment the await returns', async () => {
    const { client } = setup((m) => (m === 'tools/call' ? created() : completed(toolResult('finished'))), {
      store: new FileTaskStore(dir),
    });
    const handle = await startTask(client);
    const seen = handle.result().then((value) => ({ value, record: onDisk() }));
    await vi.advanceTimersByTimeAsync(1_000);
    const { value, record } = await seen;
    expect(value).toEqual(toolResult('finished'));
    expect(record.status).toBe('completed');
    expect(record.outcome).toEqual({ status: 'completed', result: toolResult('finished') });
  });

  it('cancel(): cancelRequested is on disk the moment the await returns', async () => {
    const { client } = setup(
      (m) => (m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : detailed()),
      { store: new FileTaskStore(dir) },
    );
    const handle = await startTask(client);
    const record = await handle.cancel().then(() => onDisk());
    expect(record.cancelRequested).toBe(true);
    expect(record.outcome).toBeUndefined();
  });

  it('cancel() answered -32602, then read as cancelled: the cancelled outcome is on disk when cancel() returns', async () => {
    const get = queue([detailed({ status: 'cancelled' })]);
    const { client } = setup(
      (m) =>
        m === 'tools/call' ? created() : m === 'tasks/cancel' ? rpcError(-32602, 'unknown task') : get(),
      { store: new FileTaskStore(dir) },
    );
    const handle = await startTask(client);
    const waited = handle.result().catch((e: unknown) => e);
    const record = await handle.cancel().then(() => onDisk());
    expect(record).toMatchObject({
      cancelRequested: true,
      status: 'cancelled',
      outcome: { status: 'cancelled' },
    });
    expect(await waited).toBeInstanceOf(TaskCancelledError);
  });

  it('a failed outcome write is a warning; result() still resolves with the result', async () => {
    class FailingStore extends MemoryTaskStore {
      override async put(record: TaskRecord): Promise<void> {
        if (record.outcome) throw new Error('disk full');
        await super.put(record);
      }
    }
    const { client, warnings } = setup(
      (m) => (m === 'tools/call' ? created() : completed(toolResult('finished'))),
      { store: new FailingStore() },
    );
    const handle = await startTask(client);
    const seen = handle.result().then((value) => ({ value, warnings: [...warnings] }));
    await vi.advanceTimersByTimeAsync(1_000);
    const got = await seen;
    expect(got.value).toEqual(toolResult('finished'));
    expect(got.warnings).toEqual(['task store: Error: disk full']);
  });

  it('an outcome write that never settles holds result() at most RECORD_FLUSH_WAIT_MS (10 s), then result() settles', async () => {
    class HangingStore extends MemoryTaskStore {
      override async put(record: TaskRecord): Promise<void> {
        if (record.outcome) return new Promise<void>(() => undefined);
        await super.put(record);
      }
    }
    const { client } = setup((m) => (m === 'tools/call' ? created() : completed(toolResult('finished'))), {
      store: new HangingStore(),
    });
    const handle = await startTask(client);
    let value: unknown;
    void handle.result().then((v) => (value = v));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(handle.status).toBe('completed');
    expect(value).toBeUndefined();
    await vi.advanceTimersByTimeAsync(RECORD_FLUSH_WAIT_MS);
    expect(value).toEqual(toolResult('finished'));
  });
});
