/**
 * A real 2025-11-25 server for tests: the official SDK 1.x `McpServer`, one per session, over its Streamable HTTP
 * server transport on loopback (node:http). A test builds each session's server and may look at (or answer) every
 * request first.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => resolve(text ? JSON.parse(text) : undefined));
  });
}

/** A running server: its URL, and `close()`, which ends every session and the listener. */
export interface SdkHttpServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the server. `newServer` builds the `McpServer` of each new session. `front`, when given, sees each request
 * first with its parsed JSON body (a POST's) and returns `true` when it answered it itself.
 */
export async function startSdkHttpServer(
  newServer: () => McpServer,
  front?: (req: IncomingMessage, res: ServerResponse, body: unknown) => boolean,
): Promise<SdkHttpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http: Server = createServer(async (req, res) => {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    if (front?.(req, res, body) === true) return;
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      await newServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
