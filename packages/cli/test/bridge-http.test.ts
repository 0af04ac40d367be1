/**
 * `mcp-tasks bridge --http`: a local server that only its host can use (Host and Origin checked against DNS
 * rebinding, a bearer token printed at start), then a real SDK 1.x host over Streamable HTTP.
 */
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TaskServer } from 'mcp-tasks-client/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceServer } from './bridge-helpers.js';
import { ensureCliBuilt, killLeftovers, startCli, tempHome, type CliProcess } from './helpers.js';

let server: TaskServer;
let bridge: CliProcess;
let url: URL;
let token: string;

beforeAll(async () => {
  await ensureCliBuilt();
  server = await referenceServer({ timeScale: 0.1 });
  bridge = startCli(['bridge', server.url, '--http', '--port', '0'], tempHome());
  url = new URL((await bridge.waitFor(/at (http:\/\/127\.0\.0\.1:\d+\/mcp)/))[1] as string);
  token = (await bridge.waitFor(/bearer token: (\S+)/))[1] as string;
}, 120_000);

afterAll(async () => {
  bridge.child.kill('SIGTERM');
  await bridge.done;
  await server.close();
  await killLeftovers();
});

/** One raw POST of `initialize` with these headers; resolves with the HTTP status. */
function post(headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('bridge over HTTP', () => {
  it('refuses a request without the bearer token (401), from a foreign Origin or to a foreign Host (403)', async () => {
    expect(await post({})).toBe(401);
    expect(await post({ authorization: 'Bearer wrong' })).toBe(401);
    expect(await post({ authorization: `Bearer ${token}`, origin: 'https://evil.example' })).toBe(403);
    expect(await post({ authorization: `Bearer ${token}`, host: `evil.example:${url.port}` })).toBe(403);
    expect(await post({ authorization: `Bearer ${token}` })).toBe(200);
  });

  it('serves a host that brings the token: tools as listed, a task followed to its result', async () => {
    const client = new Client({ name: 'http-host', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('reindex_corpus');
      const result = await client.callTool({ name: 'reindex_corpus', arguments: { documents: 300 } });
      expect(result.content).toEqual([{ type: 'text', text: 'Indexed 300 documents' }]);
    } finally {
      await client.close();
    }
  }, 30_000);
});
