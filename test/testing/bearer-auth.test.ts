/**
 * The reference server's bearer mode, as a model for servers people write: the protected resource metadata's
 * `resource` and the challenge's `resource_metadata` come from the configured URL, never the `Host` header; and a
 * task is bound to the authorization context that created it, so another subject's token can neither read, update
 * nor cancel it (answered like an unknown task). (RFC 9728 § 3.3 and § 7.3; Tasks extension § Security: tasks
 * bound to the authorization context; issue 24 item 9)
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskServer, type TaskServer, type VerifiedToken } from '../../src/testing/index.js';
import { rpc } from './rpc.js';

const TOKENS: Record<string, VerifiedToken> = {
  alice: { scopes: ['mcp'], subject: 'alice' },
  'alice-2': { scopes: ['mcp'], subject: 'alice' },
  bob: { scopes: ['mcp'], subject: 'bob' },
};
const auth = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

let server: TaskServer;
let proxied: TaskServer;
beforeAll(async () => {
  const base = {
    authorizationServers: ['https://as.example.com'],
    verifyAccessToken: (t: string) => TOKENS[t],
  };
  server = await createTaskServer({ pollIntervalMs: 50, auth: base });
  proxied = await createTaskServer({ auth: { ...base, resourceUrl: 'https://mcp.example.com/mcp' } });
});
afterAll(async () => {
  await server?.close();
  await proxied?.close();
});

/** A raw request with a chosen `Host` header (fetch does not let a caller set it). */
function withHost(
  url: string,
  method: 'GET' | 'POST',
  host: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: { Host: host, 'Content-Type': 'application/json' } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' : undefined);
  });
}

describe('protected resource metadata', () => {
  it('resource and the challenge URL come from the server URL, whatever Host says', async () => {
    const origin = new URL(server.url).origin;
    const meta = await withHost(`${origin}/.well-known/oauth-protected-resource/mcp`, 'GET', 'evil.example');
    expect(JSON.parse(meta.body).resource).toBe(server.url);
    const challenge = await withHost(server.url, 'POST', 'evil.example');
    expect(challenge.status).toBe(401);
    expect(challenge.headers['www-authenticate']).toContain(
      `resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('resourceUrl (the public URL behind a proxy) is what the metadata and the challenge name', async () => {
    const origin = new URL(proxied.url).origin;
    const meta = await withHost(`${origin}/.well-known/oauth-protected-resource/mcp`, 'GET', 'evil.example');
    expect(JSON.parse(meta.body).resource).toBe('https://mcp.example.com/mcp');
    const challenge = await withHost(proxied.url, 'POST', 'evil.example');
    expect(challenge.headers['www-authenticate']).toContain(
      'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
  });
});

describe('tasks bound to the authorization context', () => {
  it("bob's token can neither read, update nor cancel alice's task; alice's other token can", async () => {
    const created = await rpc(
      server.url,
      'tools/call',
      { name: 'reindex_corpus', arguments: { documents: 100_000 } },
      auth('alice'),
    );
    const taskId = created.body.result?.taskId as string;
    expect(taskId).toMatch(/[0-9a-f-]{36}/);
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const reply = await rpc(server.url, method, { taskId, inputResponses: {} }, auth('bob'));
      expect(reply.body.error, method).toMatchObject({
        code: -32602,
        message: `Unknown or expired task: ${taskId}`,
      });
    }
    expect((await rpc(server.url, 'tasks/get', { taskId }, auth('alice-2'))).body.result?.status).toBe(
      'working',
    );
    await rpc(server.url, 'tasks/cancel', { taskId }, auth('alice'));
    expect((await rpc(server.url, 'tasks/get', { taskId }, auth('alice'))).body.result?.status).toBe(
      'cancelled',
    );
  });
});
