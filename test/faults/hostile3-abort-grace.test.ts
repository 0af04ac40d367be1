/**
 * A hostile server answers a `tools/call` the caller already aborted (during the creation's abort grace, or after
 * `close()`) with something that would normally make the client send again: -32022, -32020, HTTP 401 (with
 * `getHeaders`), a 307 redirect, or a dropped connection. Once the caller gave up nothing is re-sent: no second
 * `tools/call`, no `tools/list` to ask whether a re-send is safe. An answer that says nothing started ends the call
 * with the abort reason at once; a creation lost after the abort ends it with `OutcomeUnknownError` (the abort
 * reason as `cause`), or `ClientClosedError` with `outcomeUnknown` when `close()` was the abort, at once rather than
 * after the grace. Real HTTP on loopback, fake timers for the client's clock.
 * CLIENT-REQUIREMENTS 1.2 (never orphan work), 1.3 (nothing silent); MCP cancellation
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation).
 */
import { describe, expect, it, vi } from 'vitest';
import { ClientClosedError, OutcomeUnknownError } from '../../src/node.js';
import { createdTask, GRACE_MS, settledBox, useHostile } from './hostile3-harness.js';
import { until } from './hostile3-server.js';

const bench = useHostile();

/** Starts a call with its own signal and waits until the server holds its `tools/call`. */
async function heldCall(
  options: Parameters<ReturnType<typeof bench.client>['callTool']>[2] = {},
  client = bench.client(),
) {
  const controller = new AbortController();
  const reason = new Error('caller gave up');
  const call = settledBox(client.callTool('deploy', {}, { ...options, signal: controller.signal }));
  const held = await bench.server.next('tools/call');
  return { client, call, held, abort: () => controller.abort(reason), reason };
}

describe('hostile3: an answer during the abort grace that would make the client re-send', () => {
  it('-32022 with a supported version: no second tools/call; the call rejects with the abort reason at once', async () => {
    const { call, held, abort, reason } = await heldCall();
    abort();
    held.error(-32022, 'unsupported protocol version', { supported: ['2025-11-25', '2026-07-28'] });
    await until(() => call.settled || bench.server.count('tools/call') > 1, 'settled or re-sent');
    expect(bench.server.count('tools/call')).toBe(1);
    expect(call.error).toBe(reason);
    await vi.advanceTimersByTimeAsync(10 * GRACE_MS);
    expect(bench.server.log.map((r) => r.method)).toEqual(['tools/call']);
  });

  it('-32020 (header mismatch): no tools/list and no re-send; the call rejects with the abort reason at once', async () => {
    const { call, held, abort, reason } = await heldCall();
    abort();
    held.error(-32020, 'Mcp-Param header mismatch');
    await until(
      () => call.settled || bench.server.count('tools/list') > 0 || bench.server.count('tools/call') > 1,
      'settled or re-sent',
    );
    expect(bench.server.log.map((r) => r.method)).toEqual(['tools/call']);
    expect(call.error).toBe(reason);
  });

  it('HTTP 401 with getHeaders: no second POST with fresh headers; the call rejects with the abort reason at once', async () => {
    let fetched = 0;
    const client = bench.client({}, { getHeaders: async () => ({ authorization: `Bearer t${++fetched}` }) });
    const { call, held, abort, reason } = await heldCall({}, client);
    abort();
    held.raw(401, '', {});
    await until(() => call.settled || bench.server.count('tools/call') > 1, 'settled or re-sent');
    expect(bench.server.count('tools/call')).toBe(1);
    expect(call.error).toBe(reason);
    expect(fetched).toBe(1);
  });

  it('HTTP 401 with an OAuth provider (auth): no re-POST with a newer token; the call rejects with the abort reason at once', async () => {
    let issued = 0;
    // A provider whose token changes on every read: on a 401 the wrapper takes it as refreshed elsewhere and
    // re-sends with it, without an authorization flow (the path under test is only that re-send).
    const provider = {
      redirectUrl: 'http://127.0.0.1:1/callback',
      clientMetadata: { redirect_uris: ['http://127.0.0.1:1/callback'] },
      clientInformation: async () => ({ client_id: 'hostile3' }),
      tokens: async () => ({ access_token: `token-${++issued}`, token_type: 'Bearer' }),
      saveTokens: async () => undefined,
      redirectToAuthorization: async () => undefined,
      saveCodeVerifier: async () => undefined,
      codeVerifier: async () => 'verifier',
    };
    const client = bench.client({}, { auth: { provider: provider as never } });
    const { call, held, abort, reason } = await heldCall({}, client);
    abort();
    held.raw(401, '', { 'www-authenticate': 'Bearer error="invalid_token"' });
    await until(() => call.settled || bench.server.count('tools/call') > 1, 'settled or re-sent');
    expect(bench.server.count('tools/call')).toBe(1);
    expect(call.error).toBe(reason);
  });

  it('HTTP 307 to the same origin: the redirect is not followed; the call rejects with the abort reason at once', async () => {
    const { call, held, abort, reason } = await heldCall();
    abort();
    held.raw(307, '', { location: `${bench.server.url}/moved` });
    await until(() => call.settled || bench.server.count('tools/call') > 1, 'settled or re-sent');
    expect(bench.server.count('tools/call')).toBe(1);
    expect(call.error).toBe(reason);
  });
});

describe('hostile3: a creation lost during the abort grace', () => {
  it('connection dropped, no idempotency key: no tools/list is sent; OutcomeUnknownError (cause: the abort reason) at once', async () => {
    const { call, held, abort, reason } = await heldCall();
    abort();
    held.drop();
    await until(() => call.settled || bench.server.count('tools/list') > 0, 'settled or tools/list sent');
    expect(bench.server.log.map((r) => r.method)).toEqual(['tools/call']);
    expect(call.error).toBeInstanceOf(OutcomeUnknownError);
    expect((call.error as OutcomeUnknownError).cause).toBe(reason);
  });

  it('half a body then a reset: no tools/list is sent; OutcomeUnknownError at once', async () => {
    const { call, held, abort } = await heldCall();
    abort();
    held.half('{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T');
    await until(() => call.settled || bench.server.count('tools/list') > 0, 'settled or tools/list sent');
    expect(bench.server.log.map((r) => r.method)).toEqual(['tools/call']);
    expect(call.error).toBeInstanceOf(OutcomeUnknownError);
  });

  it('connection dropped with an idempotency key: OutcomeUnknownError (never the bare abort reason), nothing re-sent', async () => {
    const { call, held, abort, reason } = await heldCall({ idempotencyKey: 'deploy-1' });
    abort();
    held.drop();
    // Whatever backoff the client might still wait out: the grace bounds it.
    await until(() => call.settled || bench.server.count('tools/call') > 1, 'settled', 200);
    if (!call.settled) await vi.advanceTimersByTimeAsync(GRACE_MS);
    await until(() => call.settled, 'settled');
    expect(bench.server.log.map((r) => r.method)).toEqual(['tools/call']);
    expect(call.error).not.toBe(reason);
    expect(call.error).toBeInstanceOf(OutcomeUnknownError);
    expect((call.error as OutcomeUnknownError).cause).toBe(reason);
  });

  it('close() while the server holds the POST, then the connection drops: ClientClosedError with outcomeUnknown, no tools/list', async () => {
    bench.server.auto = (held) => {
      if (held.method !== 'tools/list') return undefined;
      held.result({ tools: [] }); // answered at once: only the order of events is under test
      return true;
    };
    const client = bench.client();
    const call = settledBox(client.callTool('deploy', {}));
    const held = await bench.server.next('tools/call');
    const closing = settledBox(client.close());
    held.drop();
    await until(() => call.settled, 'settled');
    expect(bench.server.log.map((r) => r.method)).toEqual(['tools/call']);
    expect(call.error).toBeInstanceOf(ClientClosedError);
    expect(call.error).toMatchObject({ code: 'CLIENT_CLOSED', outcomeUnknown: true, method: 'tools/call' });
    await until(() => closing.settled, 'closed');
  });

  it('close() while the server holds the POST, then a task within the grace: cancelled by id, ClientClosedError names it', async () => {
    const client = bench.client();
    const call = settledBox(client.callTool('deploy', {}));
    const held = await bench.server.next('tools/call');
    const closing = settledBox(client.close());
    await vi.advanceTimersByTimeAsync(GRACE_MS / 2);
    held.result(createdTask('task-close-1'));
    await until(() => call.settled && closing.settled, 'settled');
    expect(call.error).toBeInstanceOf(ClientClosedError);
    expect(call.error).toMatchObject({ taskId: 'task-close-1', outcomeUnknown: false });
    expect(bench.server.log.map((r) => [r.method, r.params.taskId])).toEqual([
      ['tools/call', undefined],
      ['tasks/cancel', 'task-close-1'],
    ]);
  });
});

describe('hostile3: nothing keeps the process alive after close()', () => {
  it('a task created during the grace whose tasks/cancel the server never answers: the call rejects (taskId) after the grace, close() ends it, no timer and no connection left', async () => {
    bench.server.auto = undefined; // tasks/cancel held forever
    const client = bench.client();
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const call = settledBox(client.callTool('deploy', {}, { signal: controller.signal }));
    const held = await bench.server.next('tools/call');
    controller.abort(reason);
    held.result(createdTask('task-stuck'));
    const cancel = await bench.server.next('tasks/cancel');
    expect(cancel.params.taskId).toBe('task-stuck');
    expect(call.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(GRACE_MS);
    await until(() => call.settled, 'settled');
    expect(call.error).toBe(reason);
    expect((call.error as { taskId?: string }).taskId).toBe('task-stuck');
    const closing = settledBox(client.close());
    for (let i = 0; i < 20 && !closing.settled; i++) await vi.advanceTimersByTimeAsync(GRACE_MS);
    await until(() => closing.settled, 'closed');
    await until(() => cancel.clientGone(), 'cancel connection closed');
    expect(vi.getTimerCount()).toBe(0);
    let open = -1;
    const count = (): void => {
      bench.server.server.getConnections((error, n) => {
        open = error ? -1 : n;
      });
    };
    count();
    await until(() => {
      if (open !== 0) count();
      return open === 0;
    }, 'every connection closed'); // the server learns of each close a few I/O turns later
  });
});

describe('an inline answer during the abort grace', () => {
  it('the call rejects with the abort reason, and a warning says the work ran to completion (never silent)', async () => {
    const client = bench.client();
    const warnings: string[] = [];
    client.on('warning', (message) => warnings.push(message));
    const { call, held, abort, reason } = await heldCall({}, client);
    abort();
    held.result({ content: [{ type: 'text', text: 'deployed' }] });
    await until(() => call.settled, 'settled');
    expect(call.error).toBe(reason);
    expect(warnings).toEqual([
      'tools/call deploy: the server answered after the call was aborted: the work ran to completion; the call rejects with the abort reason and the result is dropped',
    ]);
  });
});
