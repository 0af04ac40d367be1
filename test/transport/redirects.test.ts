/**
 * Redirects and caller headers on the Streamable HTTP transport, over two real loopback servers on different ports
 * (two origins). The "other" server records every TCP connection and every request: the assertion that matters is
 * that it received nothing (no body, no `X-Api-Key`) unless the caller named its origin.
 *
 * Spec: modelcontextprotocol/modelcontextprotocol docs/specification/2026-07-28/basic/transports/streamable-http.mdx
 * § Sending Messages ("The client MUST use HTTP POST to send JSON-RPC messages to the MCP endpoint") and § Security
 * Warning; RFC 9110 § 15.4 (a 301/302 MAY keep POST; 303 means GET another resource); RFC 9110 § 5.5 (field values).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  InvalidHeaderError,
  isMcpClientError,
  McpClientError,
  RedirectBlockedError,
  StreamableHttpTransport,
  TaskClient,
  type JsonRpcRequest,
} from '../../src/index.js';

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface Loopback {
  readonly origin: string;
  readonly seen: Seen[];
  connections: number;
  close(): Promise<void>;
}

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A loopback server on its own port; `handle` answers each request after it was recorded in `seen`. */
async function loopback(handle: (req: Seen, res: ServerResponse) => void): Promise<Loopback> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(entry);
      handle(entry, res);
    });
  });
  const state = { connections: 0 };
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const result: Loopback = {
    origin: `http://127.0.0.1:${port}`,
    seen,
    get connections() {
      return state.connections;
    },
    set connections(n) {
      state.connections = n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(result);
  return result;
}

/** Answers a JSON-RPC POST with a complete tool result echoing the request id. */
function answer(req: Seen, res: ServerResponse): void {
  const id = (JSON.parse(req.body || '{}') as { id?: unknown }).id ?? null;
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: { resultType: 'complete', content: [{ type: 'text', text: `served ${req.path}` }] },
    }),
  );
}

function redirect(status: number, location: string) {
  return (_req: Seen, res: ServerResponse): void => {
    res.writeHead(status, { Location: location, 'Content-Type': 'text/plain' });
    res.end('moved');
  };
}

const SECRET_ARG = 'arg-4242-secret';
const API_KEY = 'key-9f1e-secret';

const call = (id = 1): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name: 'deploy',
    arguments: { token: SECRET_ARG },
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
  },
});

describe('redirects of a POST (streamable-http.mdx § Sending Messages: every message is a POST to the MCP endpoint)', () => {
  it.each([307, 308, 301, 302])(
    '%i to another origin: RedirectBlockedError naming that origin; the other server gets NOTHING',
    async (status) => {
      const other = await loopback(answer);
      const endpoint = await loopback(redirect(status, `${other.origin}/mcp`));
      const transport = new StreamableHttpTransport(`${endpoint.origin}/mcp`, {
        headers: { 'X-Api-Key': API_KEY },
      });
      const error = await transport.request(call()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedirectBlockedError);
      expect(isMcpClientError(error, 'REDIRECT_BLOCKED')).toBe(true);
      expect((error as RedirectBlockedError).targetOrigin).toBe(other.origin);
      expect((error as RedirectBlockedError).reason).toBe('cross-origin');
      expect((error as Error).message).toContain(other.origin);
      expect((error as Error).message).not.toContain(API_KEY);
      expect(other.seen).toEqual([]);
      expect(other.connections).toBe(0);
      expect(endpoint.seen).toHaveLength(1);
    },
  );

  it('303 (same origin or not): never turned into a GET carrying our headers; RedirectBlockedError', async () => {
    const other = await loopback(answer);
    const endpoint = await loopback((req, res) =>
      req.path === '/mcp' ? redirect(303, '/elsewhere')(req, res) : answer(req, res),
    );
    const transport = new StreamableHttpTransport(`${endpoint.origin}/mcp`, {
      headers: { 'X-Api-Key': API_KEY },
    });
    const same = await transport.request(call()).catch((e: unknown) => e);
    expect(same).toBeInstanceOf(RedirectBlockedError);
    expect((same as RedirectBlockedError).reason).toBe('see-other');
    expect(endpoint.seen.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /mcp']); // no GET /elsewhere

    const far = await loopback(redirect(303, `${other.origin}/mcp`));
    const cross = await new StreamableHttpTransport(`${far.origin}/mcp`, {
      headers: { 'X-Api-Key': API_KEY },
    })
      .request(call())
      .catch((e: unknown) => e);
    expect(cross).toBeInstanceOf(RedirectBlockedError);
    expect((cross as RedirectBlockedError).targetOrigin).toBe(other.origin);
    expect(other.connections).toBe(0);
  });

  it.each([307, 308, 301, 302])(
    '%i on the same origin: followed as the same POST (body and headers), result returned',
    async (status) => {
      const endpoint = await loopback((req, res) =>
        req.path === '/old' ? redirect(status, '/mcp')(req, res) : answer(req, res),
      );
      const transport = new StreamableHttpTransport(`${endpoint.origin}/old`, {
        headers: { 'X-Api-Key': API_KEY },
      });
      const result = await transport.request(call(7));
      expect(result).toMatchObject({ content: [{ text: 'served /mcp' }] });
      const [first, second] = endpoint.seen;
      expect(second?.method).toBe('POST');
      expect(second?.body).toBe(first?.body);
      expect(second?.headers['x-api-key']).toBe(API_KEY);
      expect(second?.headers['mcp-method']).toBe('tools/call');
    },
  );

  it('a redirect loop stops after DEFAULT_MAX_REDIRECTS (5) hops with RedirectBlockedError', async () => {
    const endpoint = await loopback(redirect(307, '/mcp'));
    const error = await new StreamableHttpTransport(`${endpoint.origin}/mcp`)
      .request(call())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectBlockedError);
    expect((error as RedirectBlockedError).reason).toBe('too-many');
    expect(endpoint.seen).toHaveLength(6);
  });

  it('allowRedirectOrigins names the other origin: the POST is re-sent there, headers and body included', async () => {
    const other = await loopback(answer);
    const endpoint = await loopback(redirect(308, `${other.origin}/mcp`));
    const transport = new StreamableHttpTransport(`${endpoint.origin}/mcp`, {
      headers: { 'X-Api-Key': API_KEY },
      allowRedirectOrigins: [`${other.origin}/`],
    });
    await expect(transport.request(call())).resolves.toMatchObject({ content: [{ text: 'served /mcp' }] });
    expect(other.seen).toHaveLength(1);
    expect(other.seen[0]?.headers['x-api-key']).toBe(API_KEY);
    expect(other.seen[0]?.body).toContain(SECRET_ARG);
  });

  it('a redirect without Location, or to a non-http scheme, is RedirectBlockedError (no-location)', async () => {
    const bare = await loopback((_req, res) => {
      res.writeHead(307);
      res.end();
    });
    const a = await new StreamableHttpTransport(`${bare.origin}/mcp`)
      .request(call())
      .catch((e: unknown) => e);
    expect((a as RedirectBlockedError).reason).toBe('no-location');
    const ftp = await loopback(redirect(307, 'ftp://127.0.0.1/x'));
    const b = await new StreamableHttpTransport(`${ftp.origin}/mcp`).request(call()).catch((e: unknown) => e);
    expect((b as RedirectBlockedError).reason).toBe('no-location');
  });

  it('through TaskClient.callTool: the call fails typed, and the other origin never sees the arguments', async () => {
    const other = await loopback(answer);
    const endpoint = await loopback(redirect(307, `${other.origin}/mcp`));
    const client = new TaskClient({
      transport: new StreamableHttpTransport(`${endpoint.origin}/mcp`, { headers: { 'X-Api-Key': API_KEY } }),
    });
    await expect(client.callTool('deploy', { token: SECRET_ARG })).rejects.toBeInstanceOf(
      RedirectBlockedError,
    );
    await client.close();
    expect(other.connections).toBe(0);
  });

  it('the 2025-11-25 path (official SDK transport) follows the same policy: the other origin gets nothing', async () => {
    const other = await loopback(answer);
    const endpoint = await loopback(redirect(307, `${other.origin}/mcp`));
    const client = new TaskClient({
      transport: new StreamableHttpTransport(`${endpoint.origin}/mcp`, { headers: { 'X-Api-Key': API_KEY } }),
      era: 'legacy',
    });
    const error = await client.callTool('deploy', { token: SECRET_ARG }).catch((e: unknown) => e);
    await client.close();
    const chain: unknown[] = [];
    for (let e: unknown = error; e instanceof Error && chain.length < 5; e = e.cause) chain.push(e);
    expect(chain.some((e) => e instanceof RedirectBlockedError)).toBe(true);
    expect(other.connections).toBe(0);
    expect(endpoint.seen.length).toBeGreaterThan(0);
  });

  it('allowRedirectOrigins: a non-URL entry is a TypeError naming it', () => {
    expect(
      () => new StreamableHttpTransport('http://127.0.0.1:1/mcp', { allowRedirectOrigins: ['not a url'] }),
    ).toThrow(/allowRedirectOrigins entry "not a url"/);
  });
});

describe('invalid caller header values (RFC 9110 § 5.5): typed, never quoted, nothing sent', () => {
  const cases: Array<
    [string, { headers?: Record<string, string>; getHeaders?: () => Record<string, string> }, string, string]
  > = [
    [
      'CR/LF in a static header',
      { headers: { 'X-Api-Key': `${API_KEY}\r\nX-Injected: 1` } },
      'headers',
      'CR or LF',
    ],
    [
      'a bare LF from getHeaders()',
      { getHeaders: () => ({ Authorization: `Bearer ${API_KEY}\nX: y` }) },
      'getHeaders()',
      'CR or LF',
    ],
    [
      'non-Latin-1 from getHeaders()',
      { getHeaders: () => ({ Authorization: `Bearer ${API_KEY}€` }) },
      'getHeaders()',
      'outside Latin-1',
    ],
    [
      'a NUL in a static header',
      { headers: { 'X-Api-Key': `${API_KEY}\u0000` } },
      'headers',
      'control character',
    ],
  ];

  it.each(cases)(
    '%s → InvalidHeaderError naming the source and header, not the value',
    async (_label, options, source, why) => {
      const endpoint = await loopback(answer);
      const transport = new StreamableHttpTransport(`${endpoint.origin}/mcp`, options);
      const error = await transport.request(call()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidHeaderError);
      expect(error).toBeInstanceOf(McpClientError);
      expect((error as InvalidHeaderError).code).toBe('INVALID_HEADER');
      expect((error as InvalidHeaderError).source).toBe(source);
      expect((error as Error).message).toContain(why);
      expect((error as Error).message).not.toContain(API_KEY);
      expect(JSON.stringify(error)).not.toContain(API_KEY);
      expect(endpoint.connections).toBe(0);
    },
  );

  it('an invalid header name is refused without quoting it', async () => {
    const endpoint = await loopback(answer);
    const error = await new StreamableHttpTransport(`${endpoint.origin}/mcp`, {
      headers: { [`X-${API_KEY} bad`]: 'v' },
    })
      .request(call())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidHeaderError);
    expect((error as Error).message).not.toContain(API_KEY);
  });

  it('through TaskClient: the call rejects with InvalidHeaderError (no crash, no value in the message)', async () => {
    const endpoint = await loopback(answer);
    const client = new TaskClient({
      transport: new StreamableHttpTransport(`${endpoint.origin}/mcp`, {
        getHeaders: () => ({ 'X-Api-Key': `${API_KEY}\r\n` }),
      }),
    });
    const error = await client.callTool('deploy', {}).catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(InvalidHeaderError);
    expect((error as Error).message).not.toContain(API_KEY);
  });
});
