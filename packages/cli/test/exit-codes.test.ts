/**
 * Every exit code of `mcp-tasks`, each produced by a real scenario: the built CLI as a child process (no TTY)
 * against the reference server on loopback. Also checks that no-TTY output has no control characters.
 */
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskServer, type TaskServer } from '../../../src/testing/index.js';
import {
  ensureCliBuilt,
  killLeftovers,
  hasControlCharacters,
  ROOT,
  runCli,
  startCli,
  tempHome,
  type CliRun,
} from './helpers.js';

let server: TaskServer;
let slowPolls: TaskServer;
let home: string;
const runs: CliRun[] = [];

async function cli(args: string[]): Promise<CliRun> {
  const run = await runCli(args, home);
  runs.push(run);
  return run;
}

beforeAll(async () => {
  await ensureCliBuilt();
  home = tempHome();
  server = await createTaskServer({ pollIntervalMs: 100, ttlMs: 60_000, inputTimeoutMs: 30_000 });
  // Polls 10 s apart: nothing can change between the two Ctrl-C presses.
  slowPolls = await createTaskServer({ pollIntervalMs: 10_000, ttlMs: 60_000 });
}, 120_000);
afterAll(async () => {
  await killLeftovers();
  await server?.close();
  await slowPolls?.close();
});

describe('exit codes, each from a real run', () => {
  it('0: an inline result (text printed plainly, structuredContent pretty)', async () => {
    const run = await cli(['call', server.url, 'echo', 'text=hello']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('hello\nstructuredContent:\n{\n  "text": "hello"\n}\n');
  });

  it('0: a task followed to completion, one status line per change', async () => {
    const run = await cli(['call', server.url, 'reindex_corpus', 'documents=300']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/task [0-9a-f-]{36} started \(reindex_corpus\)/);
    expect(run.stdout).toMatch(/completed - indexed 300\/300/);
    expect(run.stdout).toContain('Indexed 300 documents');
  });

  it('1: the tool returned isError', async () => {
    const run = await cli(['call', server.url, 'lint_file', 'path=src/index.ts']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/Tool error:\n\s*src\/index\.ts: 3 problems/);
  });

  it('2: usage errors (bad URL, bad key=value, bad JSON, unknown command, unknown option)', async () => {
    expect((await cli(['call', 'ftp://example', 'echo'])).code).toBe(2);
    expect((await cli(['call', server.url, 'echo', 'no-equals-sign'])).code).toBe(2);
    expect((await cli(['call', server.url, 'echo', '--json', '{not json'])).code).toBe(2);
    expect((await cli(['frobnicate'])).code).toBe(2);
    expect((await cli(['ls', '--bogus'])).code).toBe(2);
    const missingAnswers = await cli([
      'call',
      server.url,
      'echo',
      'text=x',
      '--answers',
      join(home, 'nope.json'),
    ]);
    expect(missingAnswers.code).toBe(2);
    expect(missingAnswers.stderr).toMatch(/^Usage error: cannot read --answers file/m);
  });

  it('3: the task failed (the JSON-RPC error is shown)', async () => {
    const run = await cli(['call', server.url, 'flaky_job']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(
      /^Task [0-9a-f-]{36} failed: .*upstream service unavailable \(JSON-RPC -32603\)/m,
    );
  });

  it('4: Ctrl-C once sends tasks/cancel, says so, and ends with the cancelled status', async () => {
    const proc = startCli(['call', server.url, 'reindex_corpus', 'documents=1000000'], home);
    const [, taskId] = (await proc.waitFor(/task ([0-9a-f-]{36}) started/)) as unknown as [string, string];
    proc.child.kill('SIGINT');
    const run = await proc.done;
    runs.push(run);
    expect(run.code).toBe(4);
    expect(run.stdout).toContain(`Ctrl-C: sent tasks/cancel for ${taskId}`);
    expect(server.stats.taskCancels(taskId)).toHaveLength(1);
  });

  it('4: a cancelled task (`status` of it); `cancel` itself exits 0 once the server reports it cancelled', async () => {
    const detached = await cli(['call', server.url, 'reindex_corpus', 'documents=1000000', '--detach']);
    expect(detached.code).toBe(0);
    const taskId = detached.stdout.trim();
    const run = await cli(['cancel', taskId]);
    expect(run.code).toBe(0);
    expect(server.stats.taskCancels(taskId)).toHaveLength(1);
    expect((await cli(['status', taskId])).code).toBe(4);
  });

  it('5: expired: the TTL passed and the server forgot the task', async () => {
    const shortLived = await createTaskServer({ pollIntervalMs: 100, ttlMs: 500 });
    try {
      const detached = await cli(['call', shortLived.url, 'reindex_corpus', 'documents=1000000', '--detach']);
      const taskId = detached.stdout.trim();
      const list = await cli(['ls', '--json']);
      const record = list.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find((r) => r.taskId === taskId);
      // Wait until the locally recorded expiry has passed (no timing assertion: the wait only sets the scene).
      await new Promise((r) => setTimeout(r, Math.max(0, record.expiresAt - Date.now()) + 50));
      const run = await cli(['status', taskId]);
      expect(run.code).toBe(5);
      expect(run.stderr).toMatch(/^Task .* expired at/m);
      const after = await cli(['ls']);
      expect(after.stdout).toMatch(new RegExp(`${taskId}\\s+expired\\s+reindex_corpus.*TTL passed`));
    } finally {
      await shortLived.close();
    }
  });

  it('6: unknown task (server does not know it; no local record)', async () => {
    const run = await cli(['status', 'no-such-task', '--server', server.url]);
    expect(run.code).toBe(6);
    expect(run.stderr).toMatch(/^Task no-such-task is unknown to the server/m);
    const noRecord = await cli(['watch', 'never-recorded']);
    expect(noRecord.code).toBe(6);
    expect(noRecord.stderr).toContain('no local record of task never-recorded; name its server: --server');
  });

  it('7: input required with no TTY and no answer; the task stays resumable', async () => {
    const run = await cli(['call', server.url, 'deploy_release', 'version=1.4.0']);
    expect(run.code).toBe(7);
    const taskId = /task ([0-9a-f-]{36}) started/.exec(run.stdout)?.[1] as string;
    expect(run.stdout).toContain('input required [confirm] Deploy 1.4.0 to production?');
    expect(run.stderr).toContain(`mcp-tasks watch ${taskId} --server ${server.url} --answers answers.json`);
    expect(server.stats.taskCancels(taskId)).toHaveLength(0);
    const status = await cli(['status', taskId]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`Task ${taskId}: input_required`);
    // Only the start of the id (as a narrow terminal or a shortened message shows it): the record it names is offered.
    const short = await cli(['status', taskId.slice(0, 8)]);
    expect(short.code).toBe(6);
    expect(short.stderr).toContain(`no local record of task ${taskId.slice(0, 8)}; did you mean ${taskId}?`);
    // Resumable: answer it later from a file.
    const answers = join(home, 'answers-7.json');
    await writeFile(answers, JSON.stringify({ confirm: { confirm: true, note: 'later' } }));
    const resumed = await cli(['watch', taskId, '--answers', answers]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('deployed 1.4.0 (later)');
  });

  it('8: transport error (nothing listening) and server error (unknown tool)', async () => {
    const gone = await createTaskServer();
    const url = gone.url;
    await gone.close();
    const refused = await cli(['call', url, 'echo', 'text=x']);
    expect(refused.code).toBe(8);
    expect(refused.stderr).toMatch(
      /^Error: connection refused by 127\.0\.0\.1:\d+: no server is listening there\. Nothing was sent\.$/m,
    );
    // A server error: the tool exists, the server rejects the call with a JSON-RPC error.
    const rejected = await cli(['call', server.url, 'reindex_corpus', 'documents=-5']);
    expect(rejected.code).toBe(8);
    expect(rejected.stderr).toMatch(/^Error: tools\/call failed: .*\(JSON-RPC -32602\)/m);
  });

  it('130: Ctrl-C twice stops following (cancel acknowledged) and says how to see the end', async () => {
    const proc = startCli(['call', slowPolls.url, 'reindex_corpus', 'documents=1000000'], home);
    const [, taskId] = (await proc.waitFor(/task ([0-9a-f-]{36}) started/)) as unknown as [string, string];
    proc.child.kill('SIGINT');
    await proc.waitFor(/Ctrl-C: sent tasks\/cancel/);
    await proc.waitFor(/tasks\/cancel for \S+ acknowledged; the server decides when the task ends/);
    proc.child.kill('SIGINT');
    const run = await proc.done;
    runs.push(run);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain(
      `Stopped following task ${taskId}; tasks/cancel was sent and acknowledged (the server decides when the task ends). See how it ended with:\n  mcp-tasks status ${taskId}`,
    );
    const record = JSON.parse(
      (await cli(['ls', '--json'])).stdout.split('\n').find((l) => l.includes(taskId)) as string,
    );
    expect(record.status).toBe('working');
  });

  it('130: Ctrl-C while a silent server has not answered anything yet aborts at once', async () => {
    const requests: string[] = [];
    const silent = createServer((req) => requests.push(String(req.headers['mcp-method']))); // never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const proc = startCli(['call', `http://127.0.0.1:${port}/mcp`, 'echo', 'text=hi'], home);
      await expect.poll(() => requests.length, { timeout: 10_000 }).toBeGreaterThan(0);
      proc.child.kill('SIGINT');
      const run = await proc.done;
      runs.push(run);
      expect(requests).toEqual(['tools/list']);
      expect(run.code).toBe(130);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("exit 7 reads the same in --help, README and docs/cli.md: what it covers, and that a 2025-11-25 server's task is cancelled, not resumable", async () => {
    const help = (await cli(['--help'])).stdout.replace(/\s+/g, ' ');
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const docs = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    const row = (text: string): string => text.split('\n').find((line) => /^\| 7 +\|/.test(line)) ?? '';
    for (const text of [help, row(readme), row(docs)]) {
      expect(text).toMatch(
        /no TTY or `?--no-input`?, no `?--answers`? entry, sampling without `?--sampling-command`?/,
      );
      expect(text).toContain('a task stays resumable');
      expect(text).toContain("a 2025-11-25 server's is cancelled");
    }
  });

  it('--help documents every exit code', async () => {
    const run = await cli(['--help']);
    expect(run.code).toBe(0);
    for (const code of ['0 ', '1 ', '2 ', '3 ', '4 ', '5 ', '6 ', '7 ', '8 '])
      expect(run.stdout).toContain(`\n  ${code}`);
  });

  it('no-TTY output of every run above has no control characters', async () => {
    expect(runs.length).toBeGreaterThan(15);
    for (const run of runs) {
      expect(hasControlCharacters(run.stdout), run.stdout).toBe(false);
      expect(hasControlCharacters(run.stderr), run.stderr).toBe(false);
    }
    // The record directory is the one the tests chose.
    await expect(readFile(join(home, 'tasks', 'missing'), 'utf8')).rejects.toThrow();
  });
});
