/**
 * Odd abort reasons of the caller with the default `onAbort: 'cancel'`: a thenable (`{ then() {} }`, or a pending
 * promise passed to `abort()` by mistake) and a revoked Proxy (every property read throws). The client resolved
 * promises with the reason on its way to the rejection, so a thenable was adopted (the call waited for ever although
 * `tasks/cancel` was acknowledged) and a revoked Proxy made it skip `tasks/cancel` and reject with the Proxy's
 * TypeError while the task kept being polled. Now the call rejects with the caller's reason itself, after the task
 * was cancelled by id. Real HTTP on loopback (a hostile server of our own), fake timers. CLIENT-REQUIREMENTS 1.2
 * (never orphan work), 1.3 (no promise waits for ever; every failure typed).
 */
import { describe, expect, it } from 'vitest';
import { TaskDetachedError } from '../../src/node.js';
import { advance, box, useBench4 } from './hostile4-harness.js';
import { type Hostile4, task, waitFor } from './hostile4-server.js';

const bench = useBench4();

function serve(server: Hostile4, holdCreation = false): void {
  server.reply = (r) => {
    if (r.method === 'tools/call')
      return holdCreation ? undefined : { result: { resultType: 'task', ...task('odd-1') } };
    if (r.method === 'tasks/get') return { result: { resultType: 'complete', ...task('odd-1') } };
    if (r.method === 'tasks/cancel') return { result: {} };
    return { result: {} };
  };
}

const methods = (server: Hostile4): string[] => server.seen.map((r) => r.method);

function reasons(): Array<[string, () => object]> {
  return [
    ['a thenable that never settles', () => ({ then() {} })],
    [
      'a revoked Proxy',
      () => {
        const { proxy, revoke } = Proxy.revocable({}, {});
        revoke();
        return proxy;
      },
    ],
  ];
}

describe("hostile4: odd abort reasons with onAbort 'cancel'", () => {
  for (const [what, make] of reasons()) {
    it(`${what}, while the task runs: tasks/cancel sent, the call rejects with that very reason`, async () => {
      serve(bench.server);
      const client = bench.client();
      const controller = new AbortController();
      const call = box(client.callTool('work', {}, { signal: controller.signal }));
      await advance(1_500);
      expect(methods(bench.server)).toEqual(['tools/call', 'tasks/get']);
      const reason = make();
      controller.abort(reason);
      await advance(100);
      await waitFor(() => call.settled, 'the call settles');
      expect(call.error === reason).toBe(true);
      await advance(5_000);
      expect(methods(bench.server)).toEqual(['tools/call', 'tasks/get', 'tasks/cancel']); // cancelled, no more polls
    }, 30_000);

    it(`${what}, while tools/call is on its way (a task within the grace): tasks/cancel sent, the call rejects with it`, async () => {
      serve(bench.server, true);
      const client = bench.client();
      const controller = new AbortController();
      const call = box(client.callTool('work', {}, { signal: controller.signal }));
      await waitFor(() => bench.server.held.length === 1, 'tools/call held');
      const reason = make();
      controller.abort(reason);
      await advance(100);
      bench.server.answer(bench.server.held[0]!, { result: { resultType: 'task', ...task('odd-1') } });
      await advance(100);
      await waitFor(() => call.settled, 'the call settles');
      expect(call.error === reason).toBe(true);
      expect(methods(bench.server)).toEqual(['tools/call', 'tasks/cancel']);
    }, 30_000);
  }

  it("a thenable with onAbort 'detach': TaskDetachedError whose cause is the reason", async () => {
    serve(bench.server);
    const client = bench.client();
    const controller = new AbortController();
    const call = box(client.callTool('work', {}, { signal: controller.signal, onAbort: 'detach' }));
    await advance(1_500);
    const reason = { then() {} };
    controller.abort(reason);
    await advance(100);
    await waitFor(() => call.settled, 'the call settles');
    expect(call.error).toBeInstanceOf(TaskDetachedError);
    expect([(call.error as TaskDetachedError).taskId, (call.error as Error).cause === reason]).toEqual([
      'odd-1',
      true,
    ]);
  }, 30_000);
});
