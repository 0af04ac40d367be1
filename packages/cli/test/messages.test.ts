/**
 * The CLI's words where a new user meets them: `call` with nothing after it names the missing server; an error
 * prefix is not repeated by its message ("Interrupted: interrupted"); task ids are shown whole; the sign-in hint
 * without `@modelcontextprotocol/client` says to install it; and what the person typed (a task id with a newline)
 * is echoed on one line, never as a line of its own. The built CLI as a child process, and the renderers directly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterAuthorizationError } from '../src/auth/sign-in.js';
import { renderEvent } from '../src/events.js';
import { explainError } from '../src/explain-error.js';
import { AuthorizationRequiredError, TaskCancelledError } from '../../../src/index.js';
import { createFaultServer, rewriteTask, type FaultServer } from '../../../test/faults/catalogue/index.js';
import { ensureCliBuilt, killLeftovers, runCli, tempHome } from './helpers.js';

let server: FaultServer;
let home: string;

beforeAll(async () => {
  await ensureCliBuilt();
  home = tempHome();
  server = await createFaultServer({ core: { pollIntervalMs: 100, ttlMs: 60_000 } });
}, 120_000);
afterAll(async () => {
  await killLeftovers();
  await server?.close();
});

const FORGED = 'id\nforged line';

describe('what the person typed is echoed on one line', () => {
  it('status with a newline in the task id and no record: the id is escaped, no forged line starts', async () => {
    const run = await runCli(['status', FORGED], home);
    expect(run.code).toBe(6);
    expect(run.stderr).toContain('no local record of task id\\x0aforged line');
    expect(run.stderr.split('\n').some((line) => line.startsWith('forged line'))).toBe(false);
  });

  it('status --server with a newline in the task id: the server does not know it; every line the CLI writes keeps the id on one line', async () => {
    const run = await runCli(['status', FORGED, '--server', server.url], home);
    expect(run.stderr).toContain('id\\x0aforged line');
    expect((run.stdout + run.stderr).split('\n').some((line) => line.startsWith('forged line'))).toBe(false);
  });
});

describe('messages', () => {
  it('call with nothing after it says the server is missing (exit 2)', async () => {
    const run = await runCli(['call'], home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage error: missing the server: mcp-tasks call <server> <tool>');
  });

  it('"Interrupted" is said once: a message that starts with the prefix is not repeated after it', () => {
    expect(
      renderEvent(
        {
          event: 'error',
          exitCode: 130,
          code: 'INTERRUPTED',
          message: 'interrupted; stopped following task t-1',
        },
        0,
      ),
    ).toBe('Interrupted: stopped following task t-1');
    expect(
      renderEvent({ event: 'error', exitCode: 8, message: 'connection refused by 127.0.0.1:1' }, 0),
    ).toBe('Error: connection refused by 127.0.0.1:1');
  });

  it('a cancelled task is said once: "Task <id> was cancelled: <reason>", not "Cancelled: task <id> was cancelled" (exit 4)', async () => {
    // A server of its own: the tests below count the tasks/cancel requests of theirs.
    const own = await createFaultServer({ core: { pollIntervalMs: 100, ttlMs: 60_000 } });
    const started = await runCli(['call', own.url, 'reindex_corpus', 'documents=1000000', '--detach'], home);
    const taskId = started.stdout.trim();
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    const cancel = await runCli(['cancel', taskId, '--server', own.url], home);
    expect(cancel.code).toBe(0);
    const run = await runCli(['status', taskId, '--server', own.url], home);
    await own.close();
    expect(run.code).toBe(4);
    expect(run.stderr).toBe(`Task ${taskId} was cancelled: Cancelled by the client\n`);
    // The other task ends read the same way; a prefix the message does not say is kept.
    expect(
      renderEvent({ event: 'error', exitCode: 6, message: 'task t-1 is unknown to the server' }, 0),
    ).toBe('Task t-1 is unknown to the server');
    expect(renderEvent({ event: 'error', exitCode: 129, message: 'task t-1 was cancelled' }, 0)).toBe(
      'Hangup (SIGHUP): task t-1 was cancelled',
    );
  });

  it('task ids are shown whole in status lines and error messages (the library shortens them for logs)', () => {
    const taskId = '8b95893c-e21f-4104-9be2-2f1f4c0e6a11';
    expect(renderEvent({ event: 'status', taskId, status: 'working', elapsedMs: 1200 }, 1200)).toBe(
      `[  1.2s] ${taskId} working`,
    );
    const error = new TaskCancelledError(taskId);
    expect(error.message).not.toContain(taskId);
    expect(explainError(error)).toContain(taskId);
  });

  it('the sign-in hint without @modelcontextprotocol/client installed says to install it', async () => {
    const refused = new AuthorizationRequiredError('https://mcp.example.com/mcp', 'tools/call');
    const error = await afterAuthorizationError(
      refused,
      false,
      () => undefined,
      async () => false,
    );
    expect((error as Error).message).toContain(
      'signing in needs the optional package @modelcontextprotocol/client, which is not installed.',
    );
    // The install line, or under npx (as when this test runs through npx) the same command with the package added
    expect((error as Error).message).toMatch(
      /npm install @modelcontextprotocol\/client|npx -p mcp-tasks-client -p @modelcontextprotocol\/client mcp-tasks/,
    );
  });
});

describe('a malformed CreateTaskResult', () => {
  it('names the task it announced and says its cancel was requested (the library sent tasks/cancel), text and --json', async () => {
    const malformed = rewriteTask('status nobody knows', (task) => ({ ...task, status: 'bogus' }));
    server.inject(malformed, { method: 'tools/call', times: 1 });
    const run = await runCli(['call', server.url, 'reindex_corpus', 'documents=50000'], home);
    expect(run.code).toBe(8);
    const [cancel] = server.requests('tasks/cancel');
    expect(cancel).toBeDefined();
    const taskId = String(cancel?.taskId);
    expect(run.stderr).toContain(
      `The server announced task ${taskId} in it; tasks/cancel was sent and the server acknowledged it: cancel requested (the server decides how the task ends) (see how it ended: mcp-tasks status ${taskId} --server ${server.url})`,
    );

    server.inject(malformed, { method: 'tools/call', times: 1 });
    const json = await runCli(['call', server.url, 'reindex_corpus', 'documents=50000', '--json'], home);
    expect(json.code).toBe(8);
    const error = JSON.parse(json.stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
    const second = server.requests('tasks/cancel')[1];
    expect(error).toMatchObject({
      event: 'error',
      exitCode: 8,
      code: 'INVALID_RESPONSE',
      taskId: second?.taskId,
      taskCancel: 'cancel-requested',
    });
  });

  it('an id the client refuses is shown escaped, on one line', async () => {
    server.inject(
      rewriteTask('hostile id', (task) => ({ ...task, taskId: 'evil\u001b[2J\u202eid', status: 'bogus' })),
      { method: 'tools/call', times: 1 },
    );
    const run = await runCli(['call', server.url, 'reindex_corpus', 'documents=50000'], home);
    expect(run.code).toBe(8);
    expect(run.stderr).toContain('The server announced task evil\\u001b[2J\\u202eid in it;');
    expect(run.stderr).not.toMatch(/[\u001b\u202e]/);
  });
});
