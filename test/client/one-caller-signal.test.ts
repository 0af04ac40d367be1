/**
 * One caller's signal shared by many calls (a process-wide shutdown signal, say): each call links it to its own
 * AbortSignal and unlinks it when the call ends, so the signal keeps no listener, however many requests used it,
 * and Node never prints a MaxListenersExceededWarning, with calls one after the other or all at once. Real HTTP on
 * loopback, through the undici sender (which gets the request's real AbortSignal) and the fetch sender.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation)
 */
import { getEventListeners } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { fetchSender, type HttpSender } from '../../src/transport/http-sender.js';
import { createUndiciSender } from '../../src/transport/undici-sender.js';
import { closeLoopback, listenLoopback } from '../helpers/loopback-server.js';

let server: Server | undefined;
let client: TaskClient | undefined;
const warnings: Error[] = [];
const onWarning = (warning: Error): void => void warnings.push(warning);
beforeEach(() => {
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(async () => {
  process.off('warning', onWarning);
  await closeLoopback(server, client);
  server = client = undefined;
});

const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

/** Answers every `tools/call` inline, when `onCall` calls the answer it gets (at once by default). */
async function start(sender: HttpSender, onCall: (answer: () => void) => void = (answer) => answer()) {
  const loopback = await listenLoopback((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const { id } = JSON.parse(body) as { id: number };
      onCall(() =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'ok' }] } })),
      );
    });
  });
  server = loopback.server;
  client = new TaskClient({
    transport: new StreamableHttpTransport(loopback.url, { sender }),
    era: 'modern',
  });
  return client;
}

/** Lets queued 'warning' events (emitted on a later tick) arrive. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const maxListenerWarnings = (): Error[] => warnings.filter((w) => w.name === 'MaxListenersExceededWarning');

describe('one caller signal, many calls', () => {
  it('1,000 sequential calls (undici sender): one listener on the signal while a call is in flight, none after; no MaxListenersExceededWarning', async () => {
    const caller = new AbortController();
    let inFlight = -1;
    const c = await start(createUndiciSender(), (answer) => {
      inFlight = Math.max(inFlight, listeners(caller.signal));
      answer();
    });
    for (let i = 0; i < 1_000; i++) {
      const result = await c.callTool('echo', {}, { signal: caller.signal });
      expect(result).toEqual({ content: [{ type: 'text', text: 'ok' }] });
    }
    await settle();
    expect(inFlight).toBe(1);
    expect(listeners(caller.signal)).toBe(0);
    expect(maxListenerWarnings()).toEqual([]);
  });
});

describe.each([
  ['undici', createUndiciSender],
  ['fetch', () => fetchSender((...args) => globalThis.fetch(...args))],
])('one caller signal, many calls (%s sender)', (_name, makeSender) => {
  it('50 calls at once: one listener on the signal (not 50), none after; no MaxListenersExceededWarning; an abort then ends every call with its reason', async () => {
    const caller = new AbortController();
    const held: Array<() => void> = [];
    const c = await start(makeSender({ maxConnectionsPerOrigin: 64 }), (answer) => held.push(answer));
    const first = Array.from({ length: 50 }, () => c.callTool('echo', {}, { signal: caller.signal }));
    for (const call of first) call.catch(() => undefined); // a failed assertion below leaves no unhandled rejection
    while (held.length < 50) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(listeners(caller.signal)).toBe(1);
    for (const answer of held.splice(0)) answer();
    expect((await Promise.all(first)).length).toBe(50);
    await settle();
    expect(listeners(caller.signal)).toBe(0);

    // Held again, then aborted: every call rejects with the caller's reason, even though each answer arrives within
    // the abort grace (an inline result read after an abort is not handed out)
    const reason = new Error('shutting down');
    const second = Array.from({ length: 50 }, () =>
      c.callTool('echo', {}, { signal: caller.signal }).catch((e: unknown) => e),
    );
    while (held.length < 50) await new Promise((resolve) => setTimeout(resolve, 5));
    caller.abort(reason);
    for (const answer of held.splice(0)) answer();
    const outcomes = await Promise.all(second);
    expect(outcomes.every((o) => o === reason)).toBe(true);
    await settle();
    expect(listeners(caller.signal)).toBe(0);
    expect(maxListenerWarnings()).toEqual([]);
  });
});

describe('one link per call, one per request', () => {
  it('an inline tools/call makes two AbortControllers (the call’s link and its POST’s), with or without a caller’s signal; its abort grace holds the call’s link instead of making a third', async () => {
    const tools = await start(createUndiciSender());
    await tools.callTool('echo', {}); // the era is known, the connection open
    const Real = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends Real {
      constructor() {
        super();
        made += 1;
      }
    };
    try {
      await tools.callTool('echo', {});
      const withoutSignal = made;
      made = 0;
      const caller = new Real();
      await tools.callTool('echo', {}, { signal: caller.signal });
      expect([withoutSignal, made]).toEqual([2, 2]);
    } finally {
      globalThis.AbortController = Real;
    }
  });
});
