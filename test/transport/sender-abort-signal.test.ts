/**
 * What a sender gets to abort a POST: one standard AbortSignal per request (no second, hand-made abort object),
 * which undici receives as it is. The caller's signal and the transport's close() both reach it, with their own
 * reasons, and the POST on the wire is torn down. Real undici over loopback HTTP.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http)
 */
import { getEventListeners } from 'node:events';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamableHttpTransport, StreamEndedError } from '../../src/index.js';
import type { HttpSender, HttpSendRequest } from '../../src/transport/http-sender.js';
import { createUndiciSender } from '../../src/transport/undici-sender.js';
import { closeLoopback, listenLoopback } from '../helpers/loopback-server.js';

let server: Server | undefined;
let transport: StreamableHttpTransport | undefined;
let pool: HttpSender | undefined;
afterEach(async () => {
  await closeLoopback(server, transport);
  await pool?.close?.(); // a sender given to the transport is the caller's to close
  server = transport = pool = undefined;
});

/** A server that never answers, reporting when a POST arrives and when its connection is closed by the client. */
async function silentServer() {
  const events: string[] = [];
  let arrived: () => void = () => {};
  const posted = new Promise<void>((resolve) => (arrived = resolve));
  const loopback = await listenLoopback((req) => {
    events.push('posted');
    req.socket.on('close', () => events.push('closed'));
    arrived();
  });
  server = loopback.server;
  return { url: loopback.url, events, posted };
}

/** undici, recording each request it is given. */
function recordingUndici(): { sender: HttpSender; sent: HttpSendRequest[] } {
  const undici = createUndiciSender();
  pool = undici;
  const sent: HttpSendRequest[] = [];
  return {
    sent,
    sender: {
      send: (request) => (sent.push(request), undici.send(request)),
      close: () => undici.close?.() ?? Promise.resolve(),
    },
  };
}

const request = { jsonrpc: '2.0' as const, id: 1, method: 'tools/list', params: {} };

describe('the abort a sender gets', () => {
  it('is one AbortSignal, the only abort field; close() aborts it with StreamEndedError and undici closes the POST', async () => {
    const { url, events, posted } = await silentServer();
    const { sender, sent } = recordingUndici();
    transport = new StreamableHttpTransport(url, { sender });
    const pending = transport.request(request).catch((e: unknown) => e);
    await posted;
    expect(sent).toHaveLength(1);
    expect(sent[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(Object.keys(sent[0] ?? {}).filter((key) => /abort/i.test(key))).toEqual([]);
    await transport.close();
    expect(await pending).toBeInstanceOf(StreamEndedError);
    expect(sent[0]?.signal.reason).toBeInstanceOf(StreamEndedError);
    while (!events.includes('closed')) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(events).toEqual(['posted', 'closed']);
  });

  it("the caller's abort reaches it with the caller's reason; the caller's signal keeps no listener", async () => {
    const { url, posted } = await silentServer();
    const { sender, sent } = recordingUndici();
    transport = new StreamableHttpTransport(url, { sender });
    const caller = new AbortController();
    const pending = transport.request(request, { signal: caller.signal }).catch((e: unknown) => e);
    await posted;
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    const reason = new Error('caller gave up');
    caller.abort(reason);
    expect(await pending).toBe(reason);
    expect(sent[0]?.signal.reason).toBe(reason);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });
});
