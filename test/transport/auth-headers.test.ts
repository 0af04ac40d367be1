/**
 * Bring-your-own fetch and auth on StreamableHttpTransport: a custom `fetch`, static `headers`, an async
 * `getHeaders()` hook called before every POST, and one retry with fresh headers on 401 when the hook is given.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpError, StreamableHttpTransport, TaskClient, type JsonRpcRequest } from '../../src/index.js';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import '../helpers/no-jitter.js';

const request = (id = 1): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name: 'echo',
    arguments: { text: 'x' },
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
  },
});

interface Sent {
  url: string;
  headers: Headers;
  body: string;
}

/** A fake fetch answering with `statuses` in turn (200 = a JSON-RPC result echoing the request id). */
function fakeFetch(statuses: number[]): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const body = String(init?.body ?? '');
    sent.push({ url: String(input), headers: new Headers(init?.headers), body });
    const status = statuses[Math.min(sent.length - 1, statuses.length - 1)] as number;
    if (status !== 200)
      return new Response('unauthorized', {
        status,
        headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
      });
    const id = (JSON.parse(body) as { id: number }).id;
    return new Response(
      JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete', content: [] } }),
      {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      },
    );
  }) as typeof fetch;
  return { fetch: fetchImpl, sent };
}

describe('StreamableHttpTransport: custom fetch and headers', () => {
  it('sends every POST through the given fetch with the static headers; protocol headers win', async () => {
    const { fetch, sent } = fakeFetch([200]);
    const transport = new StreamableHttpTransport('https://mcp.example.com/mcp', {
      fetch,
      headers: {
        Authorization: 'Bearer static',
        'X-Tenant': 'acme',
        'Mcp-Method': 'forged',
        'Content-Type': 'text/plain',
      },
    });
    await expect(transport.request(request())).resolves.toMatchObject({ resultType: 'complete' });
    expect(sent).toHaveLength(1);
    const [first] = sent;
    expect(first?.url).toBe('https://mcp.example.com/mcp');
    expect(first?.headers.get('authorization')).toBe('Bearer static');
    expect(first?.headers.get('x-tenant')).toBe('acme');
    expect(first?.headers.get('mcp-method')).toBe('tools/call');
    expect(first?.headers.get('content-type')).toBe('application/json');
  });

  it('calls an async getHeaders() before every POST; its values override static ones', async () => {
    const { fetch, sent } = fakeFetch([200]);
    let n = 0;
    const transport = new StreamableHttpTransport('https://mcp.example.com/mcp', {
      fetch,
      headers: { Authorization: 'Bearer static' },
      getHeaders: async () => ({ Authorization: `Bearer token-${++n}` }),
    });
    await transport.request(request(1));
    await transport.request(request(2));
    expect(sent.map((s) => s.headers.get('authorization'))).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('retries a 401 once with fresh headers and the same message', async () => {
    const { fetch, sent } = fakeFetch([401, 200]);
    let n = 0;
    const transport = new StreamableHttpTransport('https://mcp.example.com/mcp', {
      fetch,
      getHeaders: () => ({ Authorization: `Bearer token-${++n}` }),
    });
    await expect(transport.request(request(7))).resolves.toMatchObject({ resultType: 'complete' });
    expect(sent.map((s) => s.headers.get('authorization'))).toEqual(['Bearer token-1', 'Bearer token-2']);
    expect(sent[1]?.body).toBe(sent[0]?.body);
  });

  it('gives up after one retry: a second 401 is an HttpError', async () => {
    const { fetch, sent } = fakeFetch([401, 401, 200]);
    const transport = new StreamableHttpTransport('https://mcp.example.com/mcp', {
      fetch,
      getHeaders: () => ({ Authorization: 'Bearer stale' }),
    });
    const error = await transport.request(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(401);
    expect(sent).toHaveLength(2);
  });

  it('does not retry a 401 without getHeaders (static headers cannot change)', async () => {
    const { fetch, sent } = fakeFetch([401, 200]);
    const transport = new StreamableHttpTransport('https://mcp.example.com/mcp', {
      fetch,
      headers: { Authorization: 'Bearer static' },
    });
    await expect(transport.request(request())).rejects.toMatchObject({ code: 'HTTP_ERROR', status: 401 });
    expect(sent).toHaveLength(1);
  });
});

describe('short-lived bearer tokens end to end (loopback)', () => {
  let upstream: TaskServer | undefined;
  let gate: Server | undefined;
  afterEach(async () => {
    await upstream?.close();
    await new Promise((resolve) => (gate ? gate.close(resolve) : resolve(undefined)));
  });

  it('a TaskClient refreshes an expired token through getHeaders and completes a task', async () => {
    upstream = await createTaskServer({ pollIntervalMs: 50, inlineBudgetMs: 10 });
    let valid = 'token-1';
    const rejected: string[] = [];
    // An auth gate in front of the reference server: only the currently valid token passes.
    gate = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (req.headers.authorization !== `Bearer ${valid}`) {
        rejected.push(String(req.headers.authorization));
        return void res.writeHead(401, { 'WWW-Authenticate': 'Bearer' }).end();
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          ([k]) => k.startsWith('mcp-') || k === 'content-type' || k === 'accept',
        ),
      ) as Record<string, string>;
      const reply = await fetch((upstream as TaskServer).url, {
        method: 'POST',
        headers,
        body: Buffer.concat(chunks),
      });
      res
        .writeHead(reply.status, { 'Content-Type': reply.headers.get('content-type') ?? 'application/json' })
        .end(Buffer.from(await reply.arrayBuffer()));
    });
    await new Promise<void>((resolve) => gate?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(gate.address() as AddressInfo).port}/mcp`;

    let issued = 0;
    const tokens = { current: 'token-1', refresh: () => (tokens.current = `token-${++issued + 1}`) };
    const client = new TaskClient({
      transport: new StreamableHttpTransport(url, {
        // A token source: hands out the cached token; after the server rejected it, a fresh one.
        getHeaders: () => ({ Authorization: `Bearer ${tokens.current}` }),
        fetch: async (input, init) => {
          const res = await fetch(input, init);
          if (res.status === 401) tokens.refresh(); // what an OAuth provider would do on invalid_token
          return res;
        },
      }),
    });
    try {
      const first = client.callTool('reindex_corpus', { documents: 100 });
      valid = 'token-2'; // token-1 expires while the task runs (the creation request may already have passed)
      const result = await first;
      expect(result.content).toEqual([expect.objectContaining({ text: 'Indexed 100 documents' })]);
      expect(rejected.length).toBeGreaterThanOrEqual(1);
      expect(rejected.every((h) => h === 'Bearer token-1')).toBe(true);
    } finally {
      await client.close();
    }
  });
});
