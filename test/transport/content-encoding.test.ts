/**
 * HTTP the way servers send it, on both senders (undici for Node, `fetch` elsewhere), over real loopback HTTP:
 * `Accept-Encoding` is sent, gzip, deflate and brotli bodies (JSON and SSE) are decoded, the size limit counts
 * decoded bytes (a small compressed body that decodes past `maxResponseBytes` is refused), and media types are
 * matched case-insensitively with their parameters (RFC 9110 §8.3.1, §8.4, §12.5.3).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidResponseError, ResponseTooLargeError } from '../../src/errors.js';
import { fetchSender, type HttpSender } from '../../src/transport/http-sender.js';
import { StreamableHttpTransport } from '../../src/transport/streamable-http.js';
import { createUndiciSender } from '../../src/transport/undici-sender.js';
import { closeLoopback, listenLoopback } from '../helpers/loopback-server.js';

const ENCODERS: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => gzipSync(b),
  deflate: (b) => deflateSync(b),
  br: (b) => brotliCompressSync(b),
};

let server: Server | undefined;
let transport: StreamableHttpTransport | undefined;
afterEach(async () => {
  await closeLoopback(server, transport);
  server = undefined;
  transport = undefined;
});

const SENDERS: Array<[string, () => HttpSender]> = [
  ['undici', () => createUndiciSender()],
  ['fetch', () => fetchSender(globalThis.fetch)],
];

type Reply = (req: IncomingMessage, id: unknown) => { headers: Record<string, string>; body: Buffer };

async function start(reply: Reply, sender: HttpSender, maxResponseBytes?: number): Promise<string[]> {
  const acceptEncodings: string[] = [];
  const listening = await listenLoopback((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      acceptEncodings.push(String(req.headers['accept-encoding'] ?? ''));
      const { headers, body } = reply(req, (JSON.parse(raw) as { id: unknown }).id);
      res.writeHead(200, headers);
      res.end(body);
    });
  });
  server = listening.server;
  transport = new StreamableHttpTransport(listening.url, { sender, maxResponseBytes });
  return acceptEncodings;
}

const call = () =>
  transport?.request({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) as Promise<
    Record<string, unknown>
  >;

describe.each(SENDERS)('the %s sender', (name, makeSender) => {
  it.each(Object.keys(ENCODERS))('asks for compressed bodies and reads a %s JSON body', async (coding) => {
    const asked = await start(
      (_req, id) => ({
        headers: { 'content-type': 'application/json', 'content-encoding': coding },
        body: (ENCODERS[coding] as (b: Buffer) => Buffer)(
          Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [{ name: 'zipped' }] } })),
        ),
      }),
      makeSender(),
    );
    await expect(call()).resolves.toEqual({ tools: [{ name: 'zipped' }] });
    // fetch sends its runtime's own list (Node 20: "gzip, deflate"), and still decodes br; undici sends ours.
    expect(asked[0]).toBe(name === 'undici' ? 'gzip, deflate, br' : 'gzip, deflate');
  });

  it.each(Object.keys(ENCODERS))('reads a %s SSE body', async (coding) => {
    await start(
      (_req, id) => ({
        headers: { 'content-type': 'text/event-stream', 'content-encoding': coding },
        body: (ENCODERS[coding] as (b: Buffer) => Buffer)(
          Buffer.from(
            `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: { ok: coding } })}\n\n`,
          ),
        ),
      }),
      makeSender(),
    );
    await expect(call()).resolves.toEqual({ ok: coding });
  });

  it('counts decoded bytes against maxResponseBytes (a 1 MB body gzipped to about 1 KB is refused at 64 KiB)', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { pad: ' '.repeat(1_000_000) } });
    const gzipped = gzipSync(Buffer.from(big));
    expect(gzipped.byteLength).toBeLessThan(64 * 1024);
    await start(
      () => ({ headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipped }),
      makeSender(),
      64 * 1024,
    );
    await expect(call()).rejects.toBeInstanceOf(ResponseTooLargeError);
  });

  it.each([
    'Application/JSON; charset=utf-8',
    'application/json;charset=UTF-8',
    ' APPLICATION/VND.EXAMPLE+JSON ',
  ])('takes a JSON reply labelled %j', async (contentType) => {
    await start(
      (_req, id) => ({
        headers: { 'content-type': contentType },
        body: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, result: { ok: true } })),
      }),
      makeSender(),
    );
    await expect(call()).resolves.toEqual({ ok: true });
  });

  it.each(['Text/Event-Stream', 'text/event-stream; charset=utf-8'])(
    'takes an SSE reply labelled %j',
    async (contentType) => {
      await start(
        (_req, id) => ({
          headers: { 'content-type': contentType },
          body: Buffer.from(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { sse: true } })}\n\n`),
        }),
        makeSender(),
      );
      await expect(call()).resolves.toEqual({ sse: true });
    },
  );

  it('refuses a reply that is neither JSON nor SSE, naming its content type', async () => {
    await start(
      () => ({ headers: { 'content-type': 'text/html' }, body: Buffer.from('<h1>hi</h1>') }),
      makeSender(),
    );
    const error = await call().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toContain('unexpected content-type "text/html"');
  });
});
