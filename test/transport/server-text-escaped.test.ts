/**
 * Server text quoted in a library error message never carries raw control characters (C0, DEL, C1), bidi controls
 * or lone surrogates: they are written as `\uXXXX`. The server's JSON-RPC `error.message` stays available raw on
 * `McpError.serverMessage`. Real HTTP on loopback.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/security_best_practices)
 */
import type { IncomingMessage, ServerResponse, Server } from 'node:http';
import { closeLoopback, listenLoopback } from '../helpers/loopback-server.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HttpError,
  InvalidResponseError,
  McpError,
  StreamableHttpTransport,
  TaskClient,
} from '../../src/index.js';

const HOSTILE = '\u001b[2J\u0000\u0007\u009b31m\u202eevil\ud800';
const RAW = /[\u0000-\u001f\u007f-\u009f\u202e]|[\ud800-\udfff]/;

let server: Server | undefined;
let client: TaskClient | undefined;
afterEach(async () => {
  await closeLoopback(server, client);
  server = client = undefined;
});

/** A server whose every answer is `answer(id, res)`. */
async function serve(
  answer: (id: number, res: ServerResponse, req: IncomingMessage) => void,
): Promise<TaskClient> {
  const listening = await listenLoopback((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => answer((JSON.parse(body) as { id: number }).id, res, req));
  });
  server = listening.server;
  return (client = new TaskClient({
    transport: new StreamableHttpTransport(listening.url),
    era: 'modern',
    creationRetry: { retries: 0 },
  }));
}

const json = (res: ServerResponse, body: unknown, status = 200): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

describe('server text in error messages is escaped', () => {
  it('an HTML 200 (unexpected content-type): InvalidResponseError without raw controls', async () => {
    const c = await serve((_, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html>${HOSTILE}</html>`),
    );
    const error = await c.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toContain('\\u001b[2J\\u0000\\u0007\\u009b31m\\u202eevil'); // (a lone surrogate arrives as U+FFFD over UTF-8)
    expect((error as Error).message).not.toMatch(RAW);
  });

  it('a body that is not JSON: the excerpt is escaped', async () => {
    const c = await serve((_, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{${HOSTILE}`),
    );
    const error = await c.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toMatch(/body is not JSON/);
    expect((error as Error).message).not.toMatch(RAW);
  });

  it('a JSON-RPC error message: McpError.message escaped, serverMessage raw', async () => {
    const c = await serve((id, res) =>
      json(res, { jsonrpc: '2.0', id, error: { code: -32000, message: HOSTILE } }),
    );
    const error = await c.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as Error).message).not.toMatch(RAW);
    expect((error as McpError).serverMessage).toBe(HOSTILE);
  });

  it('a non-2xx body: HttpError message escaped', async () => {
    const c = await serve((_, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(HOSTILE));
    const error = await c.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as Error).message).not.toMatch(RAW);
  });

  it('an unexpected resultType: escaped and cut', async () => {
    const c = await serve((id, res) =>
      json(res, { jsonrpc: '2.0', id, result: { resultType: `${HOSTILE}${'x'.repeat(5000)}`, tools: [] } }),
    );
    const error = await c.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).not.toMatch(RAW);
    expect((error as Error).message.length).toBeLessThan(300);
  });
});
