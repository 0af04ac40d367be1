/**
 * `npm run demo`: the `mcp-tasks` command line against the reference task server, exactly as a person would type
 * it. It starts the server, then runs the built CLI (`packages/cli/dist/main.js`) as child processes:
 *
 * 1. a call answered inline; 2. a call that becomes a task, with its live status; 3. `deploy_release`, whose task
 * asks a question (answered by you at a TTY, or from an answers file with `--yes` or without a TTY); 4. a task
 * started with `--detach`, looked at with `status` and stopped with `cancel`; 5. `ls`; then a summary.
 *
 * Task records go to a temporary `MCP_TASKS_HOME`, so your own records are untouched.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTaskServer } from '../src/testing/index.js';

const CLI = fileURLToPath(new URL('../packages/cli/dist/main.js', import.meta.url));
const HOME = mkdtempSync(join(tmpdir(), 'mcp-tasks-demo-'));
const interactive =
  process.stdin.isTTY === true && process.stdout.isTTY === true && !process.argv.includes('--yes');
const summary: Array<{ step: string; command: string; code: number | null; ok: boolean }> = [];

/** Runs `mcp-tasks …args`, showing the command first; stdout is captured (and echoed) when `capture` is set. */
function mcpTasks(
  args: string[],
  options: { capture?: boolean } = {},
): Promise<{ code: number | null; stdout: string }> {
  const shown = args.map((a) => (/^[\w./:=@-]+$/.test(a) ? a : `'${a}'`)).join(' ');
  console.log(`\n$ mcp-tasks ${shown}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, MCP_TASKS_HOME: HOME },
      stdio: ['inherit', options.capture ? 'pipe' : 'inherit', 'inherit'],
    });
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      process.stdout.write(chunk);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

async function step(
  name: string,
  args: string[],
  expected: number[],
  options: { capture?: boolean } = {},
): Promise<string> {
  const run = await mcpTasks(args, options);
  summary.push({
    step: name,
    command: `mcp-tasks ${args[0]}`,
    code: run.code,
    ok: run.code !== null && expected.includes(run.code),
  });
  console.log(`(exit code ${run.code})`);
  return run.stdout;
}

async function main(): Promise<void> {
  const server = await createTaskServer({ pollIntervalMs: 250, inputTimeoutMs: 120_000 });
  const url = server.url;
  console.log(`Reference task server at ${url}; task records in ${HOME}`);
  try {
    await step('inline call', ['call', url, 'echo', 'text=hello from the command line'], [0]);
    await step('task with live status', ['call', url, 'reindex_corpus', 'documents=1500'], [0]);

    if (interactive) {
      console.log('\nThe next task asks you a question. Choose "Accept", then answer the fields.');
      await step('deploy_release (you answer)', ['call', url, 'deploy_release', 'version=1.4.0'], [0, 1]);
    } else {
      const answers = join(HOME, 'answers.json');
      writeFileSync(
        answers,
        `${JSON.stringify({ confirm: { confirm: true, note: 'approved by the demo' } }, null, 2)}\n`,
      );
      console.log(
        `\n# No TTY (or --yes): the question is answered from ${answers}:\n${JSON.stringify({ confirm: { confirm: true, note: 'approved by the demo' } })}`,
      );
      await step(
        'deploy_release (answers file)',
        ['call', url, 'deploy_release', 'version=1.4.0', '--answers', answers],
        [0],
      );
    }

    const taskId = (
      await step('start, detached', ['call', url, 'reindex_corpus', 'documents=100000', '--detach'], [0], {
        capture: true,
      })
    ).trim();
    await step('status', ['status', taskId], [0]);
    await step('cancel', ['cancel', taskId], [0]);
    await step('list records', ['ls'], [0]);

    console.log('\nSummary');
    for (const s of summary)
      console.log(`  ${s.ok ? 'ok  ' : 'FAIL'} ${s.step.padEnd(30)} ${s.command.padEnd(17)} exit ${s.code}`);
    console.log(`  requests served: ${JSON.stringify(server.stats.requestCounts)}`);
  } finally {
    await server.close();
    rmSync(HOME, { recursive: true, force: true });
  }
  if (summary.some((s) => !s.ok)) throw new Error('a step ended with an unexpected exit code');
}

const watchdog = setTimeout(
  () => {
    console.error('demo: did not finish within 120 s');
    process.exit(1);
  },
  interactive ? 600_000 : 120_000,
);
watchdog.unref();

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('demo failed:', error);
    process.exit(1);
  },
);
