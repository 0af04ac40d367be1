/**
 * Two `mcp-tasks` processes that start together with an expired access token, against an authorization server that
 * rotates refresh tokens (a refresh token works once): both calls complete, the refresh token is spent once, and the
 * token file ends holding the newest tokens. Before the file lock, one process refreshed with a token the other had
 * already spent, exited 8 and deleted the file's tokens. (issue 24 item 2) And `logout` revokes what it forgets
 * (RFC 7009; item 7).
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthFile } from '../src/auth/token-file.js';
import { createTaskServer, type TaskServer } from '../../../src/testing/index.js';
import { startTestAuthServer, type TestAuthServer } from '../../../test/helpers/oauth-server.js';
import { ensureCliBuilt, killLeftovers, runCli, tempHome } from './helpers.js';

let as: TestAuthServer;
let server: TaskServer;
let home: string;

beforeAll(async () => {
  await ensureCliBuilt();
  home = tempHome();
  as = await startTestAuthServer({ accessTokenLifetimeMs: 3_600_000 });
  server = await createTaskServer({
    pollIntervalMs: 50,
    auth: {
      authorizationServers: [as.issuer],
      verifyAccessToken: (t) => as.verifyAccessToken(t),
      requiredScopes: ['mcp'],
    },
  });
}, 120_000);

afterAll(async () => {
  await killLeftovers();
  await server?.close();
  await as?.close();
});

/** Signs in without a browser (register, authorize, code exchange) and stores the result as the CLI would. */
async function seedTokens(): Promise<void> {
  const redirectUri = 'http://127.0.0.1/callback';
  const registered = (await (
    await fetch(`${as.issuer}/register`, {
      method: 'POST',
      body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
    })
  ).json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${as.issuer}/authorize`);
  for (const [k, v] of Object.entries({
    client_id: registered.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'mcp',
  }))
    authorize.searchParams.set(k, v);
  const back = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location') ?? '');
  const tokens = await (
    await fetch(`${as.issuer}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code') ?? '',
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: registered.client_id,
      }),
    })
  ).json();
  const file = new AuthFile(server.url, join(home, 'auth'));
  await file.update((d) => {
    d.client = { client_id: registered.client_id, redirect_uris: [redirectUri] } as never;
    d.tokens = tokens as never;
  });
}

describe('two processes refreshing one sign-in', () => {
  it('both complete, the rotating refresh token is spent once, the file keeps the newest tokens (3 rounds)', async () => {
    for (let round = 1; round <= 3; round += 1) {
      await seedTokens();
      as.expireAccessTokens();
      const refreshesBefore = as.counts.refresh;
      const runs = await Promise.all(
        ['a', 'b'].map((who) => runCli(['call', server.url, 'echo', `text=${who}${round}`, '--json'], home)),
      );
      for (const run of runs) expect(run.code, `round ${round}: ${run.stdout}${run.stderr}`).toBe(0);
      expect(as.counts.refresh - refreshesBefore).toBe(1);
      const stored = await new AuthFile(server.url, join(home, 'auth')).read();
      expect(stored.tokens?.access_token).toBe(as.issued.at(-2)); // the newest pair
      expect(stored.tokens?.refresh_token).toBe(as.issued.at(-1));
    }
  }, 120_000);
});

describe('logout', () => {
  it('revokes the stored tokens at the revocation endpoint (RFC 7009), then forgets them, and says both', async () => {
    const ok = await runCli(['call', server.url, 'echo', 'text=before-logout', '--json'], home);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    const stored = await new AuthFile(server.url, join(home, 'auth')).read();
    const revokesBefore = as.counts.revoke;
    const out = await runCli(['logout', server.url], home);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('its tokens were revoked at the authorization server');
    expect(out.stdout).toContain('forgotten');
    expect(as.counts.revoke - revokesBefore).toBe(2);
    expect(as.revoked.slice(-2)).toEqual([stored.tokens?.refresh_token, stored.tokens?.access_token]);
    expect(as.verifyAccessToken(stored.tokens?.access_token ?? '')).toBeUndefined();
    expect((await new AuthFile(server.url, join(home, 'auth')).read()).tokens).toBeUndefined();
  }, 60_000);
});

describe('secrets in what the CLI prints', () => {
  it('a refresh answered with an error page echoing the request: no token in stdout or stderr (--json)', async () => {
    await seedTokens();
    as.expireAccessTokens();
    const stored = await new AuthFile(server.url, join(home, 'auth')).read();
    as.failTokenRequests = 502;
    try {
      const run = await runCli(['call', server.url, 'echo', 'text=x', '--json'], home);
      expect(run.code).toBe(8);
      expect(run.stdout + run.stderr).toContain('[redacted]');
      for (const token of [stored.tokens?.refresh_token, stored.tokens?.access_token])
        expect(run.stdout + run.stderr).not.toContain(token);
    } finally {
      as.failTokenRequests = undefined;
    }
  }, 60_000);
});
