/**
 * The bridge over Streamable HTTP, for hosts that connect to a URL: one MCP session per host connection (the SDK's
 * `StreamableHTTPServerTransport`), on loopback by default. Every request must come to an allowed `Host` (the
 * address it listens on), from no `Origin` or an allowed one (DNS rebinding: a web page must not reach a local
 * server), and carry `Authorization: Bearer <token>`; anything else is refused before MCP sees it.
 *
 * Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning and
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices
 *
 * @module
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Bridge } from './bridge-server.js';

/** Options of {@link serveHttp}. */
export interface HttpHostOptions {
  /** Interface to listen on (default loopback `127.0.0.1`). */
  host: string;
  /** Port (0: any free one). */
  port: number;
  /** The bearer token every request must carry. */
  token: string;
  /** `Origin` values accepted besides none (`--allow-origin`). */
  allowedOrigins: readonly string[];
  /** A new bridge for each host session. */
  newBridge(): Bridge;
  log(line: string): void;
}

/** A listening bridge. */
export interface HttpHost {
  /** `http://<host>:<port>/mcp` */
  readonly url: string;
  /** Closes every session (their calls end as a host disconnect does) and the listener. */
  close(): Promise<void>;
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Starts the HTTP listener. @throws the listen error (e.g. `EADDRINUSE`). */
export async function serveHttp(options: HttpHostOptions): Promise<HttpHost> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; bridge: Bridge }>();
  let allowedHosts: Set<string> = new Set();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const host = (req.headers.host ?? '').toLowerCase();
    if (!allowedHosts.has(host)) return refuse(res, 403, `Host ${JSON.stringify(host)} is not allowed`);
    const origin = req.headers.origin;
    if (origin !== undefined && !options.allowedOrigins.includes(origin))
      return refuse(res, 403, `Origin ${JSON.stringify(origin)} is not allowed`);
    const auth = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(auth);
    if (!match || !sameToken(match[1] as string, options.token)) {
      res.setHeader('www-authenticate', 'Bearer');
      return refuse(res, 401, 'a bearer token is required (printed by mcp-tasks bridge at start)');
    }
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp')
      return refuse(res, 404, 'the endpoint is /mcp');
    const sessionId = req.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (known) return known.transport.handleRequest(req, res);
    if (sessionId !== undefined) return refuse(res, 404, 'unknown session');
    if (req.method !== 'POST') return refuse(res, 400, 'start a session with initialize (POST)');
    const bridge = options.newBridge();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, bridge }),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      void bridge.close('the host closed its session');
    };
    await bridge.server.connect(transport);
    await transport.handleRequest(req, res);
  };

  const server: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log(`HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) refuse(res, 500, 'internal error');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
  allowedHosts = new Set([`${shown}:${port}`, `localhost:${port}`].map((h) => h.toLowerCase()));
  return {
    url: `http://${shown}:${port}/mcp`,
    async close() {
      await Promise.allSettled([...sessions.values()].map((s) => s.transport.close()));
      await Promise.allSettled([...sessions.values()].map((s) => s.bridge.close('the bridge is stopping')));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
