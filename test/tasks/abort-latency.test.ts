/**
 * An abort's wait for `tasks/cancel` is bounded by `abortGraceMs`: then the call rejects with the abort reason
 * (carrying `taskId`) and the cancel keeps being delivered in the background; a final failure is a `warning`
 * (ext-tasks § Task Cancellation).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NetworkError } from '../../src/index.js';
import { created, detailed, outcome } from '../helpers/unit-fixtures.js';
import { setup, T0 } from '../helpers/engine-setup.js';

const reset = (): never => {
  throw new NetworkError('tasks/cancel', {
    cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
  });
};

describe('abort latency: the caller waits at most abortGraceMs for tasks/cancel', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('a cancel that keeps failing: the call rejects with the abort reason (taskId) after abortGraceMs; delivery goes on, then a warning; the record keeps cancelRequested', async () => {
    const { transport, client, store, warnings } = setup(
      (m) => (m === 'tools/call' ? created() : m === 'tasks/cancel' ? reset() : detailed()),
      { limits: { abortGraceMs: 1_000 } },
    );
    const controller = new AbortController();
    const done = outcome(client.callTool('job', {}, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(500);
    const reason = new Error('stop');
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(999);
    expect(done.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done.error).toBe(reason);
    expect((done.error as { taskId?: string }).taskId).toBe('t1');
    const sentSoFar = transport.of('tasks/cancel').length;
    expect(sentSoFar).toBeLessThan(5);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(transport.of('tasks/cancel')).toHaveLength(5);
    expect(warnings.some((w) => w.includes('tasks/cancel') && w.includes('t1'))).toBe(true);
    const record = await store.get('t1');
    expect(record?.cancelRequested).toBe(true);
    expect(record?.outcome).toBeUndefined();
    await client.close();
  });

  it('a cancel delivered within abortGraceMs: the call rejects with the abort reason and no warning', async () => {
    const { transport, client, warnings } = setup(
      (m) => (m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : detailed()),
      { limits: { abortGraceMs: 1_000 } },
    );
    const controller = new AbortController();
    const done = outcome(client.callTool('job', {}, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(500);
    controller.abort(new Error('stop'));
    await vi.advanceTimersByTimeAsync(10);
    expect((done.error as { taskId?: string }).taskId).toBe('t1');
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(warnings.filter((w) => w.includes('tasks/cancel'))).toEqual([]);
    await client.close();
  });
});
