/**
 * What a new user's first mistakes get: a tool argument written as an option (`--documents=10`), the library's
 * `resume` for the CLI's `watch`, a command's option before the command, an answers file that is not JSON (one
 * line), an unanswerable question asked before the call was answered (the answers file example, as for a task), and
 * a failed task said once. The built CLI as a child process (no TTY) against the reference server on loopback.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskServer, type TaskServer } from '../../../src/testing/index.js';
import { ensureCliBuilt, hasControlCharacters, killLeftovers, runCli, tempHome } from './helpers.js';

let server: TaskServer;
let home: string;

beforeAll(async () => {
  await ensureCliBuilt();
  home = tempHome();
  server = await createTaskServer({ pollIntervalMs: 100, ttlMs: 60_000, inputTimeoutMs: 30_000 });
}, 180_000);
afterAll(async () => {
  await killLeftovers();
  await server?.close();
});

describe('hints after usage errors (exit 2)', () => {
  it('call … --documents=10 says tool arguments are written documents=10; --documents says documents=<value>', async () => {
    const run = await runCli(['call', server.url, 'reindex_corpus', '--documents=10'], home);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "error: unknown option '--documents=10'\n(Tool arguments are written key=value, without dashes: documents=10)\n",
    );
    const bare = await runCli(['call', server.url, 'reindex_corpus', '--documents', '10'], home);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain(
      '(Tool arguments are written key=value, without dashes: documents=<value>)',
    );
    // A near option name keeps commander's own suggestion, without ours.
    const typo = await runCli(['call', server.url, 'reindex_corpus', '--detatch'], home);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('(Did you mean --detach?)');
    expect(typo.stderr).not.toContain('Tool arguments');
  });

  it('resume suggests watch; a near typo keeps commander\'s "did you mean"', async () => {
    const run = await runCli(['resume', 'abc'], home);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "error: unknown command 'resume'\n(Did you mean watch? it resumes following a task: mcp-tasks watch <taskId>)\n",
    );
    const typo = await runCli(['wach', 'abc'], home);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("error: unknown command 'wach'\n(Did you mean watch?)\n");
  });

  it('a command option before the command says options go after it', async () => {
    const run = await runCli(['--json', 'call', server.url, 'echo', 'text=x'], home);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "error: unknown option '--json'\n(--json is an option of call: options go after the command, as in mcp-tasks call … --json)\n",
    );
    const withValue = await runCli(['--answers=a.json', 'watch', 'abc'], home);
    expect(withValue.code).toBe(2);
    expect(withValue.stderr).toContain(
      '(--answers is an option of watch: options go after the command, as in mcp-tasks watch … --answers <file.json>)',
    );
    const noCommand = await runCli(['--answers', 'a.json'], home);
    expect(noCommand.stderr).toContain(
      '(--answers is an option of call, watch: options go after the command',
    );
  });
});

describe('answers', () => {
  it('an --answers file that is not JSON is named on one line: reason, line and column, escaped excerpt (exit 2)', async () => {
    const bad = join(home, 'bad\nname.json');
    await writeFile(bad, '{"confirm":\n  tru }\n');
    const run = await runCli(['call', server.url, 'confirm_action', 'action=x', '--answers', bad], home);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `Usage error: --answers file ${join(home, 'bad\\x0aname.json')} is not valid JSON: Unexpected token ' ' (it begins "{\\"confirm\\":\\n  tru }\\n")\n`,
    );
    const trailing = join(home, 'trailing.json');
    await writeFile(trailing, '{\n  "confirm": true,\n}');
    const positioned = await runCli(
      ['call', server.url, 'confirm_action', 'action=x', '--answers', trailing],
      home,
    );
    expect(positioned.code).toBe(2);
    expect(positioned.stderr).toBe(
      `Usage error: --answers file ${trailing} is not valid JSON: Expected double-quoted property name at line 3, column 1 (near "\\n  \\"confirm\\": true,\\n}")\n`,
    );
  });

  it('a question before the call was answered (confirm_action) shows the answers file example a task shows; that file answers it', async () => {
    const run = await runCli(['call', server.url, 'confirm_action', 'action=rotate keys'], home);
    expect(run.code).toBe(7);
    expect(run.stderr).toContain(
      'Run the call again with --answers answers.json, where answers.json is, for example:\n  {"confirm":{"action":"accept","content":{"confirm":true}}}\n',
    );
    const task = await runCli(['call', server.url, 'deploy_release', 'version=1.0.0'], home);
    expect(task.code).toBe(7);
    expect(task.stderr).toContain(
      'where answers.json is, for example:\n  {"confirm":{"action":"accept","content":{"confirm":true}}}\n',
    );
    const answers = join(home, 'answers.json');
    await writeFile(answers, '{"confirm":{"action":"accept","content":{"confirm":true}}}');
    const answered = await runCli(
      ['call', server.url, 'confirm_action', 'action=rotate keys', '--answers', answers],
      home,
    );
    expect(answered.code).toBe(0);
    expect(answered.stdout).toContain('Performed "rotate keys"');
    expect(hasControlCharacters(run.stdout + run.stderr)).toBe(false);
  });
});

it('a failed task is said once: Task <id> failed: … (exit 3)', async () => {
  const run = await runCli(['call', server.url, 'flaky_job'], home);
  expect(run.code).toBe(3);
  expect(run.stderr).toMatch(
    /^Task [0-9a-f-]{36} failed: flaky_job: upstream service unavailable \(JSON-RPC -32603\)$/m,
  );
  expect(run.stderr).not.toContain('Task failed:');
});
