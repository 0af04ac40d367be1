/**
 * Ctrl-C in `mcp-tasks call` before the server answered `tools/call` (docs/cli.md § Ctrl-C): the CLI says why it
 * does not stop at once, and then either prints the task the server started (and that tasks/cancel was sent; the
 * server sees it), or says truthfully that no answer came and the work may or may not have started. Exit 130.
 * The built CLI as a child process against the reference server (through the fault server, which holds the call
 * until the test lets it go) on loopback.
 *
 * Spec: ext-tasks specification/draft/tasks.md § Task Cancellation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFaultServer, type FaultServer } from '../../../test/faults/catalogue/index.js';
import { holdNextCall } from './fixtures.js';
import {
  ensureCliBuilt,
  hasControlCharacters,
  killLeftovers,
  startCli,
  tempHome,
  type CliRun,
} from './helpers.js';

let server: FaultServer;
let home: string;

beforeAll(async () => {
  await ensureCliBuilt();
  home = tempHome();
  server = await createFaultServer({ core: { pollIntervalMs: 100, ttlMs: 60_000, inlineBudgetMs: 10 } });
}, 120_000);
afterAll(async () => {
  await killLeftovers();
  await server?.close();
});

/**
 * `mcp-tasks call <server> …tool`, Ctrl-C while the fault server holds the tools/call, then the server answers
 * (within the grace the CLI announces).
 */
async function answeredAfterCtrlC(tool: string[]): Promise<CliRun> {
  const hold = holdNextCall(server);
  const proc = startCli(['call', server.url, ...tool], home);
  await hold.arrived;
  proc.child.kill('SIGINT');
  await proc.waitFor(
    /Ctrl-C: tools\/call was sent and not answered yet; reading the answer for up to 5\.0 s/,
  );
  hold.release();
  const run = await proc.done;
  server.clear();
  return run;
}

describe('Ctrl-C before the server answered tools/call', () => {
  it('a task the server starts within the grace: its id is printed, tasks/cancel reaches the server, exit 130', async () => {
    const run = await answeredAfterCtrlC(['reindex_corpus', 'documents=1000000']);
    const match = run.stdout.match(
      /Ctrl-C before the server answered: the server had started task ([0-9a-f-]{36}); tasks\/cancel sent/,
    );
    expect(match, run.stdout + run.stderr).not.toBeNull();
    const taskId = match?.[1] as string;
    expect(run.stderr).toContain(
      `tasks/cancel was sent for task ${taskId}; the server decides how it ends. See how it ended with:\n  mcp-tasks status ${taskId}`,
    );
    expect(run.code).toBe(130);
    expect(server.requests('tasks/cancel', taskId)).toHaveLength(1);
    expect(hasControlCharacters(run.stdout + run.stderr)).toBe(false);
  });

  it('an inline answer within the grace: the late-answer warning says the work ran to completion and its result was dropped, exit 130', async () => {
    const run = await answeredAfterCtrlC(['echo', 'text=hello']);
    expect(run.code).toBe(130);
    // The whole of stderr: the library's warning (known by its words in session.ts) reaches the person, reworded
    expect(run.stderr).toBe(
      'Ctrl-C: tools/call was sent and not answered yet; reading the answer for up to 5.0 s to cancel any task the server started\n' +
        'warning: tools/call echo: the server answered after the call was aborted: the work ran to completion; the result is dropped\n' +
        'Interrupted: before the answer was shown; nothing was left running on the server\n',
    );
    expect(run.stdout).toBe('');
    expect(hasControlCharacters(run.stdout + run.stderr)).toBe(false);
  });

  it('no answer within the grace: says the work may or may not have started and that no task id arrived, exit 130', async () => {
    const hold = holdNextCall(server);
    const proc = startCli(['call', server.url, 'reindex_corpus', 'documents=1000000'], home);
    await hold.arrived;
    proc.child.kill('SIGINT');
    const run = await proc.done; // after the 5 s grace
    hold.release();
    server.clear();
    expect(run.code).toBe(130);
    expect(run.stderr).toContain(
      'No answer came within 5.0 s, so no task id reached this client: nothing was recorded (mcp-tasks ls will not list it) and nothing could be cancelled.',
    );
    expect(run.stderr).toMatch(
      /Interrupted: before the server answered: the work may or may not have started on the server/,
    );
  }, 30_000);
});
