/**
 * Scope step-up (403 `insufficient_scope`) against the reference server's bearer protection and the loopback test
 * authorization server: the union of scopes is asked for once per request, and a scope that was granted and still
 * refused is never asked again, so a server that can never be satisfied costs a bounded number of sign-ins.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HttpError, StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { ConformanceOAuthProvider } from '../conformance/oauth-provider.js';
import { startTestAuthServer, type TestAuthServer } from '../helpers/oauth-server.js';

describe('auth: scope step-up', () => {
  let as: TestAuthServer;
  let server: TaskServer;
  afterEach(async () => {
    await server?.close();
    await as?.close();
  });

  async function setup(
    grantOnly?: string[],
  ): Promise<{ client: TaskClient; provider: ConformanceOAuthProvider }> {
    as = await startTestAuthServer({ grantOnly });
    server = await createTaskServer({
      auth: {
        authorizationServers: [as.issuer],
        verifyAccessToken: (t) => as.verifyAccessToken(t),
        requiredScopes: ['mcp', 'admin'],
      },
    });
    const provider = new ConformanceOAuthProvider();
    const client = new TaskClient({
      transport: new StreamableHttpTransport(server.url, {
        auth: { provider, waitForAuthorizationCode: () => provider.waitForAuthorizationCode() },
      }),
    });
    return { client, provider };
  }

  it('a grant narrower than the challenge: one step-up per request, then the 403 as HttpError; never the same scope again', async () => {
    const { client } = await setup(['mcp']);
    const first = await client.listTools().catch((e: unknown) => e);
    expect(first).toBeInstanceOf(HttpError);
    expect((first as HttpError).status).toBe(403);
    expect(as.counts.authorize).toBe(2); // the 401's authorization, one step-up
    const second = await client.listTools().catch((e: unknown) => e);
    expect((second as HttpError).status).toBe(403);
    expect(as.counts.authorize).toBe(2); // the exhausted scope is not asked again
    expect(server.authStats?.insufficientScope).toBe(3);
    await client.close();
  });

  it('the challenged scopes granted: the first request authorizes with them and succeeds', async () => {
    const { client, provider } = await setup();
    await expect(client.listTools()).resolves.toBeInstanceOf(Array);
    expect(provider.tokens()?.scope).toBe('mcp admin');
    expect(as.counts.authorize).toBe(1);
    expect(server.authStats?.insufficientScope).toBe(0);
    await client.close();
  });
});
