/**
 * SIGTERM and SIGHUP end `mcp-tasks call` the way the first Ctrl-C does (docs/cli.md § Signals): the task the server
 * started is cancelled (or, with `--detach`, left running), the task record says what became of it, the task id is
 * printed, and the process exits 143 (SIGTERM) or 129 (SIGHUP). The built CLI as a child process against the
 * reference server (through the fault server, which can hold a `tools/call` until the test lets it go) on loopback.
 *
 * CLIENT-REQUIREMENTS: never orphan work (cancel or record a task this run started).
 * Spec: ext-tasks specification/draft/tasks.md § Task Cancellation.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTaskStore } from '../../../src/file-store.js';
import { createFaultServer, type FaultServer } from '../../../test/faults/catalogue/index.js';
import { holdNextCall } from './fixtures.js';
import { ensureCliBuilt, killLeftovers, startCli, tempHome } from './helpers.js';

let server: FaultServer;

beforeAll(async () => {
  await ensureCliBuilt();
  server = await createFaultServer({ core: { pollIntervalMs: 100, ttlMs: 60_000, inlineBudgetMs: 10 } });
}, 120_000);
afterAll(async () => {
  await killLeftovers();
  await server?.close();
});

const recordOf = (home: string, taskId: string) => new FileTaskStore(join(home, 'tasks')).get(taskId);

describe('SIGTERM and SIGHUP are handled like the first Ctrl-C', () => {
  it('SIGTERM while tools/call is unanswered: the task the server starts a moment later is cancelled, recorded, printed; exit 143', async () => {
    const home = tempHome();
    const hold = holdNextCall(server);
    const proc = startCli(['call', server.url, 'reindex_corpus', 'documents=1000000'], home);
    await hold.arrived;
    proc.child.kill('SIGTERM');
    await proc.waitFor(/SIGTERM: tools\/call was sent and not answered yet/);
    hold.release();
    const run = await proc.done;
    server.clear();
    const taskId = /the server had started task ([0-9a-f-]{36}); tasks\/cancel sent/.exec(run.stdout)?.[1];
    expect(taskId, run.stdout + run.stderr).toBeDefined();
    expect(run.stdout).toContain(`SIGTERM before the server answered: the server had started task ${taskId}`);
    expect(run.stderr).toContain(`tasks/cancel was sent for task ${taskId}; the server decides how it ends.`);
    expect(run.code).toBe(143);
    expect(server.requests('tasks/cancel', taskId)).toHaveLength(1);
    const record = await recordOf(home, taskId as string);
    expect(record?.cancelRequested).toBe(true);
  }, 30_000);

  it('SIGHUP while a task is followed: tasks/cancel is sent, the record keeps the server-reported end; exit 129', async () => {
    const home = tempHome();
    const proc = startCli(['call', server.url, 'reindex_corpus', 'documents=1000000'], home);
    const [, taskId] = (await proc.waitFor(/task ([0-9a-f-]{36}) started/)) as unknown as [string, string];
    proc.child.kill('SIGHUP');
    const run = await proc.done;
    expect(run.stdout).toContain(`SIGHUP: sent tasks/cancel for ${taskId}; waiting up to 3.0 s`);
    expect(run.stderr).toContain(`Hangup (SIGHUP): task ${taskId} was cancelled`);
    expect(run.code).toBe(129);
    expect(server.requests('tasks/cancel', taskId)).toHaveLength(1);
    const record = await recordOf(home, taskId);
    expect(record?.cancelRequested).toBe(true);
    expect(record?.outcome?.status).toBe('cancelled');
  }, 30_000);

  it('SIGTERM with --detach before the answer: the task is left running and recorded, its id alone on stdout; exit 143', async () => {
    const home = tempHome();
    const hold = holdNextCall(server);
    const proc = startCli(['call', server.url, 'reindex_corpus', 'documents=1000000', '--detach'], home);
    await hold.arrived;
    proc.child.kill('SIGTERM');
    await proc.waitFor(/SIGTERM: tools\/call was sent/);
    hold.release();
    const run = await proc.done;
    server.clear();
    const taskId = run.stdout.trim();
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.stderr).toContain(
      `The server had started task ${taskId}; it was left running and recorded (--detach).\nFollow it:\n  mcp-tasks watch ${taskId} --server ${server.url}`,
    );
    expect(run.code).toBe(143);
    expect(server.requests('tasks/cancel', taskId)).toHaveLength(0);
    const record = await recordOf(home, taskId);
    expect(record?.status).toBe('working');
    expect(record?.cancelRequested).toBeUndefined();
  }, 30_000);
});
