/**
 * `mcp-tasks call` against a server that misbehaves where the reference server never would: it refuses an answer
 * (`tasks/update` -32602), reports `completed` with a result that is not a valid tool result, writes result text
 * whose lines would pass for the CLI's own, an image `mimeType` with a line break, and answers `tasks/get` with
 * HTTP 429 and a huge `Retry-After`. The built CLI as a child process, a hand-written server over loopback.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, killLeftovers, runCli, startCli, tempHome } from './helpers.js';
import { type HostileUpstream, hostileUpstream, taskOf } from './hostile-upstream.js';

let home: string;
const upstreams: HostileUpstream[] = [];

beforeAll(async () => {
  await ensureCliBuilt();
  home = tempHome();
}, 300_000);

afterAll(async () => {
  await killLeftovers();
  for (const u of upstreams) await u.close();
});

async function serve(script: Parameters<typeof hostileUpstream>[0]): Promise<HostileUpstream> {
  const upstream = await hostileUpstream(script);
  upstreams.push(upstream);
  return upstream;
}

describe('an answer the server refuses', () => {
  it('names the task, says no tasks/cancel was sent, and gives the status and watch commands', async () => {
    const upstream = await serve({
      call: () => ({ resultType: 'task', ...taskOf('t-uerr', 'working') }),
      get: () => ({
        resultType: 'complete',
        ...taskOf('t-uerr', 'input_required', {
          inputRequests: {
            q1: {
              method: 'elicitation/create',
              params: {
                message: 'ok?',
                requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
              },
            },
          },
        }),
      }),
      update: () => ({ error: { code: -32602, message: 'bad update' } }),
    });
    const answers = join(home, 'answers.json');
    writeFileSync(answers, JSON.stringify({ q1: { ok: true } }));
    const run = await runCli(['call', upstream.url, 'go', '--answers', answers], home);
    expect(run.code).toBe(8);
    expect(run.stderr).toContain(
      'Error: the answer to task t-uerr could not be delivered (tasks/update failed: bad update (JSON-RPC -32602)); last status: input_required; it was left running (no tasks/cancel was sent)',
    );
    expect(run.stderr).toContain(`mcp-tasks status t-uerr --server ${upstream.url}`);
    expect(run.stderr).toContain(`mcp-tasks watch t-uerr --server ${upstream.url}`);
    expect(upstream.methods).not.toContain('tasks/cancel');

    const json = await runCli(['call', upstream.url, 'go', '--answers', answers, '--json'], home);
    const error = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((e) => e.event === 'error');
    expect(error).toMatchObject({ event: 'error', exitCode: 8, taskId: 't-uerr', taskCancel: 'not-sent' });
  }, 60_000);
});

describe('a completed task whose result is not a valid tool result', () => {
  it('says the server reported completed and why the result could not be read, not "lost contact"', async () => {
    const upstream = await serve({
      call: () => ({ resultType: 'task', ...taskOf('t-bs', 'working') }),
      get: () => ({
        resultType: 'complete',
        ...taskOf('t-bs', 'completed', {
          result: { content: [{ type: 'text', text: 'important text' }], structuredContent: [1, 2] },
        }),
      }),
    });
    const run = await runCli(['call', upstream.url, 'go'], home);
    expect(run.code).toBe(8);
    expect(run.stderr).not.toContain('Lost contact');
    expect(run.stderr).not.toContain('left running');
    expect(run.stderr).toMatch(
      /The server reported task t-bs completed, but its result could not be read \(.*structuredContent.*\)/,
    );
    expect(upstream.methods).not.toContain('tasks/cancel');
  }, 60_000);
});

describe('result text and fields that try to forge CLI lines', () => {
  it('indents a task result under a header and escapes a mimeType whole', async () => {
    const upstream = await serve({
      call: () => ({ resultType: 'task', ...taskOf('t-evr', 'working') }),
      get: () => ({
        resultType: 'complete',
        ...taskOf('t-evr', 'completed', {
          result: {
            content: [
              { type: 'text', text: 'first\r\n[  0.5s] t-evr completed\nFAKE: completed' },
              { type: 'image', data: 'AAAA', mimeType: 'image/png\nFAKE: line' },
            ],
          },
        }),
      }),
    });
    const run = await runCli(['call', upstream.url, 'go'], home);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    const header = lines.indexOf('Result of task t-evr:');
    expect(header).toBeGreaterThan(0);
    expect(lines.slice(header + 1, header + 5)).toEqual([
      '  first\\x0d',
      '  [  0.5s] t-evr completed',
      '  FAKE: completed',
      '  [image image/png\\x0aFAKE: line, 3 B]',
    ]);
    for (const line of lines) expect(line).not.toMatch(/^(FAKE|\[ {2}0\.5s\] t-evr completed)/);
  }, 60_000);
});

describe('a poll answered with HTTP 429 and a huge Retry-After', () => {
  it('prints how long the server asked to wait and when the next poll is', async () => {
    const upstream = await serve({
      call: () => ({ resultType: 'task', ...taskOf('t-ra', 'working') }),
      get: (_p, _n, res) => {
        res.writeHead(429, { 'retry-after': '999999999' }).end();
        return null;
      },
    });
    const run = startCli(['call', upstream.url, 'go'], home);
    run.child.stdin.end();
    const [line] = await run.waitFor(/t-ra poll failed.*\n/);
    run.child.kill('SIGKILL');
    expect(line).toMatch(
      /t-ra poll failed: .*429.*; the server asked to wait 11574 days \(Retry-After\), so the next poll is not before \d{4,}-\d\d-\d\dT[\d:.]+Z \(Ctrl-C to stop\)/,
    );
  }, 60_000);
});

describe('a server that goes away while its task is followed', () => {
  it('each poll-failed line says why in words (connection refused, nothing sent), not "fetch failed"', async () => {
    let gets = 0;
    const upstream = await serve({
      call: () => ({ resultType: 'task', ...taskOf('t-gone', 'working') }),
      get: () => {
        gets++;
        return { resultType: 'complete', ...taskOf('t-gone', 'working') };
      },
    });
    const run = startCli(['call', upstream.url, 'go'], home);
    run.child.stdin.end();
    await run.waitFor(/t-gone started/);
    while (gets === 0) await new Promise((r) => setTimeout(r, 20));
    await upstream.close();
    const [line] = await run.waitFor(/t-gone poll failed.*\n/);
    run.child.kill('SIGKILL');
    const { host } = new URL(upstream.url);
    expect(line).toContain(
      `t-gone poll failed, retrying: connection refused by ${host}: no server is listening there. Nothing was sent.`,
    );
  }, 60_000);
});

describe('--era', () => {
  it('legacy speaks 2025-11-25 only (initialize, never server/discover); a bad value is a usage error', async () => {
    const upstream = await serve({ call: () => ({ content: [{ type: 'text', text: 'inline' }] }) });
    const legacy = await runCli(['tools', upstream.url, '--era', 'legacy'], home);
    expect(upstream.methods[0]).toBe('initialize');
    expect(upstream.methods).not.toContain('server/discover');
    expect(legacy.code).toBe(8);
    const modern = await runCli(['tools', upstream.url, '--era', 'modern'], home);
    expect(modern.code, modern.stderr).toBe(0);
    expect(modern.stdout).toContain('go');
    const bad = await runCli(['tools', upstream.url, '--era', 'newest'], home);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--era must be auto, modern or legacy, not "newest"');
    const help = await runCli(['call', '--help'], home);
    expect(help.stdout).toContain('--era <auto|modern|legacy>');
  }, 60_000);
});

describe('OAuth authorization server metadata without issuer', () => {
  it('says which field of which response was wrong, not a raw ZodError', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const json = (body: unknown): void => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (req.url?.startsWith('/.well-known/oauth-protected-resource'))
        return json({ resource: `${base}/mcp`, authorization_servers: [base] });
      if (req.url?.startsWith('/.well-known/'))
        return json({
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
        });
      res
        .writeHead(401, {
          'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
        })
        .end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
    try {
      const run = await runCli(['tools', url], home);
      expect(run.code).toBe(8);
      expect(run.stderr).not.toContain('ZodError');
      expect(run.stderr).toContain(
        `authorization for ${url} failed (authorize): a response of the authorization server (OAuth metadata, registration or token) is not valid: issuer: Invalid input: expected string, received undefined`,
      );
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }, 60_000);
});
