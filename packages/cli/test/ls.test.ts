/**
 * `mcp-tasks ls` shows servers as the person named them (a config name, the `--stdio` command line, the URL), not the
 * stored key; a record whose task may have moved on says when the server last reported it; `ls --refresh` asks each
 * server once about such tasks, never sooner than the task's `pollIntervalMs` after its last report
 * (CLIENT-REQUIREMENTS: the server's poll interval is a floor). The built CLI as a child process against the
 * reference server (through the fault server, whose log counts the `tasks/get` requests) on loopback.
 */
import { join } from 'node:path';
import type { TaskRecord } from 'mcp-tasks-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTaskStore } from '../../../src/file-store.js';
import { createFaultServer, type FaultServer } from '../../../test/faults/catalogue/index.js';
import { ensureCliBuilt, killLeftovers, runCli, tempHome } from './helpers.js';

let server: FaultServer;

beforeAll(async () => {
  await ensureCliBuilt();
  server = await createFaultServer({ core: { pollIntervalMs: 100, ttlMs: 600_000 } });
}, 120_000);
afterAll(async () => {
  await killLeftovers();
  await server?.close();
});

const LAST_SEEN = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A record as the client's store writes it. */
function record(taskId: string, serverKey: string, extra: Partial<TaskRecord> = {}): TaskRecord {
  return {
    version: 1,
    server: serverKey,
    method: 'tools/call',
    name: 'reindex_corpus',
    taskId,
    localCreatedAt: LAST_SEEN,
    ttlMs: null,
    status: 'working',
    answeredKeys: [],
    receivedAt: LAST_SEEN,
    updatedAt: LAST_SEEN,
    ...extra,
  };
}

const jsonLines = (stdout: string): Array<Record<string, unknown>> =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('mcp-tasks ls', () => {
  it('names each server as the person did: config name, --stdio command line, URL; says when a running task was last seen', async () => {
    const home = tempHome();
    const store = new FileTaskStore(join(home, 'tasks'));
    await store.put(
      record(
        't-config',
        `mcp-config:///${encodeURIComponent('/home/me/.mcp.json')}/${encodeURIComponent('my-server')}`,
      ),
    );
    await store.put(
      record(
        't-stdio',
        `stdio:///${encodeURIComponent('/home/me')}/${encodeURIComponent('npx mcp-tasks-reference-server --stdio')}`,
      ),
    );
    await store.put(
      record('t-done', 'https://mcp.example.com/mcp', {
        status: 'completed',
        outcome: { status: 'completed', result: { content: [] } },
      }),
    );
    const text = await runCli(['ls'], home);
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('t-config'))).toMatch(
      /working \(last seen \d+m \d\ds ago\).*  my-server$/,
    );
    expect(lines.find((l) => l.startsWith('t-stdio'))).toMatch(
      /  stdio: npx mcp-tasks-reference-server --stdio$/,
    );
    expect(lines.find((l) => l.startsWith('t-done'))).toMatch(
      /^t-done\s+completed\s+reindex_corpus.*  https:\/\/mcp\.example\.com\/mcp$/,
    );
    expect(text.stdout).not.toContain('%2F');

    const json = jsonLines((await runCli(['ls', '--json'], home)).stdout);
    const rows = json.map((r) => [r.taskId, r.serverName, r.lastSeenAt]);
    expect(rows.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ['t-config', 'my-server', LAST_SEEN],
      ['t-done', 'https://mcp.example.com/mcp', undefined],
      ['t-stdio', 'stdio: npx mcp-tasks-reference-server --stdio', LAST_SEEN],
    ]);
  });

  it('--refresh polls each task that may have moved on once, and not one whose poll interval has not passed', async () => {
    const home = tempHome();
    const detached = await runCli(['call', server.url, 'reindex_corpus', 'documents=50', '--detach'], home);
    const taskId = detached.stdout.trim();
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    const store = new FileTaskStore(join(home, 'tasks'));
    const before = await store.get(taskId);
    // Seen just now, and the server asked for at most one poll per 10 minutes: not due.
    await store.put(record('t-not-due', server.url, { receivedAt: Date.now(), pollIntervalMs: 600_000 }));
    const polls = (id: string): number => server.requests('tasks/get', id).length;
    const polledBefore = polls(taskId);

    const run = await runCli(['ls', '--refresh', '--json'], home);
    expect(run.code).toBe(0);
    expect(polls(taskId)).toBe(polledBefore + 1);
    expect(polls('t-not-due')).toBe(0);
    const after = await store.get(taskId);
    expect(after?.receivedAt).toBeGreaterThan(before?.receivedAt ?? Infinity);
    const listed = jsonLines(run.stdout).find((r) => r.taskId === taskId);
    expect(listed?.status).toBe(after?.outcome?.status ?? after?.status);
  }, 60_000);
});
