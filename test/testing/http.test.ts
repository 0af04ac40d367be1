import { afterEach, describe, expect, it } from 'vitest';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { rpc } from './rpc.js';

let server: TaskServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const echo = { name: 'echo', arguments: { text: 'hi' } };

describe('reference server: _meta, headers and versions', () => {
  it('rejects a request without _meta, or with an incomplete one, with -32602 and HTTP 400', async () => {
    server = await createTaskServer();
    for (const meta of [
      null,
      { 'io.modelcontextprotocol/protocolVersion': undefined },
      { 'io.modelcontextprotocol/clientCapabilities': undefined },
    ]) {
      const reply = await rpc(server.url, 'server/discover', {}, { meta });
      expect(reply.status).toBe(400);
      expect(reply.body.error?.code).toBe(-32602);
    }
  });

  it('serves server/discover with the extension under capabilities.extensions', async () => {
    server = await createTaskServer();
    const reply = await rpc(server.url, 'server/discover', {}, { tasks: false });
    expect(reply.body.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: {
        tools: {},
        resources: {},
        prompts: {},
        extensions: { 'io.modelcontextprotocol/tasks': {} },
      },
      cacheScope: 'public',
      ttlMs: 0,
    });
    // server/discover.mdx: server info lives in `_meta['io.modelcontextprotocol/serverInfo']` (DiscoverResult has no top-level serverInfo)
    expect(reply.body.result?._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({
      name: 'mcp-tasks-reference-server',
    });
    expect(reply.body.result?.serverInfo).toBeUndefined();
  });

  it('answers -32020 (400) when MCP-Protocol-Version, Mcp-Method or Mcp-Name disagree with the body or are missing', async () => {
    server = await createTaskServer();
    const cases: Array<Record<string, string | undefined>> = [
      { 'MCP-Protocol-Version': '2025-11-25' },
      { 'MCP-Protocol-Version': undefined },
      { 'Mcp-Method': 'tools/list' },
      { 'Mcp-Method': undefined },
      { 'Mcp-Name': 'greet' },
      { 'Mcp-Name': undefined },
    ];
    for (const headers of cases) {
      const reply = await rpc(server.url, 'tools/call', echo, { headers });
      expect(reply.status, JSON.stringify(headers)).toBe(400);
      expect(reply.body.error?.code).toBe(-32020);
    }
  });

  it('checks Mcp-Name against params.taskId on tasks/* and accepts base64-encoded values', async () => {
    server = await createTaskServer();
    const mismatch = await rpc(
      server.url,
      'tasks/get',
      { taskId: 't-1' },
      { headers: { 'Mcp-Name': 't-2' } },
    );
    expect(mismatch.body.error?.code).toBe(-32020);
    const encoded = `=?base64?${Buffer.from('echo').toString('base64')}?=`;
    const ok = await rpc(server.url, 'tools/call', echo, { headers: { 'Mcp-Name': encoded } });
    expect(ok.body.result?.content).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it('answers -32022 with supported and requested for an unknown version', async () => {
    server = await createTaskServer();
    const reply = await rpc(
      server.url,
      'server/discover',
      {},
      {
        meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
        headers: { 'MCP-Protocol-Version': '2099-01-01' },
      },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({
      code: -32022,
      data: { supported: ['2026-07-28'], requested: '2099-01-01' },
    });
  });

  it('answers -32601 with HTTP 404 for unknown and removed methods, echoing the id', async () => {
    server = await createTaskServer();
    for (const method of ['unknown/method', 'initialize', 'ping', 'tasks/result', 'tasks/list']) {
      const reply = await rpc(server.url, method, {}, { id: `id-${method}` });
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ id: `id-${method}`, error: { code: -32601 } });
    }
  });

  it('never issues Mcp-Session-Id and ignores one sent', async () => {
    server = await createTaskServer();
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': 'tools/list',
        'Mcp-Session-Id': 'abc',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = (await res.json()) as {
      result: { tools: Array<{ name: string; annotations?: unknown }>; cacheScope: string };
    };
    expect(body.result.tools.map((t) => t.name)).toContain('reindex_corpus');
    expect(body.result.cacheScope).toBe('public');
  });
});

describe('reference server: HTTP transport', () => {
  it('answers GET and DELETE with 405, other paths with 404, notifications with 202', async () => {
    server = await createTaskServer();
    expect((await fetch(server.url)).status).toBe(405);
    expect((await fetch(server.url, { method: 'DELETE' })).status).toBe(405);
    expect((await fetch(server.url.replace('/mcp', '/other'), { method: 'POST' })).status).toBe(404);
    const note = await fetch(server.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } }),
    });
    expect(note.status).toBe(202);
  });

  it('rejects bodies over maxBodyBytes with 413 and bad JSON with -32700', async () => {
    server = await createTaskServer({ maxBodyBytes: 100 });
    const big = await fetch(server.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(500) }),
    });
    expect(big.status).toBe(413);
    const bad = await fetch(server.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{nope',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('streams notifications/progress then the response when the request has a progressToken', async () => {
    server = await createTaskServer({ inlineBudgetMs: 10 });
    const reply = await rpc(
      server.url,
      'tools/call',
      { name: 'reindex_corpus', arguments: { documents: 20 } },
      { tasks: false, meta: { progressToken: 'p1' } },
    );
    expect(reply.contentType).toContain('text/event-stream');
    const progress = reply.events.filter((e) => e.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)?.params).toMatchObject({
      progressToken: 'p1',
      progress: 20,
      total: 20,
      message: 'indexed 20/20',
    });
    expect(reply.events.at(-1)).toMatchObject({ result: { resultType: 'complete' } });
  });

  it('answers over SSE when sse: true, and in JSON when the client does not accept SSE', async () => {
    server = await createTaskServer({ sse: true });
    expect((await rpc(server.url, 'tools/call', echo)).contentType).toContain('text/event-stream');
    const json = await rpc(server.url, 'tools/call', echo, { headers: { Accept: 'application/json' } });
    expect(json.contentType).toContain('application/json');
  });

  it('answers CORS preflights and adds Access-Control-Allow-Origin when cors is set', async () => {
    server = await createTaskServer({ cors: 'http://app.example' });
    const pre = await fetch(server.url, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type, mcp-method',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('http://app.example');
    expect(pre.headers.get('access-control-allow-headers')).toBe('content-type, mcp-method');
    const call = await rpc(server.url, 'tools/call', echo, { headers: { Origin: 'http://app.example' } });
    expect(call.status).toBe(200);
    const other = await rpc(server.url, 'tools/call', echo, { headers: { Origin: 'http://evil.example' } });
    expect(other.status).toBe(403);
  });

  it('rejects a non-loopback Origin without cors', async () => {
    server = await createTaskServer();
    expect(
      (await rpc(server.url, 'tools/call', echo, { headers: { Origin: 'http://evil.example' } })).status,
    ).toBe(403);
    expect(
      (await rpc(server.url, 'tools/call', echo, { headers: { Origin: 'http://localhost:3000' } })).status,
    ).toBe(200);
  });

  it('validates options at the boundary', async () => {
    await expect(createTaskServer({ pollIntervalMs: -1 })).rejects.toThrow(/pollIntervalMs/);
    await expect(createTaskServer({ port: 70_000 })).rejects.toThrow(/port/);
  });
});
