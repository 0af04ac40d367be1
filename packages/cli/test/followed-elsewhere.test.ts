/**
 * `mcp-tasks watch` of a task another process follows (here `mcp-tasks inbox`, which follows the tasks nobody else
 * does, holding each one's lease in the task records): the message names that process (its pid, this machine, its
 * command line) and says what to do (answer in the inbox page, look with `status`, or stop it first); exit code 11,
 * as the `--help` table says. Real processes: the reference server over loopback HTTP, a detached call, the inbox and
 * `watch` as child processes of the built CLI.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliServer } from './fixtures.js';
import { runCli, startCli } from './helpers.js';

const env = useCliServer();

/** Resolves once a lease lock file exists in the task records (the inbox took a task's lease). */
async function leaseTaken(home: string): Promise<void> {
  await expect
    .poll(() => readdirSync(join(home, 'tasks')).some((f) => f.endsWith('.lock')), { timeout: 30_000 })
    .toBe(true);
}

describe('watch of a task the inbox follows', () => {
  it('names the inbox process and what to do; exit 11 (text and --json)', async () => {
    const started = await runCli(
      ['call', env.server.url, 'reindex_corpus', 'documents=1000000', '--detach'],
      env.home,
    );
    expect(started.code).toBe(0);
    const taskId = started.stdout.trim();
    const inbox = startCli(['inbox', '--port', '0'], env.home);
    try {
      await inbox.waitFor(/http:\/\/127\.0\.0\.1:\d+/);
      await leaseTaken(env.home);

      const run = await runCli(['watch', taskId], env.home);
      expect(run.code).toBe(11);
      expect(run.stderr).toContain(
        `Followed elsewhere: task ${taskId} is already followed by process ${inbox.child.pid} on this machine (mcp-tasks inbox --port 0), which holds its lease in the task records: that process polls it and answers its questions (each is answered once), so this one does not. ` +
          'If it is mcp-tasks inbox, answer and cancel in its page (the link it printed at start); ' +
          `to look without following: mcp-tasks status ${taskId} --server ${env.server.url}; ` +
          'to follow it here, stop that process first, then run this again.',
      );

      const json = await runCli(['watch', taskId, '--json'], env.home);
      expect(json.code).toBe(11);
      const error = JSON.parse(json.stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
      expect(error).toMatchObject({ event: 'error', exitCode: 11, code: 'TASK_FOLLOWED_ELSEWHERE' });
      expect(String(error.message)).toContain(`process ${inbox.child.pid} on this machine`);
    } finally {
      inbox.child.kill('SIGINT');
      await inbox.done;
      await runCli(['cancel', taskId, '--server', env.server.url], env.home);
    }
  });

  it('cancel sends tasks/cancel without the lease: the server cancels it, the inbox keeps following', async () => {
    const started = await runCli(
      ['call', env.server.url, 'reindex_corpus', 'documents=1000000', '--detach'],
      env.home,
    );
    const taskId = started.stdout.trim();
    const inbox = startCli(['inbox', '--port', '0'], env.home);
    try {
      await inbox.waitFor(/http:\/\/127\.0\.0\.1:\d+/);
      await leaseTaken(env.home);
      const run = await runCli(['cancel', taskId, '--json'], env.home);
      const events = run.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(events).toContainEqual({ event: 'cancel', taskId, stage: 'acknowledged', via: 'command' });
      // the follower is named as watch's exit 11 names it, not by its raw lease-holder id (host:pid:nonce)
      expect(events).toContainEqual({
        event: 'hint',
        message: `Task ${taskId} is followed by process ${inbox.child.pid} on this machine (mcp-tasks inbox --port 0), which sees how it ends; the server reports it cancelled now.`,
      });
      expect(events.at(-1)).toEqual({ event: 'cancelled', taskId });
      expect(run.code).toBe(0);
      const status = await runCli(['status', taskId, '--server', env.server.url, '--json'], env.home);
      expect(status.stdout).toContain('"cancelled"');
    } finally {
      inbox.child.kill('SIGINT');
      await inbox.done;
    }
  });

  it('--help lists exit code 11', async () => {
    const run = await runCli(['--help'], env.home);
    expect(run.stdout).toContain(
      '\n  11   another process follows the task (an mcp-tasks inbox, a watch elsewhere): answer there, or stop it first',
    );
  });
});
