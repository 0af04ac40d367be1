/**
 * The hostile4 fault tests' own MCP server: plain `node:http` on 127.0.0.1. Each POST's JSON-RPC request goes to the
 * test's `reply` function, which answers it by returning a {@link Reply} (JSON, raw bytes, an SSE stream cut at
 * will, or nothing: the request is then kept in `held` for the test to answer later). Test code lets real I/O run
 * with {@link turn} (a real `setImmediate` captured before fake timers), never a real-clock window.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { closeLoopback, listenLoopback } from '../helpers/loopback-server.js';

const realImmediate = globalThis.setImmediate;

/** One event-loop turn, fake clock untouched. */
export function turn(): Promise<void> {
  return new Promise((resolve) => realImmediate(resolve));
}

/** Turns the loop until `ok()` (throws after `max` turns: a test bug, never a timing window). */
export async function waitFor(ok: () => boolean, what: string, max = 20_000): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (ok()) return;
    await turn();
  }
  throw new Error(`waitFor: ${what}`);
}

export interface Req {
  readonly method: string;
  readonly id: unknown;
  readonly params: Record<string, unknown>;
  readonly res: ServerResponse;
  readonly req: IncomingMessage;
}

/** How to answer: a JSON-RPC result / error, raw text, SSE events then an optional cut, or `undefined` to hold it. */
export type Reply =
  | { result: unknown; status?: number; headers?: Record<string, string> }
  | {
      error: { code: number; message: string; data?: unknown };
      status?: number;
      headers?: Record<string, string>;
    }
  | { raw: string; status: number; headers?: Record<string, string> }
  | { sse: string[]; cut?: boolean }
  | undefined;

export interface Hostile4 {
  readonly url: string;
  reply: (req: Req) => Reply;
  readonly seen: Req[];
  readonly held: Req[];
  /** Answers a held request. */
  answer(req: Req, reply: Exclude<Reply, undefined>): void;
  close(): Promise<void>;
}

function send(r: Req, reply: Exclude<Reply, undefined>): void {
  const { res, req } = r;
  if (res.destroyed) return;
  if ('sse' in reply) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const event of reply.sse) res.write(event);
    if (reply.cut) {
      // the response is written: the socket goes without the chunked terminator
      res.once('finish', () => undefined);
      realImmediate(() => req.socket.destroy());
    } else res.end();
    return;
  }
  if ('raw' in reply) {
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(reply.raw);
    return;
  }
  const body =
    'result' in reply
      ? { jsonrpc: '2.0', id: r.id, result: reply.result }
      : { jsonrpc: '2.0', id: r.id, error: reply.error };
  res
    .writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers })
    .end(JSON.stringify(body));
}

export async function startHostile4(): Promise<Hostile4> {
  let server: Server | undefined;
  const state: Hostile4 = {
    url: '',
    reply: () => undefined,
    seen: [],
    held: [],
    answer: send,
    close: () => closeLoopback(server),
  };
  const started = await listenLoopback((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let msg: { method?: unknown; id?: unknown; params?: Record<string, unknown> };
      try {
        msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const r: Req = { method: String(msg.method), id: msg.id, params: msg.params ?? {}, res, req };
      state.seen.push(r);
      const reply = state.reply(r);
      if (reply === undefined) state.held.push(r);
      else send(r, reply);
    });
  });
  server = started.server;
  return Object.assign(state, { url: started.url });
}

/** A task as a server writes it (the wire shape only: the same helper as the hostile3 tests'). */
export { wireTask as task } from './hostile3-server.js';
