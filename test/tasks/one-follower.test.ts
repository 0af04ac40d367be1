/**
 * One task, one follower: two calls or attaches that yield the same `taskId` on one server share one handle, so the
 * task is polled once per `pollIntervalMs` (ext-tasks § Task Polling); one caller's abort does not cancel a task
 * another caller still awaits, the last caller's abort does (CLIENT-REQUIREMENTS 5.x, cancel on abort).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { completed, created, detailed, outcome } from '../helpers/unit-fixtures.js';
import { setup, T0 } from '../helpers/engine-setup.js';

/** Gaps between consecutive sends of `method` (fake clock, ms). */
function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - (times[i] ?? 0));
}

describe('one task, one follower', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('two attaches of one task share one handle: its polls are never closer than pollIntervalMs', async () => {
    const { transport, client } = setup(() => detailed());
    const a = await client.task('t1');
    await vi.advanceTimersByTimeAsync(300);
    const b = await client.task('t1');
    expect(b).toBe(a);
    await vi.advanceTimersByTimeAsync(5_000);
    const polls = transport.of('tasks/get').map((s) => s.at);
    expect(polls.length).toBeGreaterThanOrEqual(5);
    expect(Math.min(...gaps(polls))).toBeGreaterThanOrEqual(1_000);
    await client.close();
  });

  it('two calls whose creation yields the same taskId (an idempotency key the server honours) share one follower', async () => {
    let polls = 0;
    const { transport, client } = setup((m) =>
      m === 'tools/call' ? created() : ++polls >= 6 ? completed() : detailed(),
    );
    const first = outcome(client.callTool('job', {}, { idempotencyKey: 'k1' }));
    await vi.advanceTimersByTimeAsync(400);
    const second = outcome(client.callTool('job', {}, { idempotencyKey: 'k1' }));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(first.value).toEqual(second.value);
    expect(transport.of('tools/call')).toHaveLength(2);
    const times = transport.of('tasks/get').map((s) => s.at);
    expect(Math.min(...gaps(times))).toBeGreaterThanOrEqual(1_000);
    await client.close();
  });

  it("one caller's abort does not cancel a task another caller awaits; the last caller's abort does", async () => {
    const { transport, client } = setup((m) =>
      m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : detailed(),
    );
    const ca = new AbortController();
    const cb = new AbortController();
    const a = outcome(client.callTool('job', {}, { idempotencyKey: 'k1', signal: ca.signal }));
    const b = outcome(client.callTool('job', {}, { idempotencyKey: 'k1', signal: cb.signal }));
    await vi.advanceTimersByTimeAsync(1_500);
    const reason = new Error('a stops');
    ca.abort(reason);
    await vi.advanceTimersByTimeAsync(100);
    expect(a.error).toBe(reason);
    expect((a.error as { taskId?: string }).taskId).toBe('t1');
    expect(transport.of('tasks/cancel')).toHaveLength(0);
    expect(b.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(b.settled).toBe(false); // still followed for b
    const pollsBefore = transport.of('tasks/get').length;
    expect(pollsBefore).toBeGreaterThan(1);
    cb.abort(new Error('b stops'));
    await vi.advanceTimersByTimeAsync(100);
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    expect(b.error).toMatchObject({ message: 'b stops', taskId: 't1' });
    await client.close();
  });
});
