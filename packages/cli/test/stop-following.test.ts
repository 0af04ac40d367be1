/**
 * What the CLI says when it stops following a task without the server's last word, by taskId and exactly: a
 * `tasks/cancel` sent and acknowledged, sent and not acknowledged yet, or none sent (left running, with the command
 * that resumes it). Built CLI as a child process (no TTY) against the fault server, whose held replies never come
 * until the test ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFaultServer, type FaultServer } from '../../../test/faults/catalogue/index.js';
import { ensureCliBuilt, killLeftovers, runCli, startCli, tempHome } from './helpers.js';

let faults: FaultServer;
let home: string;
/** Replies held back by a fault; released (answered honestly) when the test file ends. */
const held: Array<() => void> = [];
const hold = {
  name: 'hold-reply',
  reply: (_request: unknown, next: () => Promise<never>) =>
    new Promise<never>((resolve) => held.push(() => void next().then(resolve))),
};

beforeAll(async () => {
  await ensureCliBuilt();
  home = tempHome();
  faults = await createFaultServer({ core: { pollIntervalMs: 100, ttlMs: 60_000 } });
}, 120_000);
afterAll(async () => {
  await killLeftovers();
  for (const release of held.splice(0)) release();
  await faults?.close();
});

const cancels = (taskId: string): number =>
  faults.log.filter((e) => e.method === 'tasks/cancel' && e.taskId === taskId).length;

describe('stopping to follow a task says what became of it', () => {
  it('--timeout: polls that time out past the retries leave the task running, no tasks/cancel, and say how to resume it', async () => {
    faults.inject(hold as never, { tool: 'reindex_corpus', method: 'tasks/get' });
    try {
      const run = await runCli(
        ['call', faults.url, 'reindex_corpus', 'documents=1000000', '--timeout', '200ms'],
        home,
      );
      const taskId = /task ([0-9a-f-]{36}) started/.exec(run.stdout)?.[1] ?? '';
      expect(run.code).toBe(8);
      expect(run.stderr).toContain(
        `Lost contact while following task ${taskId} (last status: working); it was left running (no tasks/cancel was sent). Resume it with:\n  mcp-tasks watch ${taskId} --server ${faults.url}`,
      );
      expect(cancels(taskId)).toBe(0);
    } finally {
      faults.clear();
    }
  }, 60_000);

  it('Ctrl-C twice while tasks/cancel is still unanswered: exits 130 at once, says it was not acknowledged, prints the cancel command', async () => {
    faults.inject(hold as never, { method: 'tasks/cancel' });
    try {
      const proc = startCli(['call', faults.url, 'reindex_corpus', 'documents=1000000'], home);
      const [, taskId] = (await proc.waitFor(/task ([0-9a-f-]{36}) started/)) as unknown as [string, string];
      proc.child.kill('SIGINT');
      await proc.waitFor(/Ctrl-C: sent tasks\/cancel/);
      proc.child.kill('SIGINT');
      const run = await proc.done; // the held tasks/cancel is never answered while the CLI runs
      expect(run.code).toBe(130);
      expect(run.stderr).toContain(
        `Stopped following task ${taskId}; tasks/cancel was sent but not acknowledged yet, so it may not have arrived: the task may still be running. Cancel it (again) with:\n  mcp-tasks cancel ${taskId} --server ${faults.url}`,
      );
      expect(run.stderr).toContain(`interrupted; stopped following task ${taskId}`);
      expect(run.stdout).not.toContain('acknowledged; the server decides');
    } finally {
      faults.clear();
    }
  }, 60_000);
});
