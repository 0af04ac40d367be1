/**
 * A server that answers a 2026-07-28 request with -32022 listing only `2025-11-25` speaks the older revision: in
 * `era: 'auto'` the client reaches it through the legacy path (the official SDK 1.x session) instead of failing, and
 * the era is cached as legacy, never as modern.
 *
 * Spec: modelcontextprotocol/modelcontextprotocol docs/specification/2026-07-28/basic/versioning.mdx § Protocol
 * Version Negotiation ("The client SHOULD select a mutually supported version from the supported list and retry the
 * request, or surface an error to the user if no compatible version exists.") and § Backward Compatibility with
 * Initialization-Based Versions ("The era determination is a property of the server … Clients SHOULD cache the
 * result").
 *
 * The server is real: the official SDK 1.x `McpServer` over its Streamable HTTP server transport on loopback, behind
 * a front that rejects modern (2026-07-28) requests the way a dual-version server that dropped the new revision would.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { StreamableHttpTransport, TaskClient, UnsupportedProtocolVersionError } from '../../src/index.js';
import { eraFromError } from '../../src/legacy/era.js';
import { McpError } from '../../src/errors.js';

interface Front {
  url: string;
  modernRejected: number;
  close(): Promise<void>;
}

let front: Front | undefined;
afterEach(async () => {
  await front?.close();
  front = undefined;
});

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => resolve(text ? JSON.parse(text) : undefined));
  });
}

/** SDK 1.x server (stateful sessions) behind a front answering modern requests with -32022 `supported: [supported…]`. */
async function startFront(supported: string[]): Promise<Front> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const state = { modernRejected: 0 };
  const http: Server = createServer(async (req, res) => {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    if (req.headers['mcp-protocol-version'] === '2026-07-28') {
      state.modernRejected++;
      const id = (body as { id?: unknown } | undefined)?.id ?? null;
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          error: {
            code: -32022,
            message: 'Unsupported protocol version',
            data: { supported, requested: '2026-07-28' },
          },
        }),
      );
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      const server = new McpServer({ name: 'legacy-only', version: '1.0.0' });
      server.registerTool(
        'echo',
        { description: 'echo', inputSchema: { text: z.string() } },
        async ({ text }) => ({ content: [{ type: 'text', text: `2025-11-25 echo: ${text}` }] }),
      );
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    get modernRejected() {
      return state.modernRejected;
    },
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

describe('-32022 listing only 2025-11-25 (versioning.mdx § Protocol Version Negotiation: "SHOULD select a mutually supported version")', () => {
  it('eraFromError: an UnsupportedProtocolVersionError whose list has 2025-11-25 means legacy (HTTP 400 or stdio)', () => {
    const http400 = new McpError(
      'tools/call',
      { code: -32022, message: 'v', data: { supported: ['2025-11-25'] } },
      { httpStatus: 400 },
    );
    expect(
      eraFromError(
        new UnsupportedProtocolVersionError('2026-07-28', ['2025-11-25'], { cause: http400 }),
        'request',
      ),
    ).toBe('legacy');
    const stdio = new McpError('server/discover', { code: -32022, message: 'v' });
    expect(
      eraFromError(
        new UnsupportedProtocolVersionError('2026-07-28', ['2025-11-25'], { cause: stdio }),
        'discover',
      ),
    ).toBe('legacy');
    // Nothing we speak at all: still a modern server that wants another modern version.
    expect(
      eraFromError(
        new UnsupportedProtocolVersionError('2026-07-28', ['2099-01-01'], { cause: http400 }),
        'request',
      ),
    ).toBe('modern');
  });

  it('era "auto" over loopback HTTP: the call reaches the SDK 1.x server through the legacy path; the era is cached as legacy', async () => {
    front = await startFront(['2025-11-25']);
    const client = new TaskClient({ transport: new StreamableHttpTransport(front.url) });
    const result = await client.callTool('echo', { text: 'hello' });
    expect(result.content).toEqual([{ type: 'text', text: '2025-11-25 echo: hello' }]);
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
    // The next call goes straight to the session: no second modern attempt.
    await client.callTool('echo', { text: 'again' });
    expect(front.modernRejected).toBe(1);
    await client.close();
  });

  it('era "modern" insists: the same server fails with UnsupportedProtocolVersionError listing 2025-11-25', async () => {
    front = await startFront(['2025-11-25']);
    const client = new TaskClient({ transport: new StreamableHttpTransport(front.url), era: 'modern' });
    const error = await client.callTool('echo', { text: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedProtocolVersionError);
    expect((error as UnsupportedProtocolVersionError).supported).toEqual(['2025-11-25']);
    await client.close();
  });
});
