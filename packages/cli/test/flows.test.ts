/**
 * The CLI's flows against the reference server, no TTY: `--answers` (by key and by field name), `--detach` then
 * `watch`, `--json` event lines, MRTR questions, sampling (`--sampling-command`), roots (`--root`) and URL mode.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliServer } from './fixtures.js';
import { hasControlCharacters, runCli } from './helpers.js';

const env = useCliServer();

async function answersFile(name: string, content: unknown): Promise<string> {
  const path = join(env.home, name);
  await writeFile(path, JSON.stringify(content));
  return path;
}

const taskIdOf = (stdout: string): string => /task ([0-9a-f-]{36}) started/.exec(stdout)?.[1] as string;

describe('answers, detach and watch', () => {
  it('--answers (by key, a full answer) drives deploy_release to completion; the server got exactly that answer', async () => {
    const answers = await answersFile('deploy.json', {
      confirm: { action: 'accept', content: { confirm: true, note: 'scripted' } },
    });
    const run = await runCli(
      ['call', env.server.url, 'deploy_release', 'version=2.1.0', '--answers', answers],
      env.home,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('answered [confirm] accept (answers-file)');
    expect(run.stdout).toContain('deployed 2.1.0 (scripted)');
    const taskId = taskIdOf(run.stdout);
    expect(env.server.stats.taskUpdates(taskId).map((u) => u.inputResponses)).toEqual([
      { confirm: { action: 'accept', content: { confirm: true, note: 'scripted' } } },
    ]);
    expect(hasControlCharacters(run.stdout + run.stderr)).toBe(false);
  });

  it('--answers by field name; a decline is a tool error (exit 1)', async () => {
    const byField = await runCli(
      [
        'call',
        env.server.url,
        'deploy_release',
        'version=2.2.0',
        '--answers',
        await answersFile('fields.json', { confirm: true }),
      ],
      env.home,
    );
    expect(byField.code).toBe(0);
    expect(env.server.stats.taskUpdates(taskIdOf(byField.stdout))[0]?.inputResponses).toEqual({
      confirm: { action: 'accept', content: { confirm: true } },
    });
    const declined = await runCli(
      [
        'call',
        env.server.url,
        'deploy_release',
        'version=2.3.0',
        '--answers',
        await answersFile('decline.json', { confirm: 'decline' }),
      ],
      env.home,
    );
    expect(declined.code).toBe(1);
    expect(declined.stdout).toMatch(/Tool error:\n\s*Deployment of 2\.3\.0 was not confirmed \(decline\)/);
  });

  it('an invalid answer is reported and not sent (exit 7)', async () => {
    const run = await runCli(
      [
        'call',
        env.server.url,
        'deploy_release',
        'version=2.4.0',
        '--answers',
        await answersFile('bad.json', { confirm: 'yes please' }),
      ],
      env.home,
    );
    expect(run.code).toBe(7);
    expect(run.stderr).toContain('confirm: must be true or false');
    expect(env.server.stats.taskUpdates(taskIdOf(run.stdout))).toHaveLength(0);
  });

  it('--detach prints the task id and exits; watch then gets the result', async () => {
    const detached = await runCli(
      ['call', env.server.url, 'reindex_corpus', 'documents=600', '--detach'],
      env.home,
    );
    expect(detached.code).toBe(0);
    const taskId = detached.stdout.trim();
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(detached.stderr).toContain(`mcp-tasks watch ${taskId}`);
    const watched = await runCli(['watch', taskId], env.home);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toContain('Indexed 600 documents');
    const ls = await runCli(['ls'], env.home);
    expect(ls.stdout).toMatch(new RegExp(`${taskId}\\s+completed\\s+reindex_corpus`));
    const status = await runCli(['status', taskId, '--server', env.server.url], env.home);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('Indexed 600 documents');
  });

  it('--json writes one JSON object per line, the result last', async () => {
    const run = await runCli(
      ['call', env.server.url, 'reindex_corpus', '--json', '{"documents": 200}', '--json'],
      env.home,
    );
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; [k: string]: unknown });
    // Progress the server sent while the call was still inline may come first; then the task
    expect(events.find((e) => e.event !== 'progress')?.event).toBe('task');
    expect(events.filter((e) => e.event === 'status').length).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({
      event: 'result',
      exitCode: 0,
      result: { structuredContent: { documents: 200 } },
    });
  });

  it('answers an MRTR question from the file, and exits 7 without one', async () => {
    const ok = await runCli(
      [
        'call',
        env.server.url,
        'confirm_action',
        'action=rotate keys',
        '--answers',
        await answersFile('mrtr.json', { confirm: true }),
      ],
      env.home,
    );
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('Performed "rotate keys"');
    const unanswered = await runCli(
      ['call', env.server.url, 'confirm_action', 'action=rotate keys'],
      env.home,
    );
    expect(unanswered.code).toBe(7);
    expect(unanswered.stderr).toMatch(/^Input required: \[confirm\] no TTY to ask/m);
  });
});

describe('sampling, roots and URL mode', () => {
  it('declines sampling without --sampling-command (exit 7), answers it with one', async () => {
    const declined = await runCli(['call', env.server.url, 'ask_model'], env.home);
    expect(declined.code).toBe(7);
    expect(declined.stderr).toContain('sampling declined: no --sampling-command given');
    // The example answers file is a CreateMessageResult (role, content, model), and that file answers the question
    const example =
      /where answers\.json is, for example:\n {2}(\{.*\}) \(or answer it with --sampling-command <cmd>\)$/m.exec(
        declined.stderr,
      )?.[1];
    expect(example, declined.stderr).toBe(
      '{"draft":{"role":"assistant","content":{"type":"text","text":"The reply the server asked for"},"model":"example-model","stopReason":"endTurn"}}',
    );
    const file = join(env.home, 'sampling-answers.json');
    await writeFile(file, example as string);
    const fromFile = await runCli(['call', env.server.url, 'ask_model', '--answers', file], env.home);
    expect(fromFile.code).toBe(0);
    expect(env.server.stats.taskUpdates(taskIdOf(fromFile.stdout))[0]?.inputResponses).toEqual(
      JSON.parse(example as string),
    );
    const reply = { role: 'assistant', content: { type: 'text', text: 'autumn moon' }, model: 'echo-1' };
    const script = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const r=JSON.parse(s);if(r.method!=='sampling/createMessage')process.exit(3);console.log(JSON.stringify(${JSON.stringify(reply)}))})`;
    const answered = await runCli(
      [
        'call',
        env.server.url,
        'ask_model',
        '--sampling-command',
        `${JSON.stringify(process.execPath)} -e ${JSON.stringify(script)}`,
      ],
      env.home,
    );
    expect(answered.code).toBe(0);
    expect(env.server.stats.taskUpdates(taskIdOf(answered.stdout))[0]?.inputResponses).toEqual({
      draft: reply,
    });
  });

  it('answers roots/list from --root, else with an empty list', async () => {
    const withRoots = await runCli(['call', env.server.url, 'list_roots', '--root', '/srv/app'], env.home);
    expect(withRoots.code).toBe(0);
    expect(env.server.stats.taskUpdates(taskIdOf(withRoots.stdout))[0]?.inputResponses).toEqual({
      roots: { roots: [{ uri: 'file:///srv/app', name: 'app' }] },
    });
    const empty = await runCli(['call', env.server.url, 'list_roots'], env.home);
    expect(env.server.stats.taskUpdates(taskIdOf(empty.stdout))[0]?.inputResponses).toEqual({
      roots: { roots: [] },
    });
  });

  it('URL mode without a TTY shows the URL and never opens it; an answers entry can accept it', async () => {
    const shown = await runCli(['call', env.server.url, 'authorize'], env.home);
    expect(shown.code).toBe(7);
    expect(shown.stdout).toContain('Sign in to the registry (visit https://example.com/login)');
    const accepted = await runCli(
      ['call', env.server.url, 'authorize', '--answers', await answersFile('url.json', { login: 'accept' })],
      env.home,
    );
    expect(accepted.code).toBe(0);
    expect(env.server.stats.taskUpdates(taskIdOf(accepted.stdout))[0]?.inputResponses).toEqual({
      login: { action: 'accept' },
    });
  });
});
