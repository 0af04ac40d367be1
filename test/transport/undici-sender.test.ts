/**
 * The Node sender over real loopback HTTP: keep-alive reuse, the per-origin connection cap, a refused connection as
 * NetworkError (marked as never delivered), redirects, and the default installed by the Node entry point.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { neverSent } from '../../src/modern/creation-retry.js';
import { NetworkError } from '../../src/errors.js';
import { defaultHttpSender, setDefaultHttpSender } from '../../src/transport/http-sender.js';
import { StreamableHttpTransport } from '../../src/transport/streamable-http.js';
import { createUndiciSender } from '../../src/transport/undici-sender.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
const servers: Server[] = [];

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<{ url: string; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => handler(req, res, body));
  });
  server.on('connection', (s) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, sockets };
}

function echo(req: IncomingMessage, res: ServerResponse, body: string, delayMs = 0): void {
  const { id } = JSON.parse(body) as { id: number };
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { method: req.headers['mcp-method'] } }));
  }, delayMs);
}

const request = (id: number) => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'tools/list',
  params: { _meta: META },
});

afterEach(async () => {
  setDefaultHttpSender(undefined);
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r).closeAllConnections())));
});

describe('undici sender', () => {
  // undici hands a connection back to the pool just after the body's end reaches the reader, so a request sent at
  // once may open a second one; after that the two are reused.
  it('keeps connections alive across sequential requests', async () => {
    const { url, sockets } = await serve((req, res, body) => echo(req, res, body));
    const transport = new StreamableHttpTransport(url, { sender: createUndiciSender() });
    for (let id = 1; id <= 20; id++)
      await expect(transport.request(request(id))).resolves.toEqual({ method: 'tools/list' });
    expect(sockets.size).toBeLessThanOrEqual(2);
  });

  it('opens at most maxConnectionsPerOrigin connections under concurrency', async () => {
    const { url, sockets } = await serve((req, res, body) => echo(req, res, body, 20));
    const transport = new StreamableHttpTransport(url, {
      sender: createUndiciSender({ maxConnectionsPerOrigin: 3 }),
    });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => transport.request(request(i + 1))),
    );
    expect(results).toHaveLength(12);
    expect(sockets.size).toBe(3);
  });

  it('a refused connection is a NetworkError whose cause shows it was never delivered', async () => {
    const { url } = await serve(() => undefined);
    await new Promise((r) => servers.pop()!.close(r));
    const transport = new StreamableHttpTransport(url, { sender: createUndiciSender() });
    const error = await transport.request(request(1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(neverSent(error)).toBe(true);
  });

  it('follows a 307 to the same endpoint with the same body', async () => {
    const { url } = await serve((req, res, body) => {
      if (req.url === '/old') {
        res.writeHead(307, { location: '/mcp' }).end();
        return;
      }
      echo(req, res, body);
    });
    const transport = new StreamableHttpTransport(url.replace('/mcp', '/old'), {
      sender: createUndiciSender(),
    });
    await expect(transport.request(request(1))).resolves.toEqual({ method: 'tools/list' });
  });

  it('rejects a bad connection cap', () => {
    expect(() => createUndiciSender({ maxConnectionsPerOrigin: 0 })).toThrow(TypeError);
  });

  it('is the default once registered (what the Node entry point does); fetch otherwise', async () => {
    expect(defaultHttpSender({}).close).toBeUndefined();
    setDefaultHttpSender(createUndiciSender);
    expect(defaultHttpSender({}).close).toBeTypeOf('function');
    const { url, sockets } = await serve((req, res, body) => echo(req, res, body));
    const transport = new StreamableHttpTransport(url);
    for (let id = 1; id <= 10; id++) await transport.request(request(id));
    expect(sockets.size).toBeLessThanOrEqual(2);
    await transport.close();
  });
});
