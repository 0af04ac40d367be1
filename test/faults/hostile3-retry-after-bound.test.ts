/**
 * `Retry-After: 315360000` (ten years) on `tasks/get` for a task whose `ttlMs` is `null`: the client waits at most
 * `MAX_RETRY_AFTER_MS` (1 hour) before the next poll, and that wait is server-wide: another task of the same server
 * is not polled during it, and is polled again once it ends. Real HTTP on loopback (a hostile server of our own),
 * fake timers for the client's clock. CLIENT-REQUIREMENTS: polling honours Retry-After; nothing waits forever.
 */
import { describe, expect, it, vi } from 'vitest';
import { redactTaskId } from '../../src/errors.js';
import { MAX_RETRY_AFTER_MS } from '../../src/tasks/decisions.js';
import { createdTask, settledBox, useHostile } from './hostile3-harness.js';
import { ioTurn, until, wireTask } from './hostile3-server.js';

const bench = useHostile();
const TEN_YEARS_S = 315_360_000;

/** Moves the fake clock by `ms` in steps, letting real I/O run between them. */
async function advance(ms: number, step = 60_000): Promise<void> {
  for (let left = ms; left > 0; left -= step) {
    await vi.advanceTimersByTimeAsync(Math.min(step, left));
    await ioTurn();
  }
}

describe('hostile3: Retry-After of ten years on a task kept forever', () => {
  it('the next poll goes after MAX_RETRY_AFTER_MS, and the pause holds the other task of the server as long', async () => {
    const polls: Array<{ taskId: string; at: number }> = [];
    let refused = false;
    bench.server.auto = (held) => {
      if (held.method !== 'tasks/get') return undefined;
      const taskId = String(held.params.taskId);
      polls.push({ taskId, at: Date.now() });
      if (taskId === 'task-slow' && !refused) {
        refused = true;
        held.raw(429, 'slow down', { 'content-type': 'text/plain', 'retry-after': String(TEN_YEARS_S) });
        return true;
      }
      held.result({ resultType: 'complete', ...wireTask(taskId, { ttlMs: null, pollIntervalMs: 1_000 }) });
      return true;
    };
    const client = bench.client();
    const warnings: string[] = [];
    client.on('warning', (w) => warnings.push(w));
    const slow = settledBox(client.callTool('slow', {}));
    (await bench.server.next('tools/call')).result(
      createdTask('task-slow', { ttlMs: null, pollIntervalMs: 1_000 }),
    );
    const other = settledBox(client.callTool('other', {}));
    (await bench.server.next('tools/call')).result(
      createdTask('task-other', { ttlMs: null, pollIntervalMs: 1_000 }),
    );
    await advance(1_000, 500);
    await until(() => warnings.length > 0, 'the warning of the 429');
    const pausedAt = polls.find((p) => p.taskId === 'task-slow')!.at;
    expect(warnings).toEqual([
      `task ${redactTaskId('task-slow')}: the server asked to wait 315360000000 ms (Retry-After) before the next tasks/get; waiting 3600000 ms, this client's limit`,
    ]);
    const seen = polls.length;
    // Up to 1 ms before the bound: no poll of either task (the pause is server-wide)
    await advance(pausedAt + MAX_RETRY_AFTER_MS - 1 - Date.now());
    expect(polls.slice(seen)).toEqual([]);
    // At the bound both tasks are polled again
    await advance(1, 1);
    await until(() => new Set(polls.slice(seen).map((p) => p.taskId)).size === 2, 'both polled again');
    const slowAgain = polls.slice(seen).find((p) => p.taskId === 'task-slow')!;
    expect(slowAgain.at - pausedAt).toBe(MAX_RETRY_AFTER_MS);
    expect([slow.settled, other.settled]).toEqual([false, false]);
  }, 30_000);
});
