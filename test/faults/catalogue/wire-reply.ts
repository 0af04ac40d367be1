/**
 * What a fault answers on the wire: a JSON body, raw bytes (HTML, SSE frames, a cut stream), or a generated stream
 * (a 50 MB body, a stream that never ends), and how each is written to a Node `ServerResponse`.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';

/** A JSON reply: `body` is serialised as it is (a JSON-RPC response, or anything a fault wants to send). */
export interface JsonWireReply {
  kind: 'json';
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * Raw bytes, written chunk by chunk (each chunk is flushed separately, so a client sees real chunk boundaries).
 * `end` says how the response finishes: `'end'` (normal), `'destroy'` (the socket is cut, no terminating chunk),
 * or `'hang'` (never finishes; the server keeps the connection open until the client goes away).
 */
export interface RawWireReply {
  kind: 'raw';
  status: number;
  headers?: Record<string, string>;
  chunks: ReadonlyArray<string | Uint8Array>;
  end?: 'end' | 'destroy' | 'hang';
  /** Pause between chunks, ms. @default 0 */
  chunkDelayMs?: number;
}

/**
 * A generated body: `produce` is called with a `write` that resolves when the chunk was taken (back-pressure) and a
 * signal that aborts when the client closes the connection. When `produce` returns, the response ends.
 */
export interface StreamWireReply {
  kind: 'stream';
  status: number;
  headers?: Record<string, string>;
  produce: (write: (chunk: string | Uint8Array) => Promise<void>, signal: AbortSignal) => Promise<void>;
}

/** Any reply a fault can give. */
export type WireReply = JsonWireReply | RawWireReply | StreamWireReply;

/** A JSON reply. */
export function jsonReply(body: unknown, status = 200, headers?: Record<string, string>): JsonWireReply {
  return { kind: 'json', status, body, ...(headers ? { headers } : {}) };
}

/** One SSE event frame `data: …` per line of `payload` (JSON unless a string is given), `\n` line ends. */
export function sseFrame(payload: unknown, options: { event?: string; eol?: '\n' | '\r\n' } = {}): string {
  const eol = options.eol ?? '\n';
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const lines = options.event ? [`event: ${options.event}`] : [];
  for (const line of text.split('\n')) lines.push(`data: ${line}`);
  return lines.join(eol) + eol + eol;
}

const SSE_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' };

/** A raw `text/event-stream` reply made of `chunks`. */
export function sseReply(
  chunks: ReadonlyArray<string | Uint8Array>,
  end: RawWireReply['end'] = 'end',
): RawWireReply {
  return { kind: 'raw', status: 200, headers: SSE_HEADERS, chunks, end };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Writes `reply` to `res`. Resolves when the response ended, was cut, or (for `'hang'`) the client closed it.
 * `closed` aborts when the client closed the connection first.
 */
export async function writeWireReply(
  res: ServerResponse,
  reply: WireReply,
  closed: AbortSignal,
): Promise<void> {
  if (reply.kind === 'json') {
    res.writeHead(reply.status, { 'Content-Type': 'application/json', ...reply.headers });
    res.end(JSON.stringify(reply.body));
    return;
  }
  res.writeHead(reply.status, reply.headers ?? {});
  res.flushHeaders();
  if (reply.kind === 'stream') {
    const write = (chunk: string | Uint8Array): Promise<void> =>
      new Promise((resolve) => {
        if (closed.aborted || res.destroyed) return resolve();
        if (res.write(chunk)) return resolve();
        const go = (): void => {
          res.off('drain', go);
          closed.removeEventListener('abort', go);
          resolve();
        };
        res.on('drain', go);
        closed.addEventListener('abort', go, { once: true });
      });
    await reply.produce(write, closed);
    if (!closed.aborted) res.end();
    return;
  }
  for (const chunk of reply.chunks) {
    if (closed.aborted) return;
    res.write(chunk);
    if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs, closed);
  }
  const end = reply.end ?? 'end';
  if (end === 'end') res.end();
  else if (end === 'destroy') res.destroy();
  else await sleep(2 ** 31 - 1, closed); // 'hang': until the client goes away
}
