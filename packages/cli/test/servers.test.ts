/**
 * The servers a new user has, each reached from the command line (child processes, no TTY): `--stdio "<command>"`
 * with `--env`/`--cwd`, MCP config files in both shapes (`mcpServers` as Claude Desktop / Claude Code / Cursor write
 * them, `servers` as VS Code's `.vscode/mcp.json`), `mcp-tasks tools`, the closest names for a mistyped tool, and
 * messages that name the real cause (refused, unresolvable host, TLS, 404, credentials in the URL, a silent server).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliServer } from './fixtures.js';
import { ROOT, runCli } from './helpers.js';

const env = useCliServer();
const REFERENCE = join(ROOT, 'dist/testing/reference-server.js');
const STDIO = `node ${REFERENCE} --stdio --poll-interval-ms 100`;
const taskIdOf = (stdout: string): string => /task ([0-9a-f-]{36}) started/.exec(stdout)?.[1] as string;

let silent: Server;
let silentUrl = '';
const sockets = new Set<Socket>();
beforeAll(async () => {
  // Accepts connections and never answers.
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  silentUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
});

describe('stdio servers', () => {
  it('call --stdio "node …reference-server.js --stdio" reindex_corpus follows the task to the end', async () => {
    const run = await runCli(['call', '--stdio', STDIO, 'reindex_corpus', 'documents=50'], env.home);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/task [0-9a-f-]{36} started \(reindex_corpus\)/);
    expect(run.stdout).toContain('Indexed 50 documents');
  });

  it('--env and --cwd reach the server process; a shell operator is refused before anything starts', async () => {
    const dir = join(env.home, 'stdio-cwd');
    mkdirSync(dir, { recursive: true });
    // The server command reads its own environment and working directory through a wrapper script.
    const wrapper = join(dir, 'wrapper.mjs');
    writeFileSync(
      wrapper,
      `import { writeFileSync } from 'node:fs';\nwriteFileSync('seen.json', JSON.stringify({ cwd: process.cwd(), token: process.env.MY_TOKEN }));\nawait import(${JSON.stringify(REFERENCE)});\n`,
    );
    const run = await runCli(
      [
        'call',
        '--stdio',
        `node wrapper.mjs --stdio`,
        '--cwd',
        dir,
        '--env',
        'MY_TOKEN=s3cret',
        'echo',
        'text=hi',
      ],
      env.home,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('hi');
    const seen = JSON.parse((await import('node:fs')).readFileSync(join(dir, 'seen.json'), 'utf8')) as {
      cwd: string;
      token: string;
    };
    expect(seen).toEqual({ cwd: dir, token: 's3cret' });
    const piped = await runCli(['call', '--stdio', 'node server.js | tee log', 'echo'], env.home);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('--stdio runs one command without a shell; "|" is not supported');
  });

  it('a stdio server that dies mid-task: the error names the task and the exact watch command', async () => {
    const pidFile = join(env.home, 'dying.pid');
    const proc = runCli(
      [
        'call',
        '--stdio',
        `sh -c 'echo $$ > ${pidFile}; exec ${STDIO}'`,
        'reindex_corpus',
        'documents=1000000',
      ],
      env.home,
    );
    // Kill the server once the task exists (the pid file is written before the server starts).
    const { readFileSync, existsSync } = await import('node:fs');
    const started = Date.now();
    while (!existsSync(pidFile) && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 3_000)); // scene only: let the call become a task
    process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGKILL');
    const run = await proc;
    expect(run.code).toBe(8);
    const taskId = taskIdOf(run.stdout);
    expect(taskId).toBeDefined();
    expect(run.stderr).toContain(`Lost contact while following task ${taskId}`);
    expect(run.stderr).toContain(`mcp-tasks watch ${taskId} --stdio`);
  });
});

describe('config files', () => {
  it('finds servers by name in --config ({"mcpServers": …}: one HTTP, one stdio) and in .vscode/mcp.json ({"servers": …})', async () => {
    const config = join(env.home, 'claude_desktop_config.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          web: { url: env.server.url },
          local: { command: 'node', args: [REFERENCE, '--stdio', '--poll-interval-ms', '100'] },
        },
      }),
    );
    const http = await runCli(['call', 'web', 'echo', 'text=over-http', '--config', config], env.home);
    expect(http.code).toBe(0);
    expect(http.stdout).toContain('over-http');
    const stdio = await runCli(
      ['call', 'local', 'reindex_corpus', 'documents=20', '--config', config],
      env.home,
    );
    expect(stdio.code).toBe(0);
    expect(stdio.stdout).toContain('Indexed 20 documents');
    // VS Code's workspace file, found without --config from the workspace folder.
    const workspace = join(env.home, 'ws');
    mkdirSync(join(workspace, '.vscode'), { recursive: true });
    writeFileSync(
      join(workspace, '.vscode', 'mcp.json'),
      JSON.stringify({ servers: { ref: { type: 'http', url: '${env:REF_URL}' } } }),
    );
    const vscode = await runCliIn(workspace, ['tools', 'ref', '--trust-project-config'], {
      REF_URL: env.server.url,
    });
    expect(vscode.code).toBe(0);
    expect(vscode.stdout).toMatch(/^reindex_corpus\s+server decides\s+documents\s+idempotent$/m);
    const missing = await runCliIn(workspace, ['tools', 'nope'], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no server of that name');
    expect(missing.stderr).toContain('ref (');
    // A URL typed without its scheme: the usage error offers it with http://.
    const schemeless = await runCliIn(
      workspace,
      ['tools', `127.0.0.1:${new URL(env.server.url).port}/mcp`],
      {},
    );
    expect(schemeless.code).toBe(2);
    expect(schemeless.stderr).toContain(
      `; did you mean "http://127.0.0.1:${new URL(env.server.url).port}/mcp"?`,
    );
  });
});

describe('tools and tool names', () => {
  it('tools lists task support, required arguments and hints; --json gives one object per tool', async () => {
    const run = await runCli(['tools', env.server.url], env.home);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^TOOL\s+TASK\s+REQUIRED ARGUMENTS\s+HINTS$/m);
    expect(run.stdout).toMatch(/^echo\s+server decides\s+text\s+read-only, idempotent$/m);
    expect(run.stdout).toMatch(/^deploy_release\s+server decides\s+version\s+destructive$/m);
    const json = await runCli(['tools', '--stdio', STDIO, '--json'], env.home);
    const tools = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; required: string[] });
    expect(tools.find((t) => t.name === 'reindex_corpus')?.required).toEqual(['documents']);
  });

  it('an unknown tool prints the closest names and calls nothing (exit 2)', async () => {
    const before = env.server.stats.count('tools/call');
    const run = await runCli(['call', env.server.url, 'reindex', 'documents=1'], env.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('has no tool "reindex"; did you mean "reindex_corpus"?');
    expect(env.server.stats.count('tools/call')).toBe(before);
  });
});

describe('messages that name the real cause', () => {
  it('refused, unresolvable host, TLS: each says which, and that nothing was sent', async () => {
    const port = Number(new URL(env.server.url).port);
    const refused = await runCli(['call', `http://127.0.0.1:${await closedPort()}/mcp`, 'echo'], env.home);
    expect(refused.stderr).toMatch(
      /connection refused by 127\.0\.0\.1:\d+: no server is listening there\. Nothing was sent\./,
    );
    // A label longer than 63 bytes cannot be put in a DNS query: the lookup fails on this machine, nothing is sent.
    const dns = await runCli(['call', `http://${'x'.repeat(64)}.invalid/mcp`, 'echo'], env.home);
    expect(dns.code).toBe(8);
    expect(dns.stderr).toMatch(/cannot resolve the host x+\.invalid \(DNS E[A-Z_]+\)\. Nothing was sent\./);
    const tls = await runCli(['call', `https://127.0.0.1:${port}/mcp`, 'echo'], env.home);
    expect(tls.code).toBe(8);
    expect(tls.stderr).toMatch(
      /the TLS handshake with 127\.0\.0\.1:\d+ failed \(ERR_SSL_[A-Z_]+.*\)\. Nothing was sent\./,
    );
    for (const run of [refused, dns, tls]) expect(run.stderr).not.toContain('may or may not have started');
  });

  it('a wrong path (HTTP 404) asks whether this is the MCP endpoint; credentials in the URL are a usage error', async () => {
    const wrong = await runCli(['call', env.server.url.replace(/\/mcp$/, '/api'), 'echo'], env.home);
    expect(wrong.code).toBe(8);
    expect(wrong.stderr).toMatch(
      /^Error: HTTP 404 at http:\/\/127\.0\.0\.1:\d+\/api: is this the MCP endpoint\?/m,
    );
    expect(wrong.stderr).not.toMatch(/initialize failed|does not support protocol/);
    const creds = await runCli(
      ['call', env.server.url.replace('http://', 'http://user:pw@'), 'echo'],
      env.home,
    );
    expect(creds.code).toBe(2);
    expect(creds.stderr).toContain('the server URL contains credentials');
    expect(creds.stderr).toContain('--header "Authorization: Basic');
  });

  it('a server that never answers: a waiting line, then --timeout ends it (exit 8) naming the request', async () => {
    const run = await runCli(['call', silentUrl, 'echo', '--timeout', '4s'], env.home);
    expect(run.code).toBe(8);
    expect(run.stderr).toMatch(
      /^waiting for http:\/\/127\.0\.0\.1:\d+\/mcp to answer tools\/list \(3 s; gives up after 4 s, see --timeout; Ctrl-C to stop\)$/m,
    );
    expect(run.stderr).toMatch(
      /^Error: no answer from 127\.0\.0\.1:\d+ to tools\/list within 4\.0 s \(set another limit with --timeout\)$/m,
    );
    const bad = await runCli(['call', silentUrl, 'echo', '--timeout', 'soon'], env.home);
    expect(bad.code).toBe(2);
  });
});

describe('cancel', () => {
  it('exits 0 when the cancel was delivered and the server reported the task cancelled', async () => {
    const detached = await runCli(
      ['call', env.server.url, 'reindex_corpus', 'documents=1000000', '--detach'],
      env.home,
    );
    const taskId = detached.stdout.trim();
    const run = await runCli(['cancel', taskId], env.home);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`task ${taskId} cancelled (the server reported it)`);
    expect(env.server.stats.taskCancels(taskId)).toHaveLength(1);
  });
});

/** The built CLI in `cwd`, with a HOME that holds no config of the user's. */
function runCliIn(cwd: string, args: string[], extra: Record<string, string>) {
  return runCli(args, env.home, { cwd, env: { ...extra, HOME: join(env.home, 'nohome') } });
}

/** A loopback port nothing listens on (bound, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
