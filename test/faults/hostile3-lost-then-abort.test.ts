/**
 * A creation lost first (the server read the `tools/call`, then dropped the connection), and the caller aborts
 * afterwards, while the client decides or waits to re-send it (its `tools/list`, its backoff). Nothing is on its way
 * then, so the call ends at once and nothing more is sent; but the lost attempt may have started work on the server,
 * so the caller hears `OutcomeUnknownError` (the abort reason as `cause`), or `ClientClosedError` with
 * `outcomeUnknown` after `close()`: never the bare abort reason, which says nothing was started. Real HTTP on
 * loopback, fake timers for the client's clock. CLIENT-REQUIREMENTS 1.2 (never orphan work), 1.3 (nothing silent).
 */
import { describe, expect, it, vi } from 'vitest';
import { ClientClosedError, OutcomeUnknownError } from '../../src/node.js';
import { settledBox, useHostile } from './hostile3-harness.js';
import { until } from './hostile3-server.js';

const bench = useHostile();

describe('hostile3: the caller aborts after its creation was lost', () => {
  it('during the tools/list that decides a re-send: OutcomeUnknownError at once, the tools/list abandoned, nothing re-sent', async () => {
    const client = bench.client();
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const call = settledBox(client.callTool('deploy', {}, { signal: controller.signal }));
    (await bench.server.next('tools/call')).drop();
    const listing = await bench.server.next('tools/list');
    controller.abort(reason);
    await until(() => call.settled, 'settled');
    expect(call.error).toBeInstanceOf(OutcomeUnknownError);
    expect((call.error as OutcomeUnknownError).cause).toBe(reason);
    await until(() => listing.clientGone(), 'tools/list abandoned');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(bench.server.log.map((r) => r.method)).toEqual(['tools/call', 'tools/list']);
  });

  it('during the backoff before a keyed re-send: OutcomeUnknownError at once, nothing re-sent', async () => {
    const client = bench.client({ creationRetry: { minTimeoutMs: 5_000 } });
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const call = settledBox(
      client.callTool('deploy', {}, { signal: controller.signal, idempotencyKey: 'deploy-7' }),
    );
    (await bench.server.next('tools/call')).drop();
    await vi.advanceTimersByTimeAsync(1_000); // inside the backoff
    expect(call.settled).toBe(false);
    controller.abort(reason);
    await until(() => call.settled, 'settled');
    expect(call.error).toBeInstanceOf(OutcomeUnknownError);
    expect((call.error as OutcomeUnknownError).cause).toBe(reason);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(bench.server.count('tools/call')).toBe(1);
  });

  it('close() during the backoff before a keyed re-send: ClientClosedError with outcomeUnknown, nothing re-sent', async () => {
    const client = bench.client({ creationRetry: { minTimeoutMs: 5_000 } });
    const call = settledBox(client.callTool('deploy', {}, { idempotencyKey: 'deploy-8' }));
    (await bench.server.next('tools/call')).drop();
    await vi.advanceTimersByTimeAsync(1_000);
    const closing = settledBox(client.close());
    await until(() => call.settled, 'settled');
    expect(call.error).toBeInstanceOf(ClientClosedError);
    expect(call.error).toMatchObject({ outcomeUnknown: true, method: 'tools/call' });
    await until(() => closing.settled, 'closed');
    expect(bench.server.count('tools/call')).toBe(1);
  });
});
