/**
 * Faults at the HTTP level: an HTML page with 200 or 502 (a proxy or a login page in the way), 404 and 405 without a
 * JSON-RPC body (not a modern MCP endpoint), and a JSON body of any size, streamed (50 MB by default) to hit the
 * client's `maxResponseBytes`.
 *
 * @module
 */
import type { Fault } from './fault.js';
import type { WireReply } from './wire-reply.js';

const HTML =
  '<!DOCTYPE html>\n<html><head><title>Bad Gateway</title></head>\n<body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>\n';
const LOGIN =
  '<!DOCTYPE html>\n<html><head><title>Sign in</title></head>\n<body><form action="/login"><input name="user"></form></body></html>\n';

function raw(
  status: number,
  contentType: string | undefined,
  body: string,
  headers: Record<string, string> = {},
): WireReply {
  return {
    kind: 'raw',
    status,
    headers: { ...(contentType ? { 'Content-Type': contentType } : {}), ...headers },
    chunks: body ? [body] : [],
  };
}

/** HTTP 200 with an HTML page (a captive portal or login page answering for the endpoint). */
export function html200(): Fault {
  return { name: 'HTTP 200 with HTML', reply: () => raw(200, 'text/html; charset=utf-8', LOGIN) };
}

/** HTTP 502 with an HTML page from a proxy. */
export function html502(): Fault {
  return { name: 'HTTP 502 with HTML', reply: () => raw(502, 'text/html', HTML) };
}

/** HTTP 404 with a plain-text body (no JSON-RPC error). */
export function status404(): Fault {
  return { name: 'HTTP 404', reply: () => raw(404, 'text/plain', 'Not Found') };
}

/** HTTP 405 with `Allow: GET` and no body (an old SSE-only endpoint). */
export function status405(): Fault {
  return { name: 'HTTP 405', reply: () => raw(405, undefined, '', { Allow: 'GET' }) };
}

/**
 * A valid JSON-RPC response of about `bytes` bytes (one huge text block), streamed in 64 KiB chunks with
 * back-pressure, so the server never holds it in memory and stops when the client closes the connection.
 */
export function hugeJsonBody(bytes = 50 * 1024 * 1024): Fault {
  return {
    name: `JSON body of ${Math.round(bytes / 1024 / 1024)} MB`,
    reply: (request) => {
      const head = `{"jsonrpc":"2.0","id":${JSON.stringify(request.id ?? null)},"result":{"content":[{"type":"text","text":"`;
      const tail = '"}]}}';
      const chunk = 'x'.repeat(64 * 1024);
      return {
        kind: 'stream',
        status: 200,
        headers: { 'Content-Type': 'application/json' },
        produce: async (write, signal) => {
          await write(head);
          let left = Math.max(0, bytes - head.length - tail.length);
          while (left > 0 && !signal.aborted) {
            const piece = left >= chunk.length ? chunk : chunk.slice(0, left);
            await write(piece);
            left -= piece.length;
          }
          if (!signal.aborted) await write(tail);
        },
      };
    },
  };
}

/**
 * The honest JSON response in full, but under a `Content-Length` `missingBytes` larger than it, and then the
 * connection is cut: the body the client reads is one complete JSON-RPC message, and the read then fails.
 */
export function contentLengthTooLong(missingBytes = 100): Fault {
  return {
    name: `Content-Length ${missingBytes} bytes too long, then cut`,
    async reply(_request, next) {
      const honest = await next();
      if (honest.kind !== 'json') return honest;
      const text = JSON.stringify(honest.body);
      return {
        kind: 'raw',
        status: honest.status,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': String(Buffer.byteLength(text) + missingBytes),
        },
        chunks: [text],
        chunkDelayMs: 50, // the bytes reach the client before the cut
        end: 'destroy',
      };
    },
  };
}

/**
 * The honest JSON response cut right after the string value of its first `field` (e.g. `taskId`: the id is all
 * there, the rest of the body is not), then the connection is cut.
 */
export function jsonCutAfterField(field: string): Fault {
  return {
    name: `JSON body cut after its ${field}`,
    async reply(_request, next) {
      const honest = await next();
      if (honest.kind !== 'json') return honest;
      const text = JSON.stringify(honest.body);
      const key = `"${field}":"`;
      const at = text.indexOf(key);
      const cut = at === -1 ? text.length - 1 : text.indexOf('"', at + key.length) + 1;
      return {
        kind: 'raw',
        status: honest.status,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) },
        chunks: [text.slice(0, cut)],
        chunkDelayMs: 50, // the bytes reach the client before the cut
        end: 'destroy',
      };
    },
  };
}
