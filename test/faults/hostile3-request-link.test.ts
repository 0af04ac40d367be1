/**
 * `client.request(...)` sends one request on its call's own link (the transport times it there rather than on a
 * second link): its `timeoutMs`, the caller's abort, `close()` and concurrent requests on one caller's signal behave
 * as before. Real HTTP on loopback, fake timers for the client's clock. CLIENT-REQUIREMENTS 1.3 (nothing silent).
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { ClientClosedError, RequestTimeoutError } from '../../src/node.js';
import { settledBox, useHostile } from './hostile3-harness.js';
import { until } from './hostile3-server.js';

const bench = useHostile();

describe("hostile3: client.request('tasks/get') on its call's link", () => {
  it('timeoutMs: RequestTimeoutError after exactly timeoutMs, then the next request gets its own full budget', async () => {
    const client = bench.client();
    const first = settledBox(client.request('tasks/get', { taskId: 't1' }, { timeoutMs: 2_000 }));
    await bench.server.next('tasks/get');
    await vi.advanceTimersByTimeAsync(1_999);
    expect(first.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => first.settled, 'timed out');
    expect(first.error).toBeInstanceOf(RequestTimeoutError);
    expect((first.error as RequestTimeoutError).timeoutMs).toBe(2_000);
    const second = settledBox(client.request('tasks/get', { taskId: 't2' }, { timeoutMs: 2_000 }));
    (await bench.server.next('tasks/get')).result({ resultType: 'complete', taskId: 't2' });
    await until(() => second.settled, 'answered');
    expect(second.value).toMatchObject({ taskId: 't2' });
  });

  it("10 requests on one caller's signal: one listener on it, each rejects with the abort reason, none left", async () => {
    const client = bench.client({}, { maxConnectionsPerOrigin: 10 });
    const controller = new AbortController();
    const calls = Array.from({ length: 10 }, (_, i) =>
      settledBox(client.request('tasks/get', { taskId: `t${i}` }, { signal: controller.signal })),
    );
    for (let i = 0; i < 10; i++) await bench.server.next('tasks/get');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const reason = new Error('stop');
    controller.abort(reason);
    await until(() => calls.every((c) => c.settled), 'aborted');
    expect(calls.map((c) => c.error)).toEqual(calls.map(() => reason));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('close() while a request waits: it rejects with ClientClosedError', async () => {
    const client = bench.client();
    const call = settledBox(client.request('tasks/get', { taskId: 't1' }));
    await bench.server.next('tasks/get');
    const closing = client.close();
    await until(() => call.settled, 'closed');
    expect(call.error).toBeInstanceOf(ClientClosedError);
    await closing;
  });
});
