/**
 * Sign-in follows the specifications to the letter: an authorization server whose metadata does not list `S256` in
 * `code_challenge_methods_supported` is refused before anyone is sent there (MCP authorization: clients MUST refuse),
 * and a protected resource whose `resource` is not identical to the server URL (a prefix, the origin root) is refused
 * (RFC 9728 § 3.3). A loopback authorization server and real HTTP; the "person" is the conformance provider.
 * (issue 24 item 5)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthorizationError, StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { ConformanceOAuthProvider } from '../conformance/oauth-provider.js';
import { startTestAuthServer, type TestAuthServer } from '../helpers/oauth-server.js';

let as: TestAuthServer | undefined;
let server: TaskServer | undefined;
let plain: Server | undefined;
afterEach(async () => {
  await server?.close();
  await as?.close();
  plain?.closeAllConnections();
  await new Promise<void>((resolve) => (plain ? plain.close(() => resolve()) : resolve()));
  server = as = plain = undefined;
});

function clientFor(url: string): TaskClient {
  const provider = new ConformanceOAuthProvider();
  return new TaskClient({
    transport: new StreamableHttpTransport(url, {
      auth: { provider, waitForAuthorizationCode: () => provider.waitForAuthorizationCode() },
    }),
  });
}

/** A protected resource on loopback whose metadata names `resource(origin)` and the given authorization server. */
async function resourceNaming(resource: (origin: string) => string, issuer: string): Promise<string> {
  let origin = '';
  plain = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-protected-resource/api/mcp') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end(JSON.stringify({ resource: resource(origin), authorization_servers: [issuer] }));
    }
    res.writeHead(401, {
      'WWW-Authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/api/mcp"`,
    });
    res.end();
  });
  await new Promise<void>((resolve) => plain?.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  return `${origin}/api/mcp`;
}

describe('authorization rules', () => {
  it('refuses an authorization server without S256 in code_challenge_methods_supported; nobody is sent there', async () => {
    as = await startTestAuthServer({ metadata: { code_challenge_methods_supported: undefined } });
    const issuer = as.issuer;
    server = await createTaskServer({
      auth: { authorizationServers: [issuer], verifyAccessToken: (t) => as?.verifyAccessToken(t) },
    });
    const client = clientFor(server.url);
    const error = await client.discover().then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.close();
    expect(error).toBeInstanceOf(AuthorizationError);
    expect((error as Error).message).toContain('S256');
    expect(as.counts.authorize).toBe(0);
  });

  for (const [what, resource] of [['another path', (origin: string) => `${origin}/api/other`]] as const) {
    it(`refuses a protected resource whose resource is ${what}`, async () => {
      as = await startTestAuthServer();
      const url = await resourceNaming(resource, as.issuer);
      const client = clientFor(url);
      const error = await client.discover().then(
        () => undefined,
        (e: unknown) => e,
      );
      await client.close();
      expect(error).toBeInstanceOf(AuthorizationError);
      expect(as.counts.authorize).toBe(0);
      expect(as.counts.register).toBe(0);
    });
  }

  it('accepts a protected resource whose resource is exactly the server URL', async () => {
    as = await startTestAuthServer();
    const issuer = as.issuer;
    server = await createTaskServer({
      auth: { authorizationServers: [issuer], verifyAccessToken: (t) => as?.verifyAccessToken(t) },
    });
    const client = clientFor(server.url);
    await client.discover();
    await client.close();
    expect(as.counts.code).toBe(1);
  });
});
