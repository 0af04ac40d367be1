/**
 * A lost creation (sent, no answer) makes the client ask `tools/list` whether a re-send is safe. That request runs
 * within the call's own budget: the call's `timeoutMs` and its signal (caller abort, `maxTotalTimeoutMs`), never the
 * client's default timeout. Real HTTP on loopback: a server that never answers.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#streamable-http)
 */
import type { IncomingMessage, Server } from 'node:http';
import { closeLoopback, listenLoopback } from '../helpers/loopback-server.js';
import { afterEach, describe, expect, it } from 'vitest';
import { OutcomeUnknownError, StreamableHttpTransport, TaskClient } from '../../src/index.js';

interface Seen {
  method: string;
  /** Resolves when the client closed this request's connection (it gave up on it). */
  closed: Promise<void>;
}

let server: Server | undefined;
let client: TaskClient | undefined;
afterEach(async () => {
  await closeLoopback(server, client);
  server = client = undefined;
});

/** A server that reads each request (noted on arrival by its `Mcp-Method` header) and never answers; `onRequest` may act on it (e.g. drop the connection). */
async function silentServer(
  onRequest: (seen: Seen, req: IncomingMessage) => void = () => {},
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const listening = await listenLoopback((req) => {
    const entry = {
      method: String(req.headers['mcp-method']),
      closed: new Promise<void>((resolve) => req.socket.once('close', () => resolve())),
    };
    seen.push(entry);
    req.resume();
    req.on('end', () => onRequest(entry, req));
  });
  server = listening.server;
  return { url: listening.url, seen };
}

describe('the tools/list behind a lost creation runs within the call budget', () => {
  it('per-call timeoutMs bounds it (client default 60 s): OutcomeUnknownError, the tools/list abandoned by the client', async () => {
    const { url, seen } = await silentServer((entry, req) => {
      if (entry.method === 'tools/call') req.socket.destroy(); // received, never answered: a lost creation
    });
    client = new TaskClient({
      transport: new StreamableHttpTransport(url),
      era: 'modern',
      timeoutMs: 60_000,
    });
    const error = await client.callTool('x', {}, { timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(seen.map((s) => s.method)).toEqual(['tools/call', 'tools/list']);
    await seen[1]!.closed; // the client closed it itself: the server never answers or closes
  });

  it('the caller signal aborts it: the call rejects at once with OutcomeUnknownError (the abort reason as cause): the lost creation may have started work', async () => {
    const reason = new Error('caller gave up');
    const controller = new AbortController();
    const { url, seen } = await silentServer((entry, req) => {
      if (entry.method === 'tools/call') req.socket.destroy(); // received, never answered: a lost creation
      if (entry.method === 'tools/list') controller.abort(reason);
    });
    client = new TaskClient({
      transport: new StreamableHttpTransport(url),
      era: 'modern',
      timeoutMs: 60_000,
      limits: { abortGraceMs: 60_000 },
    });
    const error = await client.callTool('x', {}, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).cause).toBe(reason);
    expect(seen.map((s) => s.method)).toEqual(['tools/call', 'tools/list']);
    await seen[1]!.closed;
  });
});
