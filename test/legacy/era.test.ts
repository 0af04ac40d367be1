/**
 * Era detection: the rules of `eraFromError`, and the router that applies them, driven by scripted
 * transports. The legacy side is a real SDK 1.x server in memory (`InMemoryTransport`), so a call that the router
 * sends to the legacy era really goes through `initialize` and the SDK session.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { EraRouter, DISCOVER_PROBE_TIMEOUT_MS } from '../../src/client/era-router.js';
import {
  ClientClosedError,
  HttpError,
  McpError,
  NetworkError,
  RequestTimeoutError,
  ServerExitedError,
  TaskClient,
  UnsupportedProtocolVersionError,
  type JsonRpcRequest,
  type Transport,
} from '../../src/index.js';
import { eraFromError } from '../../src/legacy/era.js';
import type { LegacyHost } from '../../src/legacy/legacy-backend.js';
import type { CustomTarget } from '../../src/transport/transport.js';
import { ScriptedTransport, type Handler } from '../helpers/scripted-transport.js';

const rpc = (code: number, httpStatus?: number, method = 'tools/call') =>
  new McpError(method, { code, message: `error ${code}` }, { httpStatus });

describe('eraFromError', () => {
  it.each([
    ['400 + -32022 (unsupported version)', rpc(-32022, 400), 'modern'],
    ['400 + -32021 (missing capability)', rpc(-32021, 400), 'modern'],
    ['400 + -32020 (header mismatch)', rpc(-32020, 400), 'modern'],
    ['400 + -32602 (invalid params)', rpc(-32602, 400), 'modern'],
    ['404 + -32601 (method not found)', rpc(-32601, 404), 'modern'],
    ['400 + -32000 (server-everything: "Server not initialized")', rpc(-32000, 400), 'legacy'],
    ['400 + -32600', rpc(-32600, 400), 'legacy'],
    ['404 + -32001 (session not found)', rpc(-32001, 404), 'legacy'],
    ['405 + -32000', rpc(-32000, 405), 'legacy'],
    ['500 + -32603', rpc(-32603, 500), undefined],
    ['HTTP 400 without a JSON-RPC body', new HttpError('tools/call', 400, 'Bad Request'), 'legacy'],
    ['HTTP 404 without a JSON-RPC body', new HttpError('tools/call', 404, ''), 'legacy'],
    ['HTTP 405 without a JSON-RPC body', new HttpError('tools/call', 405, ''), 'legacy'],
    ['HTTP 401', new HttpError('tools/call', 401, ''), undefined],
    ['HTTP 503', new HttpError('tools/call', 503, ''), undefined],
    ['a JSON-RPC error without HTTP status (stdio) on a normal request', rpc(-32601), undefined],
    ['a request timeout on a normal request', new RequestTimeoutError('tools/call', 10), undefined],
    ['a network error', new NetworkError('tools/call', { cause: new Error('ECONNREFUSED') }), undefined],
    [
      '-32022 listing no version we speak (after renegotiation)',
      new UnsupportedProtocolVersionError('2026-07-28', ['2099-01-01'], { cause: rpc(-32022, 400) }),
      'modern',
    ],
    [
      'UnsupportedProtocolVersionError without a wire cause (SDK missing)',
      new UnsupportedProtocolVersionError('2026-07-28', ['2025-11-25'], { cause: new Error('no sdk') }),
      undefined,
    ],
    ['a plain Error', new Error('boom'), undefined],
    ['a non-error', 'aborted', undefined],
  ])('request: %s → %s', (_, error, era) => {
    expect(eraFromError(error, 'request')).toBe(era);
  });

  it.each([
    [
      '-32601 "Method not found" (what server-everything answers over stdio)',
      rpc(-32601, undefined, 'server/discover'),
      'legacy',
    ],
    ['-32600 invalid request (not initialized)', rpc(-32600, undefined, 'server/discover'), 'legacy'],
    ['-32603 internal error', rpc(-32603, undefined, 'server/discover'), 'legacy'],
    [
      '-32022 (a modern server that wants another version)',
      rpc(-32022, undefined, 'server/discover'),
      'modern',
    ],
    ['-32021', rpc(-32021, undefined, 'server/discover'), 'modern'],
    [
      '-32022 after renegotiation failed',
      new UnsupportedProtocolVersionError('2026-07-28', [], {
        cause: rpc(-32022, undefined, 'server/discover'),
      }),
      'modern',
    ],
    ['no answer within the probe timeout', new RequestTimeoutError('server/discover', 5_000), 'legacy'],
    ['the server exited', new ServerExitedError('node server.js', 1, null, 'boom'), undefined],
    ['the client was closed', new ClientClosedError(), undefined],
    ['an abort reason', new DOMException('aborted', 'AbortError'), undefined],
  ])('discover: %s → %s', (_, error, era) => {
    expect(eraFromError(error, 'discover')).toBe(era);
  });
});

/** A transport that is nothing but a server key and a legacy target whose factory is counted. */
function legacyCapable(
  probe: CustomTarget['probe'],
  createSdkTransport: () => Promise<unknown> = () => Promise.reject(new Error('no legacy server here')),
) {
  const calls = { create: 0 };
  const transport: Transport & { target: CustomTarget } = {
    serverKey: `test://${probe}/${Math.random()}`,
    request: () => Promise.reject(new Error('not used')),
    notify: async () => undefined,
    close: async () => undefined,
    target: {
      kind: 'custom',
      probe,
      createSdkTransport: () => {
        calls.create++;
        return createSdkTransport();
      },
    },
  };
  return { transport, calls };
}

const host: LegacyHost = {
  clientInfo: undefined,
  handlers: undefined,
  emitInput: () => undefined,
  listenerCount: () => 0,
  warning: () => undefined,
};
const never = (): Promise<never> => Promise.reject(new Error('probe not expected'));
const legacyCalled = async (): Promise<string> => 'legacy';

describe('EraRouter', () => {
  afterEach(() => vi.useRealTimers());

  it('a transport without a legacy target is modern from the start; no detection', async () => {
    const plain: Transport = {
      serverKey: 'plain',
      request: never,
      notify: async () => undefined,
      close: async () => undefined,
    };
    const router = new EraRouter(plain, 'auto', host, never);
    expect(router.era).toBe('modern');
    await expect(router.route(async () => 'modern', legacyCalled)).resolves.toBe('modern');
  });

  it('era "modern" / "legacy" is used as given, without probing', async () => {
    const { transport, calls } = legacyCapable('discover');
    const modern = new EraRouter(transport, 'modern', host, never);
    expect(modern.era).toBe('modern');
    await expect(modern.route(async () => 'modern', legacyCalled)).resolves.toBe('modern');
    const legacy = new EraRouter(transport, 'legacy', host, never);
    expect(legacy.era).toBe('legacy');
    // The legacy session is opened (and fails here: no server), the modern attempt is never made.
    const modernAttempt = vi.fn(async () => 'modern');
    await expect(legacy.route(modernAttempt, legacyCalled)).rejects.toBeInstanceOf(NetworkError);
    expect(modernAttempt).not.toHaveBeenCalled();
    expect(calls.create).toBe(1);
  });

  describe('HTTP (probe "request"): the first modern request decides', () => {
    it('success → modern, for this client only (no process-wide cache: each client decides its own era)', async () => {
      const { transport } = legacyCapable('request');
      const router = new EraRouter(transport, 'auto', host, never);
      expect(router.era).toBeUndefined();
      await expect(router.route(async () => 'ok', legacyCalled)).resolves.toBe('ok');
      expect(router.era).toBe('modern');
      expect(new EraRouter(transport, 'auto', host, never).era).toBeUndefined();
    });

    it("a modern rejection (400 + -32602) → modern, and the error is the caller's", async () => {
      const { transport, calls } = legacyCapable('request');
      const router = new EraRouter(transport, 'auto', host, never);
      const error = rpc(-32602, 400);
      await expect(router.route(() => Promise.reject(error), legacyCalled)).rejects.toBe(error);
      expect(router.era).toBe('modern');
      expect(calls.create).toBe(0);
    });

    it('a legacy signature (400 + -32000) → legacy: the session is opened and the call re-issued there', async () => {
      const { transport, calls } = legacyCapable('request');
      const router = new EraRouter(transport, 'auto', host, never);
      await expect(router.route(() => Promise.reject(rpc(-32000, 400)), legacyCalled)).rejects.toThrow(
        /no legacy server here/,
      );
      expect(router.era).toBe('legacy');
      expect(calls.create).toBe(1);
      expect(router.era).toBe('legacy');
    });

    it('an error that says nothing (network) is rethrown and decides nothing', async () => {
      const { transport } = legacyCapable('request');
      const router = new EraRouter(transport, 'auto', host, never);
      const error = new NetworkError('tools/call', { cause: new Error('ECONNREFUSED') });
      await expect(router.route(() => Promise.reject(error), legacyCalled)).rejects.toBe(error);
      expect(router.era).toBeUndefined();
    });
  });

  describe('stdio (probe "discover"): server/discover decides, with a timeout', () => {
    it('an answer → modern; the probe runs once', async () => {
      const { transport } = legacyCapable('discover');
      const probe = vi.fn(async () => ({ supportedVersions: ['2026-07-28'] }));
      const router = new EraRouter(transport, 'auto', host, probe);
      await expect(router.route(async () => 'modern', legacyCalled)).resolves.toBe('modern');
      await router.route(async () => 'modern', legacyCalled);
      expect(probe).toHaveBeenCalledTimes(1);
      expect(router.era).toBe('modern');
    });

    it('-32601 → legacy, without any modern attempt of the call itself', async () => {
      const { transport, calls } = legacyCapable('discover');
      const router = new EraRouter(transport, 'auto', host, () =>
        Promise.reject(rpc(-32601, undefined, 'server/discover')),
      );
      const modernAttempt = vi.fn(async () => 'modern');
      await expect(router.route(modernAttempt, legacyCalled)).rejects.toThrow(/no legacy server here/);
      expect(modernAttempt).not.toHaveBeenCalled();
      expect(router.era).toBe('legacy');
      expect(calls.create).toBe(1);
    });

    it('a silent server: the probe is aborted after DISCOVER_PROBE_TIMEOUT_MS and the era is legacy', async () => {
      vi.useFakeTimers();
      const { transport } = legacyCapable('discover');
      let seen: AbortSignal | undefined;
      const probe = (signal?: AbortSignal) =>
        new Promise<never>((_, reject) => {
          seen = signal;
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      const router = new EraRouter(transport, 'auto', host, probe);
      const routed = router.route(async () => 'modern', legacyCalled).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(DISCOVER_PROBE_TIMEOUT_MS - 1);
      expect(seen?.aborted).toBe(false);
      expect(router.era).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(seen?.reason).toBeInstanceOf(RequestTimeoutError);
      expect(await routed).toBeInstanceOf(NetworkError); // the legacy session was tried (no server in this test)
      expect(router.era).toBe('legacy');
    });

    it('the timeout decides even when the probe rejects with something else once aborted', async () => {
      vi.useFakeTimers();
      const { transport } = legacyCapable('discover');
      const probe = (signal?: AbortSignal) =>
        new Promise<never>((_, reject) =>
          signal?.addEventListener('abort', () => reject(new Error('write after abort')), { once: true }),
        );
      const router = new EraRouter(transport, 'auto', host, probe, 50);
      const routed = router.route(async () => 'modern', legacyCalled).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(50);
      await routed;
      expect(router.era).toBe('legacy');
    });

    it('the caller aborting stops its wait and caches nothing; the probe goes on and decides', async () => {
      vi.useFakeTimers();
      const { transport } = legacyCapable('discover');
      let answer!: (value: unknown) => void;
      const probe = vi.fn(() => new Promise((resolve) => (answer = resolve)));
      const router = new EraRouter(transport, 'auto', host, probe);
      const controller = new AbortController();
      const reason = new Error('caller gave up');
      const routed = router.route(async () => 'modern', legacyCalled, controller.signal);
      controller.abort(reason);
      await expect(routed).rejects.toBe(reason);
      expect(router.era).toBeUndefined();
      answer({});
      await vi.advanceTimersByTimeAsync(0);
      expect(router.era).toBe('modern');
      expect(probe).toHaveBeenCalledTimes(1);
    });

    it('an already aborted signal rejects at once with its reason', async () => {
      const { transport } = legacyCapable('discover');
      const router = new EraRouter(transport, 'auto', host, async () => ({}));
      const controller = new AbortController();
      controller.abort('stop');
      await expect(router.route(async () => 'modern', legacyCalled, controller.signal)).rejects.toBe('stop');
    });

    it('a server that exited decides nothing: the error is rethrown and the next call probes again', async () => {
      const { transport, calls } = legacyCapable('discover');
      const exited = new ServerExitedError('node server.js', 1, null, 'crash');
      const probe = vi.fn().mockRejectedValueOnce(exited).mockResolvedValueOnce({});
      const router = new EraRouter(transport, 'auto', host, probe);
      await expect(router.route(async () => 'modern', legacyCalled)).rejects.toBe(exited);
      expect(router.era).toBeUndefined();
      expect(calls.create).toBe(0);
      await expect(router.route(async () => 'modern', legacyCalled)).resolves.toBe('modern');
      expect(probe).toHaveBeenCalledTimes(2);
    });

    it('concurrent first calls share one probe', async () => {
      const { transport } = legacyCapable('discover');
      let answer!: (value: unknown) => void;
      const probe = vi.fn(() => new Promise((resolve) => (answer = resolve)));
      const router = new EraRouter(transport, 'auto', host, probe);
      const all = Promise.all(
        [1, 2, 3].map((n) => router.route<number | string>(async () => n, legacyCalled)),
      );
      answer({});
      await expect(all).resolves.toEqual([1, 2, 3]);
      expect(probe).toHaveBeenCalledTimes(1);
    });
  });
});

/** A legacy (2025-11-25) server of the official SDK, in memory: `echo` only. */
function sdkServer(): { createSdkTransport: () => Promise<unknown>; close: () => Promise<void> } {
  const server = new McpServer({ name: 'legacy-in-memory', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'echo', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text: `legacy echo: ${text}` }] }),
  );
  return {
    createSdkTransport: async () => {
      const [client, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      return client;
    },
    close: () => server.close(),
  };
}

/** A scripted transport that can fall back to the in-memory SDK server. */
function scriptedLegacy(
  probe: CustomTarget['probe'],
  handler: Handler,
  legacy: { createSdkTransport: () => Promise<unknown> },
): ScriptedTransport & { target: CustomTarget } {
  const transport = new ScriptedTransport(handler) as ScriptedTransport & {
    target: CustomTarget;
    serverKey: string;
  };
  Object.defineProperty(transport, 'serverKey', { value: `scripted://${probe}/${Math.random()}` });
  transport.target = { kind: 'custom', probe, createSdkTransport: legacy.createSdkTransport };
  return transport;
}

describe('TaskClient over a scripted transport', () => {
  it('stdio-like: server/discover → -32601 → the call goes to the SDK session; only the probe was sent modern', async () => {
    const legacy = sdkServer();
    const transport = scriptedLegacy(
      'discover',
      (method) => ({ error: { code: -32601, message: `Method not found: ${method}` } }),
      legacy,
    );
    const client = new TaskClient({ transport });
    expect(client.era).toBeUndefined();
    const result = await client.callTool('echo', { text: 'hi' });
    expect(result.content).toEqual([{ type: 'text', text: 'legacy echo: hi' }]);
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(transport.sent.map((s) => s.message.method)).toEqual(['server/discover']);
    const meta = (transport.sent[0]?.message as JsonRpcRequest).params?._meta as Record<string, unknown>;
    expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    expect((await client.discover()).serverInfo).toMatchObject({ name: 'legacy-in-memory' });
    await client.close();
    await legacy.close();
  });

  it('stdio-like: a modern server answers server/discover and the call stays modern', async () => {
    const legacy = { createSdkTransport: () => Promise.reject(new Error('must not be called')) };
    const transport = scriptedLegacy(
      'discover',
      (method) =>
        method === 'server/discover'
          ? { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {} }
          : { resultType: 'complete', content: [{ type: 'text', text: 'modern' }] },
      legacy,
    );
    const client = new TaskClient({ transport });
    expect((await client.callTool('echo', { text: 'x' })).content).toEqual([
      { type: 'text', text: 'modern' },
    ]);
    expect(client.era).toBe('modern');
    expect(transport.sent.map((s) => s.message.method)).toEqual(['server/discover', 'tools/call']);
  });

  it('HTTP-like: the modern tools/call is refused with 400 + -32000 → re-issued once on the SDK session', async () => {
    const legacy = sdkServer();
    const transport = scriptedLegacy(
      'request',
      (method) => {
        throw new McpError(
          method,
          { code: -32000, message: 'Bad Request: Server not initialized' },
          { httpStatus: 400 },
        );
      },
      legacy,
    );
    const client = new TaskClient({ transport });
    const result = await client.callTool('echo', { text: 'again' });
    expect(result.content).toEqual([{ type: 'text', text: 'legacy echo: again' }]);
    expect(client.era).toBe('legacy');
    expect(transport.sent.map((s) => s.message.method)).toEqual(['tools/call']);
    // Cached: the next call goes straight to the session.
    await client.callTool('echo', { text: 'more' });
    expect(transport.sent).toHaveLength(1);
    await client.close();
    await legacy.close();
  });
});
