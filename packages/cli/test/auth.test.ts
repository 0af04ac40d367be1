/**
 * The CLI against a server that requires authorization (reference server with bearer protection, a loopback
 * authorization server): the browser sign-in in a terminal, tokens kept in a 0600 file under MCP_TASKS_HOME and
 * reused by later runs, `logout`, and exit 8 with a clear message when no person can sign in.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskServer, type TaskServer } from '../../../src/testing/index.js';
import { startTestAuthServer, type TestAuthServer } from '../../../test/helpers/oauth-server.js';
import { ensureCliBuilt, killLeftovers, runCli, startCliInPty, tempHome } from './helpers.js';

let as: TestAuthServer;
let server: TaskServer;
let home: string;

beforeAll(async () => {
  await ensureCliBuilt();
  home = tempHome();
  as = await startTestAuthServer({ accessTokenLifetimeMs: 3_600_000 });
  server = await createTaskServer({
    pollIntervalMs: 50,
    timeScale: 0.02,
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

async function filesUnder(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { recursive: true })).map((n) => join(dir, String(n)));
  } catch {
    return [];
  }
}

describe('mcp-tasks and MCP authorization', () => {
  it('--json without stored authorization: exit 8, AUTHORIZATION_REQUIRED, and how to sign in', async () => {
    const run = await runCli(['call', server.url, 'echo', 'text=hi', '--json'], home);
    expect(run.code).toBe(8);
    const last = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(last).toMatchObject({ event: 'error', exitCode: 8, code: 'AUTHORIZATION_REQUIRED' });
    expect(String(last.message)).toMatch(/needs a person at a terminal/);
    expect(as.counts.code).toBe(0);
    expect(await filesUnder(join(home, 'auth'))).toHaveLength(0); // nothing stored by a run that cannot sign in
  });

  it('in a terminal: prints the sign-in URL, takes the browser back on a loopback port, then the call runs', async () => {
    const cli = startCliInPty(['call', server.url, 'reindex_corpus', 'documents=3'], home);
    const [, authorizeUrl] = (await cli.waitFor(
      /(http:\/\/127\.0\.0\.1:\d+\/authorize\?[^\s]+)/,
    )) as unknown as [string, string];
    // The "browser": the authorization server approves and redirects to the CLI's loopback listener.
    const approved = await fetch(authorizeUrl, { redirect: 'manual' });
    const back = approved.headers.get('location') ?? '';
    expect(back).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    const page = await fetch(back);
    expect(page.status).toBe(200);
    const run = await cli.done;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Indexed 3 documents/);
    expect(as.counts.code).toBe(1);

    const authFiles = await filesUnder(join(home, 'auth'));
    expect(authFiles).toHaveLength(1);
    expect((await stat(authFiles[0]!)).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, 'auth'))).mode & 0o777).toBe(0o700);
    expect(await readFile(authFiles[0]!, 'utf8')).toContain('access_token');
    // Task records and the terminal output hold no token.
    const records = await Promise.all(
      (await filesUnder(join(home, 'tasks'))).map((f) => readFile(f, 'utf8').catch(() => '')),
    );
    for (const token of as.issued) {
      expect(records.join('\n')).not.toContain(token);
      expect(run.stdout + run.stderr).not.toContain(token);
    }
  }, 60_000);

  it('later runs without a terminal reuse the stored tokens; logout forgets them', async () => {
    const ok = await runCli(['call', server.url, 'echo', 'text=again', '--json'], home);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(as.counts.code).toBe(1); // no new sign-in
    for (const token of as.issued) expect(ok.stdout + ok.stderr).not.toContain(token);

    const out = await runCli(['logout', server.url], home);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/Signed out of/);
    expect(await filesUnder(join(home, 'auth'))).toHaveLength(0);

    const again = await runCli(['call', server.url, 'echo', 'text=after', '--json'], home);
    expect(again.code).toBe(8);
    const nothing = await runCli(['logout', server.url], home);
    expect(nothing.stdout).toMatch(/No stored authorization/);
  }, 60_000);
});
