/**
 * Era detection over stdio when the server is slow to start: real child processes, the router's real stdio probe
 * and the real legacy session, with the probe's time budget made small through the router's constructor (the
 * client's default is DISCOVER_PROBE_TIMEOUT_MS, 5 s) so that "slower than the probe" is cheap to produce.
 *
 * - A 2026-07-28 server (the bundled reference server) that only starts reading stdin after the probe's budget ran
 *   out stays modern: a late answer to `server/discover`, or `initialize` refused as an unknown method (-32601),
 *   switches back to the modern era, and the call resolves there; one `warning` says the probe was slow.
 * - 2025-11-25 servers keep their legacy path: one that ignores every request before `initialize`, and one that is
 *   slow too and then refuses `server/discover` with an error.
 * - A server that answers nothing fails with a typed error, never a hang.
 *
 * Spec: docs/specification/2026-07-28/basic/transports/stdio.mdx § Backward Compatibility ("does not respond within
 * a reasonable timeout: the server is legacy"; a `DiscoverResult` means modern) and basic/versioning.mdx § Backward
 * Compatibility (a modern server refuses `initialize` with a JSON-RPC error; the era is cached per server process,
 * re-probing if the cached assumption later fails). CLIENT-REQUIREMENTS: the legacy era over stdio (3.6).
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EraRouter } from '../../src/client/era-router.js';
import { ClientClosedError, RequestTimeoutError } from '../../src/errors.js';
import type { LegacyHost } from '../../src/legacy/legacy-backend.js';
import { StdioTransport } from '../../src/transport/stdio.js';
import { bundleReferenceServer, ROOT } from './servers.js';

/** The probe's budget in these tests, ms: far below any server's start-up delay below. */
const PROBE_MS = 50;
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

/**
 * Starts `node <script> ...rest` after a delay chosen by the first request the process reads: `delays` is
 * `<ms if server/discover>,<ms if initialize>` (the probed process, or the one the legacy attempt started). Not by
 * start order, which a loaded machine can swap: the second process may reach this code before the first. The first
 * chunk read goes back to stdin (which flows again once the script listens), so the script reads every byte the
 * client wrote. Each process also claims
 * `started-<n>` in the claim directory, so a test can count them.
 */
const DELAYED = `
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const [claims, delays, script, ...rest] = process.argv.slice(2);
const [probed, initialized] = delays.split(',').map(Number);
let n = 0;
for (;; n++) { try { openSync(join(claims, 'started-' + n), 'wx'); break; } catch {} }
process.argv = [process.argv[0], script, ...rest];
const stdin = process.stdin;
stdin.once('data', (chunk) => {
  stdin.pause();
  stdin.unshift(chunk);
  // Paused on purpose, the stream would not flow again for the script's 'data' listener: resume it then.
  const on = stdin.on.bind(stdin);
  stdin.on = (event, listener) => (on(event, listener), event === 'data' && stdin.resume(), stdin);
  const delay = /"method":"initialize"/.test(chunk.toString('utf8')) ? initialized : probed;
  setTimeout(() => import(pathToFileURL(script).href), delay);
});
`;

/** 2025-11-25: ignores every request before `initialize` (`silent`), or, after `delayMs`, refuses it with -32601. */
const legacyServer = (mode: 'silent' | 'refuses', delayMs: number) => `
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
let ready = false;
setTimeout(() => require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') {
    ready = true;
    return send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} },
      serverInfo: { name: 'legacy-${mode}', version: '1' } } });
  }
  if (m.id === undefined) return;
  if (!ready && ${JSON.stringify(mode)} === 'silent') return;
  if (!ready) return send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
}), ${delayMs});
`;

/** Reads stdin and never answers anything. */
const SILENT = `process.stdin.resume();`;

const host = (warnings: string[], timeoutMs?: number): LegacyHost => ({
  clientInfo: undefined,
  handlers: undefined,
  emitInput: () => undefined,
  listenerCount: () => 0,
  warning: (m) => warnings.push(m),
  timeoutMs,
});

let dir = '';
let reference: { script: string; dispose(): Promise<void> };
let delayed = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-tasks-slow-start-'));
  delayed = join(dir, 'delayed.mjs');
  await writeFile(delayed, DELAYED);
  reference = await bundleReferenceServer();
}, 60_000);
afterAll(async () => {
  await reference?.dispose();
  await rm(dir, { recursive: true, force: true });
});

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

/** A stdio transport and the router a `TaskClient` would build on it (probe: `server/discover` on the transport). */
function setUp(args: string[], timeoutMs?: number) {
  const transport = new StdioTransport({ command: process.execPath, args, cwd: ROOT, closeGraceMs: 500 });
  const warnings: string[] = [];
  let nextId = 1;
  const request = (method: string, params: Record<string, unknown>, signal?: AbortSignal) =>
    transport.request(
      { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: META } },
      { signal, timeoutMs: timeoutMs ?? 30_000 },
    );
  const router = new EraRouter(
    transport,
    'auto',
    host(warnings, timeoutMs),
    (signal) => request('server/discover', {}, signal),
    PROBE_MS,
  );
  open.push(router, transport);
  /** One call: `tools/call echo` in the modern era, the server's name from `initialize` in the legacy one. */
  const call = () =>
    router.route<{ era: string; content?: unknown; serverInfo?: unknown }>(
      async () => {
        const result = await request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
        return { era: 'modern', content: result.content };
      },
      async (legacy) => ({ era: 'legacy', serverInfo: (await legacy.discover()).serverInfo }),
    );
  return { transport, router, warnings, call };
}

/** A fresh claim directory for one test's processes of {@link DELAYED}. */
async function claims(): Promise<string> {
  return mkdtemp(join(dir, 'claims-'));
}

describe('a 2026-07-28 stdio server slower to start than the discover probe', () => {
  it('the late answer to server/discover keeps it modern; the call resolves there, one warning says so', {
    timeout: 30_000,
  }, async () => {
    // The probed process starts reading after 1 s; the one `initialize` would go to, only after 20 s.
    const { router, warnings, call } = setUp([
      delayed,
      await claims(),
      '1000,20000',
      reference.script,
      '--stdio',
    ]);
    await expect(call()).resolves.toEqual({ era: 'modern', content: [{ type: 'text', text: 'hi' }] });
    expect(router.era).toBe('modern');
    expect(warnings).toEqual([
      `server/discover got no answer within ${PROBE_MS} ms, so initialize was tried; the server speaks 2026-07-28 (its late answer to server/discover): continuing in the modern era`,
    ]);
    // Cached: the next call goes straight to the modern era.
    await expect(call()).resolves.toEqual({ era: 'modern', content: [{ type: 'text', text: 'hi' }] });
    expect(warnings).toHaveLength(1);
  });

  it('initialize refused as an unknown method (-32601) switches back to modern; the call resolves there', {
    timeout: 30_000,
  }, async () => {
    // The probed process starts reading after 2 s; the one `initialize` goes to, at once.
    const claimDir = await claims();
    const { router, warnings, call } = setUp([delayed, claimDir, '2000,0', reference.script, '--stdio']);
    await expect(call()).resolves.toEqual({ era: 'modern', content: [{ type: 'text', text: 'hi' }] });
    expect(router.era).toBe('modern');
    expect(warnings).toEqual([
      `server/discover got no answer within ${PROBE_MS} ms, so initialize was tried; the server speaks 2026-07-28 (initialize refused as an unknown method (-32601)): continuing in the modern era`,
    ]);
    // Two processes were started (the probed one, then the one `initialize` went to), and no third.
    expect((await readdir(claimDir)).sort()).toEqual(['started-0', 'started-1']);
  });
});

describe('2025-11-25 stdio servers keep the legacy path', () => {
  it.each([
    ['ignores every request before initialize', 'silent' as const, 0],
    ['is slow to start, then refuses server/discover with -32601', 'refuses' as const, 300],
  ])(
    'a server that %s: legacy, the session works, the probed process is ended',
    {
      timeout: 30_000,
    },
    async (_, mode, delayMs) => {
      const { transport, router, warnings, call } = setUp(['-e', legacyServer(mode, delayMs)]);
      await expect(call()).resolves.toEqual({
        era: 'legacy',
        serverInfo: { name: `legacy-${mode}`, version: '1' },
      });
      expect(router.era).toBe('legacy');
      expect(warnings).toEqual([]);
      // The process that got the probe was released: the transport that started it is closed.
      await expect(transport.request({ jsonrpc: '2.0', id: 'x', method: 'ping' })).rejects.toBeInstanceOf(
        ClientClosedError,
      );
    },
  );
});

it('a server that answers neither the probe nor initialize: a typed timeout naming initialize, no hang', {
  timeout: 30_000,
}, async () => {
  const { router, warnings, call } = setUp(['-e', SILENT], 1_000);
  const error = await call().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RequestTimeoutError);
  expect((error as RequestTimeoutError).message).toMatch(/initialize/);
  expect(router.era).toBe('legacy');
  expect(warnings).toEqual([]);
});
