/**
 * `--stdio` takes the server's whole command line as one quoted argument. Typed without quotes (as a tired person
 * does), the words were read as the CLI's own: a second `--stdio` silently replaced the first, a server option was
 * "unknown option", an extra word became the server. Now each is a usage error (exit 2) before anything starts,
 * showing the quoting to use; the quoted form and our own options after it work as before. The built CLI as a child
 * process, the reference server over stdio.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, killLeftovers, ROOT, runCli, tempHome } from './helpers.js';

const REFERENCE = join(ROOT, 'dist/testing/reference-server.js');
let home: string;
/** A "server" that only leaves a file behind when it is started: proof that nothing was started. */
let marker: { script: string; trace: string };

beforeAll(async () => {
  await ensureCliBuilt();
  home = tempHome();
  const dir = mkdtempSync(join(tmpdir(), 'stdio-quoting-'));
  marker = { script: join(dir, 'server.mjs'), trace: join(dir, 'started') };
  writeFileSync(
    marker.script,
    `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker.trace)}, 'started');`,
  );
}, 120_000);
afterAll(() => killLeftovers());

describe('an unquoted --stdio command line is refused with the quoting to use (exit 2), nothing started', () => {
  it("a second --stdio (the server's own flag) no longer silently wins", async () => {
    const run = await runCli(['call', '--stdio', 'node', marker.script, '--stdio', 'echo', 'text=hi'], home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `Usage error: --stdio was given twice: --stdio takes the server's whole command line as one argument, so quote it, e.g. --stdio "node ${marker.script} --stdio" (mcp-tasks call --help)`,
    );
    expect(existsSync(marker.trace)).toBe(false);
  });

  it("a server option after the command is not taken for one of ours (call: the rest of the line is the tool's)", async () => {
    const run = await runCli(['call', '--stdio', 'npx', '-y', 'some-server', 'echo', 'text=hi'], home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `Usage error: "-y" is not an option of call: --stdio takes the server's whole command line as one argument, so quote it, e.g. --stdio "npx -y …"`,
    );
  });

  it('tools: the words after the command and its options are all part of it', async () => {
    const run = await runCli(['tools', '--stdio', 'node', marker.script, '--flag', '--json'], home);
    expect(run.code).toBe(2);
    const line = JSON.parse(run.stdout.trim()) as Record<string, unknown>;
    expect(line).toEqual({
      event: 'error',
      exitCode: 2,
      code: 'USAGE',
      message: `"${marker.script}" is one argument too many for tools: --stdio takes the server's whole command line as one argument, so quote it, e.g. --stdio "node ${marker.script} --flag" (mcp-tasks tools --help)`,
    });
    expect(existsSync(marker.trace)).toBe(false);
  });

  it('watch <taskId>: a word beyond the task id after --stdio belongs to the command line', async () => {
    const run = await runCli(['watch', 't-1', '--stdio', 'node', marker.script], home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`e.g. --stdio "node ${marker.script}" (mcp-tasks watch --help)`);
    expect(existsSync(marker.trace)).toBe(false);
  });
});

describe('the quoted form is unchanged', () => {
  it('tools --stdio "node reference-server.js --stdio" --timeout 30s --json lists the tools', async () => {
    const run = await runCli(
      ['tools', '--stdio', `node ${REFERENCE} --stdio`, '--timeout', '30s', '--json'],
      home,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"name":"reindex_corpus"');
  });

  it('--help says the command line is one quoted argument', async () => {
    const run = await runCli(['call', '--help'], home);
    expect(run.stdout.replace(/\s+/g, ' ')).toContain(
      'The whole command line is ONE argument: quote it, e.g. --stdio "npx my-server --port 0"',
    );
  });
});
