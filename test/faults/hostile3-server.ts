/**
 * A hostile MCP server of our own for the hostile3 fault tests: plain `node:http` on 127.0.0.1, no reference-server
 * code. Every POST is parsed and queued as a {@link Held} request; a test takes it with {@link HostileServer.next}
 * and answers it however it likes (a result, an error, a dropped connection, half a body, an endless stream), or a
 * default `auto` answer handles it. Test code waits for real I/O with {@link ioTurn} (a real `setImmediate`, captured
 * before any fake timers), never a real-clock window.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeLoopback, listenLoopback } from '../helpers/loopback-server.js';
import type { Server } from 'node:http';

/** The real `setImmediate`, taken before a test fakes timers. */
const realImmediate = globalThis.setImmediate;

/** One turn of the event loop (I/O callbacks run), without the fake clock moving. */
export function ioTurn(): Promise<void> {
  return new Promise((resolve) => realImmediate(resolve));
}

/** Turns the event loop until `check()` is true (at most `turns` turns, then throws: a test bug, not a timing window). */
export async function until(check: () => boolean, what = 'condition', turns = 20_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (check()) return;
    await ioTurn();
  }
  throw new Error(`until: ${what} never became true`);
}

/** A request the server received and holds until the test answers it. */
export interface Held {
  readonly method: string;
  readonly id: unknown;
  readonly params: Record<string, unknown>;
  readonly headers: IncomingMessage['headers'];
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** True once the client's side of the connection closed (it aborted the POST, or the socket went). */
  readonly clientGone: () => boolean;
  /** A JSON-RPC result. */
  result(result: Record<string, unknown>): void;
  /** A JSON-RPC error. */
  error(code: number, message: string, data?: unknown): void;
  /** Any status, headers and raw body. */
  raw(status: number, body: string, headers?: Record<string, string>): void;
  /** Destroys the socket without a reply (a connection reset). */
  drop(): void;
  /** Headers and the start of a JSON body, then the socket is destroyed. */
  half(text: string): void;
}

/** What {@link HostileServer.auto} answers for requests no test takes. */
export type AutoReply = (held: Held) => boolean | undefined;

export interface HostileServer {
  readonly url: string;
  readonly server: Server;
  /** Every request received, in order (method, id, params). */
  readonly log: Array<{ method: string; id: unknown; params: Record<string, unknown> }>;
  /** The next request of `method` not yet taken (already queued, or the next to arrive). */
  next(method: string): Promise<Held>;
  /** Requests of `method` received so far. */
  count(method: string): number;
  /** Answers requests automatically when it returns true (checked before a test's `next`). */
  auto: AutoReply | undefined;
  close(client?: { close(): Promise<void> }): Promise<void>;
}

/** A task as a server would write it. */
export function wireTask(taskId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    taskId,
    status: 'working',
    createdAt: '2026-08-01T09:00:00Z',
    lastUpdatedAt: '2026-08-01T09:00:00Z',
    ttlMs: 600_000,
    pollIntervalMs: 1_000,
    ...overrides,
  };
}

/** Starts the hostile server. */
export async function startHostile(): Promise<HostileServer> {
  const queued = new Map<string, Held[]>();
  const waiting = new Map<string, Array<(held: Held) => void>>();
  const log: HostileServer['log'] = [];
  const counts = new Map<string, number>();
  const hostile: { auto: AutoReply | undefined } = { auto: undefined };

  const { server, url } = await listenLoopback((req, res) => {
    const chunks: Buffer[] = [];
    let gone = false;
    res.on('close', () => (gone = !res.writableFinished));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let message: { method?: string; id?: unknown; params?: Record<string, unknown> } = {};
      try {
        message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const method = String(message.method);
      const id = message.id;
      const params = message.params ?? {};
      log.push({ method, id, params });
      counts.set(method, (counts.get(method) ?? 0) + 1);
      if (id === undefined) {
        res.writeHead(202).end(); // a notification
        return;
      }
      const json = (body: unknown): void => {
        if (res.destroyed) return;
        const text = JSON.stringify(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end(text);
      };
      const held: Held = {
        method,
        id,
        params,
        headers: req.headers,
        req,
        res,
        clientGone: () => gone || res.destroyed,
        result: (result) => json({ jsonrpc: '2.0', id, result }),
        error: (code, msg, data) =>
          json({
            jsonrpc: '2.0',
            id,
            error: data === undefined ? { code, message: msg } : { code, message: msg, data },
          }),
        raw: (status, body, headers = { 'content-type': 'application/json' }) => {
          if (!res.destroyed) res.writeHead(status, headers).end(body);
        },
        drop: () => req.socket.destroy(),
        half: (text) => {
          if (res.destroyed) return;
          res.writeHead(200, {
            'content-type': 'application/json',
            'content-length': String(text.length * 2 + 10),
          });
          res.write(text, () => setImmediateReal(() => req.socket.destroy()));
        },
      };
      if (hostile.auto?.(held) === true) return;
      const waiter = waiting.get(method)?.shift();
      if (waiter) waiter(held);
      else {
        const list = queued.get(method) ?? [];
        list.push(held);
        queued.set(method, list);
      }
    });
  });
  return {
    url,
    server,
    log,
    get auto() {
      return hostile.auto;
    },
    set auto(reply: AutoReply | undefined) {
      hostile.auto = reply;
    },
    next(method) {
      const ready = queued.get(method)?.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve) => {
        const list = waiting.get(method) ?? [];
        list.push(resolve);
        waiting.set(method, list);
      });
    },
    count: (method) => counts.get(method) ?? 0,
    close: (client) => closeLoopback(server, client),
  };
}

const setImmediateReal = realImmediate;
