/**
 * The runtimes the README names besides Node and Chromium, each running the built package (`npm test` builds
 * `dist/` first) through one task with a question against the reference server on loopback:
 *
 * - Deno (npm `deno`) and Bun (npm `bun`) run `fixtures/cli.mjs`, which imports `mcp-tasks-client` by name, so each
 *   runtime resolves the entry its own export conditions pick (both get the plain fetch entry, `dist/index.js`).
 * - Cloudflare's workerd (npm `workerd`) serves `fixtures/worker.mjs`, bundled in memory by esbuild with the
 *   conditions wrangler uses (`workerd`, `worker`, `browser`), with an outbound network limited to loopback; the
 *   test fetches the Worker, whose fetch handler runs the task.
 *
 * Each run calls `deploy_release`, answers its confirmation with an elicitation handler, and reports the outcome as
 * JSON; the test checks the outcome and that the server received exactly one `tasks/update`, carrying that answer.
 * The binaries come from the npm packages' platform dependencies; when one is missing the test fails and says which
 * package to install.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
/** The plain entry (fetch only, no undici), as a runtime's `import.meta.resolve` reports it. */
const PLAIN_ENTRY = new URL('../../dist/index.js', import.meta.url).href;
/** Time one runtime gets for the whole task (start-up included) before the test gives up, ms. */
const RUN_TIMEOUT_MS = 30_000;

/** What a fixture prints or answers: the task's outcome as the client saw it, or the error it met. */
interface Outcome {
  entry?: string;
  runtime: string;
  taskId?: string;
  questions?: string[];
  statuses?: string[];
  isError?: boolean;
  text?: string;
  error?: string;
}

/** The binary an npm devDependency installs, or an error saying how to get it. */
function binary(name: 'deno' | 'bun' | 'workerd'): string {
  const path = join(ROOT, 'node_modules', '.bin', name);
  if (!existsSync(path)) {
    throw new Error(
      `${name} not found at ${path}. It is a devDependency whose binary ships in a platform package ` +
        `(${process.platform}-${process.arch}); run \`npm install\` at the repository root.`,
    );
  }
  return path;
}

/** Runs a fixture script with a runtime and parses the one JSON line it prints. */
async function runScript(command: string, args: string[]): Promise<Outcome> {
  const { stdout, stderr } = await run(command, args, {
    cwd: ROOT,
    timeout: RUN_TIMEOUT_MS,
    env: { ...process.env, NO_COLOR: '1' },
  }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
    // A failed run still printed its error as JSON; keep it, with stderr, for the assertion message.
    if (error.stdout) return { stdout: error.stdout, stderr: error.stderr ?? '' };
    throw new Error(`${command} failed: ${error.message}\n${error.stderr ?? ''}`);
  });
  const line = stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as Outcome;
  } catch {
    throw new Error(`${command} printed no JSON outcome.\nstdout: ${stdout}\nstderr: ${stderr}`);
  }
}

/** The checks every runtime's outcome must pass, against what the server itself recorded. */
function expectTaskWithQuestion(outcome: Outcome, server: TaskServer): void {
  expect(outcome.error, JSON.stringify(outcome)).toBeUndefined();
  expect(outcome.text).toBe('deployed 2.0.0');
  expect(outcome.isError).toBe(false);
  expect(outcome.questions).toEqual(['Deploy 2.0.0 to production?']);
  expect(outcome.statuses).toContain('input_required');
  expect(outcome.statuses?.at(-1)).toBe('completed');
  const updates = server.stats.taskUpdates();
  expect(updates).toHaveLength(1);
  expect(updates[0]?.taskId).toBe(outcome.taskId);
  expect(Object.values(updates[0]?.inputResponses ?? {})).toEqual([
    { action: 'accept', content: { confirm: true } },
  ]);
  expect(server.stats.count('tools/call')).toBe(1);
}

describe('a task with a question on other runtimes (the built package, reference server on loopback)', () => {
  let server: TaskServer;

  beforeEach(async () => {
    server = await createTaskServer({ pollIntervalMs: 50, inputTimeoutMs: 15_000 });
  });
  afterEach(async () => {
    await server.close();
  });

  it('Deno: the plain fetch entry, with only --allow-net for loopback', { timeout: 40_000 }, async () => {
    const outcome = await runScript(binary('deno'), [
      'run',
      '--no-prompt',
      '--allow-net=127.0.0.1',
      join(FIXTURES, 'cli.mjs'),
      server.url,
    ]);
    expect(outcome.runtime).toMatch(/^deno \d+\.\d+\.\d+/);
    expectTaskWithQuestion(outcome, server);
    expect(outcome.entry).toBe(PLAIN_ENTRY);
  });

  it('Bun: the plain fetch entry (Bun matches "node" too, and its undici lacks what the Node entry needs)', {
    timeout: 40_000,
  }, async () => {
    // Bun applies the nearest tsconfig.json's paths (the repository maps mcp-tasks-client to src/); this one has none.
    const noPaths = join(FIXTURES, 'tsconfig.json');
    const outcome = await runScript(binary('bun'), [
      '--tsconfig-override',
      noPaths,
      join(FIXTURES, 'cli.mjs'),
      server.url,
    ]);
    expect(outcome.runtime).toMatch(/^bun \d+\.\d+\.\d+/);
    expectTaskWithQuestion(outcome, server);
    expect(outcome.entry).toBe(PLAIN_ENTRY);
  });

  it('workerd: a module Worker runs the task inside its fetch handler', { timeout: 40_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-tasks-workerd-'));
    let workerd: ChildProcess | undefined;
    try {
      await build({
        entryPoints: [join(FIXTURES, 'worker.mjs')],
        absWorkingDir: ROOT,
        bundle: true,
        format: 'esm',
        platform: 'neutral',
        conditions: ['workerd', 'worker', 'browser'],
        mainFields: ['browser', 'module', 'main'],
        target: 'es2022',
        outfile: join(dir, 'worker.js'),
        logLevel: 'error',
      });
      // The Worker may reach loopback only ("local"); the socket's port 0 is reported on the control fd.
      await writeFile(
        join(dir, 'config.capnp'),
        `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2026-11-01",
  globalOutbound = "loopback",
);
`,
      );
      const child = spawn(binary('workerd'), ['serve', join(dir, 'config.capnp'), '--control-fd=3'], {
        stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      });
      workerd = child;
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const port = await new Promise<number>((resolve, reject) => {
        let control = '';
        child.stdio[3]?.on('data', (chunk: Buffer) => {
          control += chunk.toString();
          const listen = /"event":"listen","socket":"http","port":(\d+)/.exec(control);
          if (listen) resolve(Number(listen[1]));
        });
        child.once('error', reject);
        child.once('exit', (code) =>
          reject(new Error(`workerd exited (${code}) before listening:\n${stderr}`)),
        );
      });
      const response = await fetch(`http://127.0.0.1:${port}/?server=${encodeURIComponent(server.url)}`, {
        signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
      });
      const outcome = (await response.json()) as Outcome;
      expect(outcome.runtime).toBe('Cloudflare-Workers');
      expect(response.status, `${JSON.stringify(outcome)}\n${stderr}`).toBe(200);
      expectTaskWithQuestion(outcome, server);
    } finally {
      workerd?.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
