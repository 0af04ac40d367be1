/**
 * Two calls with `onAbort: 'detach'` share one caller signal, aborted with an error of this library the caller holds
 * from earlier (here the `RequestTimeoutError` of an unrelated `client.request()`, a natural "abort the rest with the
 * first failure"). Each call must reject naming the task it left running, and the caller's own reason object must
 * stay as it was (TaskDetachedError's `cause`: "never written to, so calls sharing one signal each name their task").
 * Real HTTP on loopback (a hostile server of our own), fake timers. CLIENT-REQUIREMENTS 1.2 (never orphan work:
 * reported by id).
 */
import { describe, expect, it } from 'vitest';
import { RequestTimeoutError, TaskDetachedError } from '../../src/node.js';
import { advance, box, useBench4 } from './hostile4-harness.js';
import { task, waitFor } from './hostile4-server.js';

const bench = useBench4();

describe("hostile4: onAbort 'detach' with a shared abort reason that is one of our errors", () => {
  it('each call rejects with TaskDetachedError naming its own task; the reason is not written to', async () => {
    let n = 0;
    bench.server.reply = (r) => {
      if (r.method === 'tools/call') return { result: { resultType: 'task', ...task(`detached-${++n}`) } };
      if (r.method === 'tasks/get')
        return { result: { resultType: 'complete', ...task(String(r.params.taskId)) } };
      return undefined; // x/slow: never answered
    };
    const client = bench.client();
    const earlier = box(client.request('x/slow', {}, { timeoutMs: 1_000 }));
    await advance(1_000);
    await waitFor(() => earlier.settled, 'the earlier timeout');
    const reason = earlier.error as RequestTimeoutError;
    expect(reason).toBeInstanceOf(RequestTimeoutError);
    const controller = new AbortController();
    const a = box(client.callTool('a', {}, { signal: controller.signal, onAbort: 'detach' }));
    await waitFor(() => n === 1, 'task 1');
    const b = box(client.callTool('b', {}, { signal: controller.signal, onAbort: 'detach' }));
    await waitFor(() => n === 2, 'task 2');
    await advance(1_500);
    controller.abort(reason);
    await advance(100);
    const named = [a.error, b.error].map((e) => [
      e instanceof TaskDetachedError,
      (e as { taskId?: unknown }).taskId,
      (e as Error).cause === reason,
    ]);
    expect(named).toEqual([
      [true, 'detached-1', true],
      [true, 'detached-2', true],
    ]);
    expect(Object.hasOwn(reason, 'taskId') ? reason.taskId : undefined).toBeUndefined();
  }, 30_000);
});
