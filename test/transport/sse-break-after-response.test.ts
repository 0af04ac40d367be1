/**
 * An SSE reply whose connection breaks right after its last event: the response that arrived whole is used, over
 * both senders (fetch and undici), whatever line ends the server wrote. Real loopback HTTP; the server writes its
 * events and then destroys the socket mid-body (a chunked reply without its last chunk).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamEndedError } from '../../src/errors.js';
import { fetchSender, type HttpSender } from '../../src/transport/http-sender.js';
import { StreamableHttpTransport } from '../../src/transport/streamable-http.js';
import { createUndiciSender } from '../../src/transport/undici-sender.js';
import { closeLoopback, listenLoopback } from '../helpers/loopback-server.js';
import type { Server } from 'node:http';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
let server: Server | undefined;
let transport: StreamableHttpTransport | undefined;
afterEach(async () => {
  await closeLoopback(server, transport);
  server = undefined;
  transport = undefined;
});

/** Serves `events(id)` as one SSE reply, then resets the connection once the bytes are written. */
async function breakingSse(events: (id: unknown) => string[]): Promise<string> {
  const started = await listenLoopback((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { id } = JSON.parse(body) as { id: unknown };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const parts = events(id);
      const last = parts.length - 1;
      parts.forEach((part, i) =>
        res.write(part, i === last ? () => setImmediate(() => req.socket.destroy()) : undefined),
      );
    });
  });
  server = started.server;
  return started.url;
}

const response = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result: { ok: true, _meta: META } });
const progress = JSON.stringify({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 't', progress: 1 },
});

const senders: Array<[string, () => HttpSender]> = [
  ['fetch', () => fetchSender((...args) => globalThis.fetch(...args))],
  ['undici', () => createUndiciSender()],
];

/** The layout, the events written before the break, and whether the response is only found by flushing after the break. */
const layouts: Array<[string, (id: unknown) => string[], boolean]> = [
  ['LF line ends, one write', (id) => [`data: ${progress}\n\ndata: ${response(id)}\n\n`], false],
  [
    'LF line ends, events in separate writes',
    (id) => [`data: ${progress}\n\n`, `data: ${response(id)}\n\n`],
    false,
  ],
  [
    'CR line ends (the last CR held back by the parser)',
    (id) => [`data: ${progress}\r\rdata: ${response(id)}\r\r`],
    true,
  ],
  [
    'the blank line missing: a whole data line, then the break',
    (id) => [`data: ${progress}\n\ndata: ${response(id)}\n`],
    true,
  ],
];

describe.each(senders)('an SSE reply broken right after the response (%s sender)', (_name, sender) => {
  it.each(layouts)(
    '%s: the response is used (a violation when found only after the break)',
    async (_layout, events, flushed) => {
      const url = await breakingSse(events);
      transport = new StreamableHttpTransport(url, { sender: sender() });
      const violations: string[] = [];
      const result = await transport.request(
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x', _meta: META } },
        { timeoutMs: 5_000, onViolation: (v) => violations.push(v) },
      );
      expect(result).toEqual({ ok: true, _meta: META });
      expect(violations).toEqual(
        flushed
          ? [
              expect.stringMatching(
                /^tools\/call: the connection broke after the whole response had arrived \(.+\); the response is used$/,
              ),
            ]
          : [],
      );
    },
  );

  it('a data line cut mid-JSON, then the break: the request is lost (StreamEndedError), nothing guessed', async () => {
    const url = await breakingSse((id) => [`data: ${response(id).slice(0, 20)}`]);
    transport = new StreamableHttpTransport(url, { sender: sender() });
    await expect(
      transport.request(
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x' } },
        { timeoutMs: 5_000 },
      ),
    ).rejects.toBeInstanceOf(StreamEndedError);
  });
});
