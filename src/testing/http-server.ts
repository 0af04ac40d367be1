/**
 * Streamable HTTP (2026-07-28) front end of the reference server, on loopback: one POST per message to `/mcp`,
 * answered with `application/json`, or `text/event-stream` (notifications, then the response) when the request has a
 * `progressToken` in `_meta` or the `sse` option is set. GET and DELETE get 405 (no standalone stream, no
 * sessions: `Mcp-Session-Id` is ignored and never issued).
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { ErrorCode, HEADERS, type JsonRpcNotification } from '../protocol/index.js';
import { BearerGuard, type BearerAuthOptions, type BearerAuthStats } from './bearer-auth.js';
import { DEFAULT_MAX_BODY_BYTES, parseOptions, type TaskServerCoreOptions } from './options.js';
import { TaskServerCore } from './server-core.js';
import type { ServerStats } from './stats.js';

/** Options of {@link createTaskServer}: the core's options plus the HTTP ones. */
export interface TaskServerOptions extends TaskServerCoreOptions {
  /** Interface to listen on; keep it loopback. @default '127.0.0.1' */
  host?: string;
  /** TCP port; 0 picks a free one. @default 0 */
  port?: number;
  /** The MCP endpoint path. @default '/mcp' */
  path?: string;
  /**
   * CORS: `true` allows any origin, a string allows that one origin (e.g. `"http://localhost:5173"`). Adds
   * `Access-Control-Allow-*` headers and answers `OPTIONS` preflights. Without it, only loopback `Origin`s (or none)
   * are accepted; others get 403 (DNS-rebinding protection). @default undefined
   */
  cors?: string | true;
  /** Answer every successful request as `text/event-stream` (if the client accepts it). @default false */
  sse?: boolean;
  /** Largest accepted request body in bytes; larger bodies get 413. @default DEFAULT_MAX_BODY_BYTES */
  maxBodyBytes?: number;
  /**
   * Require a bearer token (MCP authorization, resource server side): protected resource metadata, 401/403
   * challenges, tokens checked by your verifier against the server's `now`. @default undefined (no auth)
   */
  auth?: BearerAuthOptions;
}

/** A running reference server. */
export interface TaskServer {
  /** The endpoint, e.g. `http://127.0.0.1:49152/mcp`. */
  readonly url: string;
  /** The transport-independent core (task store, catalog, options). */
  readonly core: TaskServerCore;
  /** Shortcut for `core.stats`. */
  readonly stats: ServerStats;
  /** What the bearer-token protection did (with the `auth` option). */
  readonly authStats: BearerAuthStats | undefined;
  /** Stops every job, closes open connections and stops listening. */
  close(): Promise<void>;
}

const HttpOptionsSchema = z.looseObject({
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65_535).optional(),
  path: z.string().startsWith('/').optional(),
  cors: z.union([z.literal(true), z.string().min(1)]).optional(),
  sse: z.boolean().optional(),
  maxBodyBytes: z.number().int().positive().optional(),
  auth: z.custom<BearerAuthOptions>((v) => v !== null && typeof v === 'object').optional(),
});

const ALLOWED_HEADERS = [
  'Content-Type',
  'Accept',
  HEADERS.protocolVersion,
  HEADERS.method,
  HEADERS.name,
  'Authorization',
  'Last-Event-ID',
];
const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;

/**
 * Starts the reference server.
 *
 * @throws {TypeError} when an option is invalid; rejects when the port cannot be bound.
 * @example
 * ```ts
 * const server = await createTaskServer({ inlineBudgetMs: 20, timeScale: 0.1 });
 * // … point a client at server.url …
 * await server.close();
 * ```
 */
export async function createTaskServer(options: TaskServerOptions = {}): Promise<TaskServer> {
  parseOptions(HttpOptionsSchema, options);
  const {
    host = '127.0.0.1',
    port = 0,
    path = '/mcp',
    cors,
    sse = false,
    maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
    auth,
    ...coreOptions
  } = options;
  const core = new TaskServerCore(coreOptions);
  const guard = auth ? new BearerGuard(auth, path, core.options.now) : undefined;
  const server = createServer((req, res) => {
    handleHttp(req, res, { core, path, cors, sse, maxBodyBytes, guard }).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}${path}`;
  guard?.setResource(url);
  return {
    url,
    core,
    stats: core.stats,
    authStats: guard?.stats,
    close: () =>
      new Promise<void>((resolve) => {
        core.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface HttpContext {
  core: TaskServerCore;
  path: string;
  cors: string | true | undefined;
  sse: boolean;
  maxBodyBytes: number;
  guard: BearerGuard | undefined;
}

async function handleHttp(req: IncomingMessage, res: ServerResponse, ctx: HttpContext): Promise<void> {
  const origin = req.headers.origin;
  if (ctx.cors !== undefined) {
    res.setHeader('Access-Control-Allow-Origin', ctx.cors === true ? '*' : ctx.cors);
    res.setHeader('Vary', 'Origin');
  }
  if (origin !== undefined && !originAllowed(origin, ctx.cors)) {
    return sendJson(res, 403, rpcError(ErrorCode.InvalidRequest, `Origin not allowed: ${origin}`));
  }
  const url = new URL(req.url ?? '/', 'http://localhost');
  const admitted = ctx.guard ? await ctx.guard.handle(req, res, url) : { principal: undefined };
  if (admitted === 'handled') return;
  if (url.pathname !== ctx.path)
    return sendJson(res, 404, rpcError(ErrorCode.InvalidRequest, `Not found: ${url.pathname}`));
  if (req.method === 'OPTIONS' && ctx.cors !== undefined) {
    res.writeHead(204, {
      'Access-Control-Allow-Methods': 'POST, OPTIONS',
      'Access-Control-Allow-Headers':
        req.headers['access-control-request-headers'] ?? ALLOWED_HEADERS.join(', '),
      'Access-Control-Max-Age': '600',
    });
    return void res.end();
  }
  if (req.method !== 'POST') {
    res.setHeader('Allow', ctx.cors === undefined ? 'POST' : 'POST, OPTIONS');
    return sendJson(
      res,
      405,
      rpcError(
        ErrorCode.InvalidRequest,
        `Method ${req.method ?? '?'} not allowed; POST one JSON-RPC message`,
      ),
    );
  }
  const contentType = req.headers['content-type'] ?? '';
  if (!contentType.toLowerCase().includes('application/json')) {
    return sendJson(res, 415, rpcError(ErrorCode.InvalidRequest, 'Content-Type must be application/json'));
  }
  const body = await readBody(req, ctx.maxBodyBytes);
  if (body === undefined) {
    res.setHeader('Connection', 'close');
    return sendJson(
      res,
      413,
      rpcError(ErrorCode.InvalidRequest, `Request body exceeds ${ctx.maxBodyBytes} bytes`),
    );
  }
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return sendJson(res, 400, rpcError(ErrorCode.ParseError, 'Parse error: body is not valid JSON'));
  }

  const acceptsSse = (req.headers.accept ?? '').includes('text/event-stream');
  // subscriptions/listen is a stream by nature: the acknowledgement and every notification go out as they happen.
  const listen = (message as { method?: unknown } | null)?.method === 'subscriptions/listen';
  const wantsSse = acceptsSse && (ctx.sse || listen || hasProgressToken(message));
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort(new Error('client closed the request'));
  });
  let streaming = false;
  const openStream = () => {
    if (streaming) return;
    streaming = true;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
    });
  };
  const writeEvent = (payload: unknown) => res.write(`event: message\ndata: ${JSON.stringify(payload)}\n\n`);
  const onNotification = wantsSse
    ? (n: JsonRpcNotification) => {
        if (res.writableEnded || abort.signal.aborted) return;
        openStream();
        writeEvent(n);
      }
    : undefined;

  const reply = await ctx.core.handle(message, req.headers, {
    onNotification,
    signal: abort.signal,
    principal: admitted.principal,
  });
  if (res.writableEnded || abort.signal.aborted) return;
  if (reply.response === undefined) return void res.writeHead(reply.status).end();
  if (streaming || (wantsSse && reply.status === 200)) {
    openStream();
    writeEvent(reply.response);
    return void res.end();
  }
  sendJson(res, reply.status, reply.response);
}

function originAllowed(origin: string, cors: string | true | undefined): boolean {
  if (cors === true) return true;
  if (typeof cors === 'string' && origin === cors) return true;
  return LOOPBACK_ORIGIN.test(origin);
}

function hasProgressToken(message: unknown): boolean {
  const params = (message as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params;
  const token = params?._meta?.progressToken;
  return typeof token === 'string' || typeof token === 'number';
}

/** Reads the body as UTF-8; `undefined` when it exceeds `limit` bytes (the rest is drained, not buffered). */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers['content-length'] ?? 0) > limit;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function rpcError(code: number, message: string): Record<string, unknown> {
  return { jsonrpc: '2.0', id: null, error: { code, message } };
}

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(payload));
}
