/**
 * Interactive questions through a pseudo-terminal (`script` from util-linux): the built CLI prompts with
 * @inquirer/prompts, keystrokes go in, and the answer the server received is checked with `stats.taskUpdates`.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { useCliServer } from './fixtures.js';
import { startCliInPty, type CliProcess } from './helpers.js';

const ENTER = '\r';
const DOWN = '\x1b[B';
const SPACE = ' ';
const CTRL_C = '\x03';

const env = useCliServer();

/** Waits for `prompt` in the terminal, then types `keys`. */
async function answer(proc: CliProcess, prompt: RegExp, keys: string): Promise<void> {
  await proc.waitFor(prompt);
  proc.child.stdin.write(keys);
}

async function taskIdOf(proc: CliProcess): Promise<string> {
  return ((await proc.waitFor(/task ([0-9a-f-]{36}) started/)) as unknown as [string, string])[1];
}

describe('interactive prompts in a pseudo-terminal', () => {
  it('deploy_release: accept, confirm and a note; the server receives exactly that', async () => {
    const proc = startCliInPty(['call', env.server.url, 'deploy_release', 'version=1.5.0'], env.home);
    const taskId = await taskIdOf(proc);
    await answer(proc, /Accept: fill in the form/, ENTER);
    await answer(proc, /Deploy now/, `y${ENTER}`);
    await answer(proc, /Release note \(optional\)/, `typed in a pty${ENTER}`);
    const run = await proc.done;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('deployed 1.5.0 (typed in a pty)');
    expect(run.stdout).toMatch(/input_required · waiting for confirmation of 1\.5\.0 · [\d.]+s/); // the live line
    expect(env.server.stats.taskUpdates(taskId).map((u) => u.inputResponses)).toEqual([
      { confirm: { action: 'accept', content: { confirm: true, note: 'typed in a pty' } } },
    ]);
  });

  it('deploy_release: decline is reachable', async () => {
    const proc = startCliInPty(['call', env.server.url, 'deploy_release', 'version=1.6.0'], env.home);
    const taskId = await taskIdOf(proc);
    await answer(proc, /Accept: fill in the form/, DOWN + ENTER);
    const run = await proc.done;
    expect(run.code).toBe(1);
    expect(env.server.stats.taskUpdates(taskId)[0]?.inputResponses).toEqual({
      confirm: { action: 'decline' },
    });
  });

  it('a form with every field kind: lengths, format, bounds, defaults, single and multi select', async () => {
    const proc = startCliInPty(['call', env.server.url, 'survey'], env.home);
    const taskId = await taskIdOf(proc);
    await answer(proc, /Accept: fill in the form/, ENTER);
    await answer(proc, /Release name \(3-20 chars\)/, `ab${ENTER}`);
    await answer(proc, /must be at least 3 characters/, `c${ENTER}`);
    await answer(proc, /Contact \(email\)/, `ops@example.com${ENTER}`);
    await answer(proc, /Replicas \(1\.\.9\)/, `7${ENTER}`);
    await answer(proc, /Canary ratio \(optional, 0\.\.1\)/, `0.25${ENTER}`);
    await answer(proc, /Notify the team \(optional\)/, ENTER); // default: true
    await answer(proc, /Region/, DOWN + ENTER); // Europe (default) → United States
    await answer(proc, /Channels \(choose 1-all\)/, SPACE + DOWN + DOWN + SPACE + ENTER);
    await answer(proc, /Comment \(optional\)/, ENTER); // left empty: omitted
    const run = await proc.done;
    expect(run.code).toBe(0);
    expect(env.server.stats.taskUpdates(taskId)[0]?.inputResponses).toEqual({
      profile: {
        action: 'accept',
        content: {
          name: 'abc',
          contact: 'ops@example.com',
          replicas: 7,
          ratio: 0.25,
          notify: true,
          region: 'us',
          channels: ['mail', 'pager'],
        },
      },
    });
  });

  it('URL mode asks before opening (here: no) and then how it went', async () => {
    const proc = startCliInPty(['call', env.server.url, 'authorize'], env.home);
    const taskId = await taskIdOf(proc);
    await answer(proc, /Open this URL in your browser\?/, `n${ENTER}`);
    await answer(proc, /When you are done/, ENTER);
    const run = await proc.done;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('https://example.com/login');
    expect(run.stdout).toContain('leads to: example.com');
    expect(run.stdout).toContain('Open this URL in your browser? (it leads to example.com)');
    expect(run.stdout).toContain('Not opened.');
    expect(env.server.stats.taskUpdates(taskId)[0]?.inputResponses).toEqual({ login: { action: 'accept' } });
  });

  it('Ctrl-C inside a prompt cancels the task like Ctrl-C anywhere else, and the question menu is erased', async () => {
    const proc = startCliInPty(['call', env.server.url, 'deploy_release', 'version=1.7.0'], env.home);
    const taskId = await taskIdOf(proc);
    await answer(proc, /Accept: fill in the form/, CTRL_C);
    const run = await proc.done;
    expect(run.code).toBe(4);
    // The prompt ends by erasing its lines (erase line, cursor to column 1) before showing the cursor again, instead
    // of leaving the menu on screen and moving below it.
    const afterCtrlC = run.stdout.slice(run.stdout.indexOf('Accept: fill in the form'));
    expect(afterCtrlC).toContain('\x1b[2K\x1b[G\x1b[?25h');
    expect(env.server.stats.taskCancels(taskId)).toHaveLength(1);
    expect(env.server.stats.taskUpdates(taskId)).toHaveLength(0);
  });

  it('a Ctrl-C that arrives as SIGINT while a prompt is open ends the prompt first: the Ctrl-C line starts on a line of its own', async () => {
    const proc = startCliInPty(['call', env.server.url, 'deploy_release', 'version=1.8.0'], env.home);
    const taskId = await taskIdOf(proc);
    await proc.waitFor(/Accept: fill in the form/);
    // The CLI is the child of `script`: the signal goes to it, as a terminal's or a wrapper's SIGINT would.
    const cliPid = Number(
      execFileSync('pgrep', ['-P', String(proc.child.pid)])
        .toString()
        .trim(),
    );
    process.kill(cliPid, 'SIGINT');
    const run = await proc.done;
    expect(run.code).toBe(4);
    const afterPrompt = run.stdout.slice(run.stdout.indexOf('Accept: fill in the form'));
    const erased = afterPrompt.indexOf('\x1b[2K\x1b[G'); // the prompt erased its lines, cursor at column 1
    const ctrlC = afterPrompt.indexOf(`Ctrl-C: sent tasks/cancel for ${taskId}`);
    expect(erased).toBeGreaterThan(0);
    expect(ctrlC).toBeGreaterThan(erased);
    // Before the fix the line followed the prompt's last line at its column ("… ⏎ select[  0.9s] Ctrl-C: …").
    expect(afterPrompt).not.toMatch(/select\S*\x1b\[\d+G\[ +[\d.]+s\] Ctrl-C/);
    expect(env.server.stats.taskCancels(taskId)).toHaveLength(1);
  });
});
