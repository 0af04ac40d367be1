/**
 * Interactive questions through a pseudo-terminal (`script` from util-linux): the built CLI prompts with
 * @inquirer/prompts, keystrokes go in, and the answer the server received is checked with `stats.taskUpdates`.
 */
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
    expect(run.stdout).toContain('Not opened.');
    expect(env.server.stats.taskUpdates(taskId)[0]?.inputResponses).toEqual({ login: { action: 'accept' } });
  });

  it('Ctrl-C inside a prompt cancels the task like Ctrl-C anywhere else', async () => {
    const proc = startCliInPty(['call', env.server.url, 'deploy_release', 'version=1.7.0'], env.home);
    const taskId = await taskIdOf(proc);
    await answer(proc, /Accept: fill in the form/, CTRL_C);
    const run = await proc.done;
    expect(run.code).toBe(4);
    expect(env.server.stats.taskCancels(taskId)).toHaveLength(1);
    expect(env.server.stats.taskUpdates(taskId)).toHaveLength(0);
  });
});
