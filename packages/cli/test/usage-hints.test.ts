/**
 * What a new user's first mistakes get: a tool argument written as an option (`--documents=10`), the library's
 * `resume` for the CLI's `watch`, a command's option before the command, an answers file that is not JSON (one
 * line), an unanswerable question asked before the call was answered (the answers file example, as for a task), and
 * a failed task said once. The built CLI as a child process (no TTY) against the reference server on loopback.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliServer } from './fixtures.js';
import { type CliRun, hasControlCharacters, runCli } from './helpers.js';

const env = useCliServer();

/** Writes `text` to `name` in the test home, then calls confirm_action with it as --answers; resolves with the run and path. */
async function confirmWithAnswers(name: string, text: string): Promise<{ run: CliRun; path: string }> {
  const path = join(env.home, name);
  await writeFile(path, text);
  const run = await runCli(
    ['call', env.server.url, 'confirm_action', 'action=rotate keys', '--answers', path],
    env.home,
  );
  return { run, path };
}

describe('hints after usage errors (exit 2)', () => {
  it('call … --documents=10 says tool arguments are written documents=10; --documents says documents=<value>', async () => {
    const run = await runCli(['call', env.server.url, 'reindex_corpus', '--documents=10'], env.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "error: unknown option '--documents=10'\n(Tool arguments are written key=value, without dashes: documents=10)\n",
    );
    const bare = await runCli(['call', env.server.url, 'reindex_corpus', '--documents', '10'], env.home);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain(
      '(Tool arguments are written key=value, without dashes: documents=<value>)',
    );
    // A near option name keeps commander's own suggestion, without ours.
    const typo = await runCli(['call', env.server.url, 'reindex_corpus', '--detatch'], env.home);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('(Did you mean --detach?)');
    expect(typo.stderr).not.toContain('Tool arguments');
  });

  it('resume suggests watch; a near typo keeps commander\'s "did you mean"', async () => {
    const run = await runCli(['resume', 'abc'], env.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "error: unknown command 'resume'\n(Did you mean watch? it resumes following a task: mcp-tasks watch <taskId>)\n",
    );
    const typo = await runCli(['wach', 'abc'], env.home);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("error: unknown command 'wach'\n(Did you mean watch?)\n");
  });

  it('a command option before the command says options go after it', async () => {
    const run = await runCli(['--json', 'call', env.server.url, 'echo', 'text=x'], env.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "error: unknown option '--json'\n(--json is an option of call: options go after the command, as in mcp-tasks call … --json)\n",
    );
    const withValue = await runCli(['--answers=a.json', 'watch', 'abc'], env.home);
    expect(withValue.code).toBe(2);
    expect(withValue.stderr).toContain(
      '(--answers is an option of watch: options go after the command, as in mcp-tasks watch … --answers <file.json>)',
    );
    const noCommand = await runCli(['--answers', 'a.json'], env.home);
    expect(noCommand.stderr).toContain(
      '(--answers is an option of call, watch: options go after the command',
    );
  });
});

describe('answers', () => {
  it('an --answers file that is not JSON is named on one line: reason, line and column, escaped excerpt (exit 2)', async () => {
    const { run } = await confirmWithAnswers('bad\nname.json', '{"confirm":\n  tru }\n');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `Usage error: --answers file ${join(env.home, 'bad\\x0aname.json')} is not valid JSON: Unexpected token ' ' (it begins "{\\"confirm\\":\\n  tru }\\n")\n`,
    );
    const { run: positioned, path: trailing } = await confirmWithAnswers(
      'trailing.json',
      '{\n  "confirm": true,\n}',
    );
    expect(positioned.code).toBe(2);
    expect(positioned.stderr).toBe(
      `Usage error: --answers file ${trailing} is not valid JSON: Expected double-quoted property name at line 3, column 1 (near "\\n  \\"confirm\\": true,\\n}")\n`,
    );
  });

  it('a question before the call was answered (confirm_action) shows the answers file example a task shows; that file answers it', async () => {
    const run = await runCli(['call', env.server.url, 'confirm_action', 'action=rotate keys'], env.home);
    expect(run.code).toBe(7);
    expect(run.stderr).toContain(
      'Run the call again with --answers answers.json, where answers.json is, for example:\n  {"confirm":{"action":"accept","content":{"confirm":true}}}\n',
    );
    const task = await runCli(['call', env.server.url, 'deploy_release', 'version=1.0.0'], env.home);
    expect(task.code).toBe(7);
    expect(task.stderr).toContain(
      'where answers.json is, for example:\n  {"confirm":{"action":"accept","content":{"confirm":true}}}\n',
    );
    const { run: answered } = await confirmWithAnswers(
      'answers.json',
      '{"confirm":{"action":"accept","content":{"confirm":true}}}',
    );
    expect(answered.code).toBe(0);
    expect(answered.stdout).toContain('Performed "rotate keys"');
    expect(hasControlCharacters(run.stdout + run.stderr)).toBe(false);
  });
});

it('a failed task is said once: Task <id> failed: … (exit 3)', async () => {
  const run = await runCli(['call', env.server.url, 'flaky_job'], env.home);
  expect(run.code).toBe(3);
  expect(run.stderr).toMatch(
    /^Task [0-9a-f-]{36} failed: flaky_job: upstream service unavailable \(JSON-RPC -32603\)$/m,
  );
  expect(run.stderr).not.toContain('Task failed:');
});
