/**
 * A task outlives its access token: the reference server requires a bearer token (lifetime 60 s on the faked
 * `Date`), a loopback authorization server issues and refreshes it, and the clock jumps past the expiry while the
 * task is being followed. The task completes, the token is refreshed exactly once, polling does not storm, and the
 * task store and every log line hold no token.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FileTaskStore } from '../../src/file-store.js';
import { AuthorizationRequiredError, StreamableHttpTransport, TaskClient } from '../../src/index.js';
import {
  createTaskServer,
  textResult,
  type TaskServer,
  type ToolDefinition,
} from '../../src/testing/index.js';
import { ConformanceOAuthProvider } from '../conformance/oauth-provider.js';
import { tempDir } from '../durability/fixtures.js';
import {
  startTestAuthServer,
  type TestAuthServer,
  type TestAuthServerOptions,
} from '../helpers/oauth-server.js';

/** A task-only tool that runs until the test opens its gate. */
function gatedTool(): { tool: ToolDefinition; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const tool: ToolDefinition = {
    name: 'long_job',
    description: 'Runs until the test lets it finish.',
    inputSchema: { type: 'object', properties: {} },
    taskSupport: 'required',
    run: async (ctx) => {
      ctx.report('working');
      await gate;
      return textResult('long job done');
    },
  };
  return { tool, open };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000 && !check(); i++) await new Promise((r) => setImmediate(r));
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('auth: a token that expires while a task is followed', () => {
  let as: TestAuthServer;
  let server: TaskServer;
  let dir: { path: string; remove: () => Promise<void> };
  let gate: ReturnType<typeof gatedTool>;
  const logs: string[] = [];

  async function setup(asOptions: TestAuthServerOptions = {}): Promise<TaskClient> {
    as = await startTestAuthServer({ accessTokenLifetimeMs: 60_000, ...asOptions });
    gate = gatedTool();
    server = await createTaskServer({
      pollIntervalMs: 20,
      inlineBudgetMs: 0,
      catalog: { tools: [gate.tool] },
      auth: {
        authorizationServers: [as.issuer],
        verifyAccessToken: (t) => as.verifyAccessToken(t),
        requiredScopes: ['mcp'],
      },
    });
    dir = await tempDir('auth');
    const provider = new ConformanceOAuthProvider();
    const client = new TaskClient({
      transport: new StreamableHttpTransport(server.url, {
        auth: { provider, waitForAuthorizationCode: () => provider.waitForAuthorizationCode() },
      }),
      store: new FileTaskStore(dir.path),
    });
    client.on('warning', (m) => logs.push(String(m)));
    return client;
  }

  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['Date'],
      now: Date.parse('2026-12-01T00:00:00Z'),
      shouldAdvanceTime: true,
      advanceTimeDelta: 5,
    });
    logs.length = 0;
    for (const level of ['log', 'warn', 'error', 'info', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation(
        (...parts: unknown[]) => void logs.push(parts.map(String).join(' ')),
      );
    }
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    vi.useRealTimers();
    await server?.close();
    await as?.close();
    await dir?.remove();
  });

  /** Every file of the store, concatenated. */
  async function storeText(): Promise<string> {
    const names = await readdir(dir.path, { recursive: true });
    const parts = await Promise.all(
      names.map((n) => readFile(join(dir.path, String(n)), 'utf8').catch(() => '')),
    );
    return parts.join('\n');
  }

  function expectNoTokenIn(text: string): void {
    expect(as.issued.length).toBeGreaterThan(0);
    for (const token of as.issued) expect(text).not.toContain(token);
  }

  it('known expiry (expires_in): refreshed once before the next poll, no 401, the task completes', async () => {
    const client = await setup();
    const done = client.callTool('long_job', {});
    await until(
      () => (server.authStats?.authorized['tasks/get'] ?? 0) >= 2,
      'two polls with the first token',
    );
    expect(as.counts.code).toBe(1);
    vi.setSystemTime(Date.now() + 120_000); // the access token is now expired
    const pollsBefore = server.authStats?.authorized['tasks/get'] ?? 0;
    await until(
      () => (server.authStats?.authorized['tasks/get'] ?? 0) >= pollsBefore + 2,
      'two polls with the refreshed token',
    );
    gate.open();
    const result = await done;
    expect(result.content[0]).toMatchObject({ text: 'long job done' });
    expect(as.counts.refresh).toBe(1);
    expect(as.counts.code).toBe(1); // no second sign-in
    expect(server.authStats?.unauthorized['tasks/get'] ?? 0).toBe(0);
    expectNoTokenIn(await storeText());
    expectNoTokenIn(logs.join('\n'));
    await client.close();
  });

  it('unknown expiry: the poll refused with 401 refreshes once and is retried once; no storm', async () => {
    const client = await setup({ sendExpiresIn: false });
    const done = client.callTool('long_job', {});
    await until(() => (server.authStats?.authorized['tasks/get'] ?? 0) >= 1, 'a poll with the first token');
    vi.setSystemTime(Date.now() + 120_000);
    const pollsBefore = server.authStats?.authorized['tasks/get'] ?? 0;
    await until(
      () => (server.authStats?.authorized['tasks/get'] ?? 0) >= pollsBefore + 2,
      'polls with the refreshed token',
    );
    gate.open();
    await expect(done).resolves.toMatchObject({ content: [{ type: 'text', text: 'long job done' }] });
    expect(as.counts.refresh).toBe(1);
    expect(server.authStats?.unauthorized['tasks/get']).toBe(1);
    expectNoTokenIn(await storeText());
    expectNoTokenIn(logs.join('\n'));
    await client.close();
  });

  it('three tasks polling when the token expires share one refresh', async () => {
    const client = await setup({ sendExpiresIn: false });
    const calls = [
      client.callTool('long_job', {}),
      client.callTool('long_job', {}),
      client.callTool('long_job', {}),
    ];
    await until(() => (server.authStats?.authorized['tasks/get'] ?? 0) >= 3, 'polls of the three tasks');
    vi.setSystemTime(Date.now() + 120_000);
    const pollsBefore = server.authStats?.authorized['tasks/get'] ?? 0;
    await until(
      () => (server.authStats?.authorized['tasks/get'] ?? 0) >= pollsBefore + 6,
      'polls after the refresh',
    );
    gate.open();
    await Promise.all(calls);
    expect(as.counts.refresh).toBe(1);
    expect(server.authStats?.unauthorized['tasks/get'] ?? 0).toBeLessThanOrEqual(3); // at most one refused poll per task
    await client.close();
  });

  it('refresh refused and nobody to sign in: the wait fails with AuthorizationRequiredError, the task stays recorded, no token in its message', async () => {
    as = await startTestAuthServer({ sendExpiresIn: false });
    gate = gatedTool();
    server = await createTaskServer({
      pollIntervalMs: 20,
      inlineBudgetMs: 0,
      catalog: { tools: [gate.tool] },
      auth: { authorizationServers: [as.issuer], verifyAccessToken: (t) => as.verifyAccessToken(t) },
    });
    dir = await tempDir('auth');
    const provider = new ConformanceOAuthProvider();
    let allowSignIn = true;
    const client = new TaskClient({
      transport: new StreamableHttpTransport(server.url, {
        auth: {
          provider,
          waitForAuthorizationCode: async () => {
            if (!allowSignIn)
              throw new AuthorizationRequiredError(server.url, undefined, { reason: 'no person here' });
            return provider.waitForAuthorizationCode();
          },
        },
      }),
      store: new FileTaskStore(dir.path),
    });
    const done = client.callTool('long_job', {});
    await until(() => (server.authStats?.authorized['tasks/get'] ?? 0) >= 1, 'a poll');
    allowSignIn = false;
    as.revokeRefreshTokens();
    vi.setSystemTime(Date.now() + 120_000);
    const error = await done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthorizationRequiredError);
    expectNoTokenIn(String((error as Error).message));
    const text = await storeText();
    expect(text).toContain('"taskId"');
    expectNoTokenIn(text);
    gate.open();
    await client.close();
  });
});
