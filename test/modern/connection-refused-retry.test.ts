/**
 * A creation request that provably never reached the server (connection refused, host not found) is re-sent after a
 * short, bounded backoff whatever the idempotency key, because nothing can run twice; after the last try the call
 * fails with a NetworkError that says nothing was sent. Fake timers pin the schedule (p-retry with its jitter fixed
 * at the low end). (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#streamable-http)
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NetworkError, OutcomeUnknownError, TaskClient } from '../../src/index.js';
import { ScriptedTransport } from '../helpers/scripted-transport.js';
import { toolResult } from '../helpers/unit-fixtures.js';
import '../helpers/no-jitter.js';

/** A socket error as undici reports it: `TypeError: fetch failed` with the system error as `cause`. */
function refused(code = 'ECONNREFUSED'): NetworkError {
  return new NetworkError('tools/call', {
    cause: new TypeError('fetch failed', {
      cause: Object.assign(new Error(`connect ${code} 127.0.0.1:9`), { code }),
    }),
  });
}

/** Refuses the first `n` tools/call, then answers inline; tools/list would say the tool is not idempotent. */
function setup(n: number, code?: string) {
  let calls = 0;
  const transport = new ScriptedTransport((method) => {
    if (method === 'tools/list')
      return {
        tools: [{ name: 'deploy', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } }],
      };
    if (calls++ < n) throw refused(code);
    return toolResult('deployed');
  });
  return { transport, client: new TaskClient({ transport }) };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  vi.spyOn(Math, 'random').mockReturnValue(0); // p-retry's randomize factor at its low end: 1×
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('connection refused before anything was sent (issue behaviour 11)', () => {
  it('is re-sent with backoff whatever the key (here none, on a destructive tool), and succeeds once the server listens', async () => {
    const { transport, client } = setup(2);
    const call = client.callTool('deploy', {});
    await vi.advanceTimersByTimeAsync(0);
    expect(transport.of('tools/call')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(249);
    expect(transport.of('tools/call')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(transport.of('tools/call')).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(500);
    expect(transport.of('tools/call')).toHaveLength(3);
    await expect(call).resolves.toEqual(toolResult('deployed'));
    expect(transport.of('tools/list')).toHaveLength(0); // no need to ask whether a re-send is safe: nothing was sent
  });

  it.each([['ECONNREFUSED'], ['ENOTFOUND'], ['EAI_AGAIN']])(
    '%s every time: NetworkError "nothing was sent" after 4 attempts and 1.75 s, never OutcomeUnknownError',
    async (code) => {
      const { transport, client } = setup(Number.POSITIVE_INFINITY, code);
      const error = client.callTool('deploy', {}, { idempotencyKey: 'k' }).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(1_749);
      expect(transport.of('tools/call')).toHaveLength(3);
      await vi.advanceTimersByTimeAsync(1);
      const failure = await error;
      expect(transport.of('tools/call')).toHaveLength(4);
      expect(failure).toBeInstanceOf(NetworkError);
      expect(failure).not.toBeInstanceOf(OutcomeUnknownError);
      expect(failure).toMatchObject({ code: 'NETWORK_ERROR', notSent: true, attempts: 4 });
      expect((failure as Error).message).toBe(
        `tools/call failed: network error: fetch failed (${code}); nothing was sent: the server could not be reached in 4 attempts`,
      );
      expect(((failure as Error).cause as Error).message).toBe('fetch failed');
    },
  );

  it('the first re-send waits half of creationRetry.minTimeoutMs; the option is validated', async () => {
    const transport = new ScriptedTransport(() => {
      throw refused();
    });
    const client = new TaskClient({ transport, creationRetry: { minTimeoutMs: 100 } });
    const failed = client.callTool('deploy', {}).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(49);
    expect(transport.of('tools/call')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(transport.of('tools/call')).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await failed).toMatchObject({ notSent: true, attempts: 4 });
    expect(() => new TaskClient({ transport, creationRetry: { minTimeoutMs: -1 } })).toThrow(
      'TaskClient: option "creationRetry.minTimeoutMs" must not be negative; got -1',
    );
  });

  it('an abort during the backoff stops at once with the abort reason; nothing more is sent', async () => {
    const { transport, client } = setup(Number.POSITIVE_INFINITY);
    const controller = new AbortController();
    const call = client.callTool('deploy', {}, { signal: controller.signal }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(100);
    const reason = new Error('stop');
    controller.abort(reason);
    expect(await call).toBe(reason);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(transport.of('tools/call')).toHaveLength(1);
  });

  it('a connection reset (maybe sent) is not this case: without key or hint it is OutcomeUnknownError after one try', async () => {
    const transport = new ScriptedTransport((method) => {
      if (method === 'tools/list') return { tools: [] };
      throw new NetworkError('tools/call', {
        cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
      });
    });
    const error = await new TaskClient({ transport }).callTool('deploy', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(transport.of('tools/call')).toHaveLength(1);
  });
});
