/**
 * A task store whose write of a task's final record never answers (a network store whose server hangs): `result()`
 * settles anyway after RECORD_FLUSH_WAIT_MS (a warning says the record may be stale), and `client.close()` must not wait forever for that write either: it
 * resolves within the same bound and a `warning` names the task whose record may be stale. Real HTTP on loopback (a
 * hostile server of our own), fake timers for the client's clock. The same for a lease store whose release never answers. CLIENT-REQUIREMENTS 1.3 (nothing silent; no
 * promise waits forever on something that already failed).
 */
import { describe, expect, it } from 'vitest';
import { MemoryTaskStore, redactTaskId, type TaskRecord } from '../../src/index.js';
import type { FollowLease, TaskLeases } from '../../src/store/task-store.js';
import { RECORD_FLUSH_WAIT_MS } from '../../src/tasks/task-handle.js';
import { advance, box, useBench4 } from './hostile4-harness.js';
import { task, waitFor } from './hostile4-server.js';

const bench = useBench4();

/** A store (the public `TaskStore` interface) whose write of a settled record never resolves. */
class HangingStore extends MemoryTaskStore {
  readonly hung: string[] = [];
  override put(record: TaskRecord): Promise<void> {
    if (record.outcome !== undefined) {
      this.hung.push(record.taskId);
      return new Promise(() => undefined);
    }
    return super.put(record);
  }
}

describe('hostile4: a store that never finishes the final record write', () => {
  it('result() settles after RECORD_FLUSH_WAIT_MS; close() resolves within it and a warning names the task', async () => {
    let done = false;
    bench.server.reply = (r) => {
      if (r.method === 'tools/call') return { result: { resultType: 'task', ...task('hang-1') } };
      if (r.method === 'tasks/get')
        return {
          result: {
            resultType: 'complete',
            ...task('hang-1', done ? { status: 'completed', result: { content: [] } } : {}),
          },
        };
      return { result: {} };
    };
    const store = new HangingStore();
    const client = bench.client({ store });
    const warnings: string[] = [];
    client.on('warning', (w) => warnings.push(w));
    const start = await client.startTool('slow', {});
    if (start.resultType !== 'task') throw new Error('expected a task');
    const waiting = box(start.task.result());
    done = true;
    await advance(1_000);
    await waitFor(() => store.hung.length === 1, 'the final write');
    expect(waiting.settled).toBe(false); // waits for the write...
    await advance(RECORD_FLUSH_WAIT_MS);
    expect(waiting).toEqual({ settled: true, value: { content: [] } }); // ...at most RECORD_FLUSH_WAIT_MS, not silently
    expect(warnings).toHaveLength(1);
    const closing = box(client.close());
    await advance(RECORD_FLUSH_WAIT_MS);
    expect(closing).toEqual({ settled: true, value: undefined });
    expect(warnings).toEqual([
      `task ${redactTaskId('hang-1')}: the store has not finished writing its record after ${RECORD_FLUSH_WAIT_MS} ms; going on without it (the record may be stale)`,
      `close(): the store has not finished writing the record of task ${redactTaskId('hang-1')} after ${RECORD_FLUSH_WAIT_MS} ms; it may be stale`,
    ]);
  }, 30_000);

  it('a lease store whose release never answers: close() still resolves within RECORD_FLUSH_WAIT_MS', async () => {
    bench.server.reply = (r) => {
      if (r.method === 'tools/call') return { result: { resultType: 'task', ...task('lease-1') } };
      if (r.method === 'tasks/get') return { result: { resultType: 'complete', ...task('lease-1') } };
      return { result: {} };
    };
    const released: string[] = [];
    const leases: TaskLeases = {
      leaseMs: 60_000,
      acquire: async (server, taskId) => ({
        lease: { server, taskId, owner: 'me', expiresAt: Date.now() + 60_000 },
      }),
      renew: async (lease: FollowLease) => {
        lease.expiresAt = Date.now() + 60_000;
        return true;
      },
      release: (lease) => {
        released.push(lease.taskId);
        return new Promise(() => undefined);
      },
    };
    const store = Object.assign(new MemoryTaskStore(), { leases });
    const client = bench.client({ store });
    const warnings: string[] = [];
    client.on('warning', (w) => warnings.push(w));
    const start = await client.startTool('slow', {});
    expect(start.resultType).toBe('task');
    await advance(2_000);
    const closing = box(client.close());
    await advance(RECORD_FLUSH_WAIT_MS);
    expect([closing, released]).toEqual([{ settled: true, value: undefined }, ['lease-1']]);
    expect(warnings).toEqual([
      `close(): the store has not released the lease of task ${redactTaskId('lease-1')} after ${RECORD_FLUSH_WAIT_MS} ms; other processes may follow it once the lease runs out`,
    ]);
  }, 30_000);
});
