/**
 * `npm run conformance:server`: starts the reference task server with the conformance fixtures on loopback, runs the
 * official server scenarios of `@modelcontextprotocol/conformance` against it (Node 22 via `npx -p node@22`), reads
 * the `checks.json` each run writes, prints `name: N passed, M failed` per scenario (plus failure details), and exits
 * non-zero on any failed check or runner error.
 *
 * Also the shared runner of `scripts/conformance.ts` (client + server scenarios): {@link runSuite},
 * {@link runServerScenarios}, {@link report}.
 *
 * Usage: `tsx scripts/conformance-server.ts [scenario …]` (default: all scenarios below).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTaskServer } from '../src/testing/index.js';

export const PACKAGE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
export const SPEC_VERSION = '2026-07-28';
/** Server scenarios run against the reference server (`tasks-status-notifications`: subscriptions/listen push). */
export const SERVER_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
  'server-stateless',
  'tools-list',
  'dns-rebinding-protection',
  'sep-2164-resource-not-found',
  'tasks-status-notifications',
];
const CONCURRENCY = 4;

export interface Check {
  id: string;
  name?: string;
  status: string;
  description?: string;
  errorMessage?: string;
}

export interface Outcome {
  scenario: string;
  checks: Check[];
  exitCode: number | null;
  output: string;
}

/** Runs `npx -y -p node@22 -p <PACKAGE> conformance <args…>` and collects its output. */
export function runConformance(args: string[]): Promise<{ exitCode: number | null; output: string }> {
  const full = ['-y', '-p', 'node@22', '-p', PACKAGE, 'conformance', ...args];
  return new Promise((resolve) => {
    const child = spawn('npx', full, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (exitCode) => resolve({ exitCode, output }));
    child.on('error', (error) => resolve({ exitCode: -1, output: String(error) }));
  });
}

async function readChecks(dir: string): Promise<Check[]> {
  const checks: Check[] = [];
  for (const entry of await readdir(dir, { recursive: true })) {
    if (!String(entry).endsWith('checks.json')) continue;
    const parsed = JSON.parse(await readFile(join(dir, String(entry)), 'utf8')) as
      | Check[]
      | { checks?: Check[] };
    checks.push(...(Array.isArray(parsed) ? parsed : (parsed.checks ?? [])));
  }
  return checks;
}

/**
 * Runs each job (`scenario` + the runner's arguments given the output dir) with bounded concurrency and reads the
 * checks each run wrote. Temporary output is removed afterwards.
 */
export async function runSuite(
  jobs: Array<{ scenario: string; args: (outDir: string) => string[] }>,
): Promise<Outcome[]> {
  const root = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
  const outcomes: Outcome[] = [];
  try {
    const queue = [...jobs];
    const worker = async (): Promise<void> => {
      for (let job = queue.shift(); job !== undefined; job = queue.shift()) {
        const outDir = join(root, job.scenario.replace(/[^\w.-]/g, '_'));
        const { exitCode, output } = await runConformance(job.args(outDir));
        const checks = await readChecks(outDir).catch(() => []);
        outcomes.push({ scenario: job.scenario, checks, exitCode, output });
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, jobs.length) }, worker));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return jobs
    .map((job) => outcomes.find((o) => o.scenario === job.scenario))
    .filter((o): o is Outcome => o !== undefined);
}

/** Runs the server scenarios against a fresh reference server (conformance fixtures) on loopback. */
export async function runServerScenarios(selected: readonly string[] = SERVER_SCENARIOS): Promise<Outcome[]> {
  const server = await createTaskServer({ fixtures: 'conformance' });
  try {
    // Extension scenarios (tasks-*) are off the spec timeline, so the runner needs --force to run them at a dated version.
    return await runSuite(
      selected.map((scenario) => ({
        scenario,
        args: (outDir) => [
          'server',
          '--url',
          server.url,
          '--scenario',
          scenario,
          '--spec-version',
          SPEC_VERSION,
          '--force',
          '-o',
          outDir,
        ],
      })),
    );
  } finally {
    await server.close();
  }
}

/**
 * Prints `name: N passed, M failed` per outcome (with every non-success check and, on a runner error, the output
 * tail) and returns true when everything passed: no FAILURE, at least one check, exit code 0.
 */
export function report(outcomes: readonly Outcome[], prefix = ''): boolean {
  let ok = true;
  for (const outcome of outcomes) {
    const count = (status: string): number => outcome.checks.filter((c) => c.status === status).length;
    const failures = count('FAILURE');
    const extra = ['WARNING', 'SKIPPED', 'INFO']
      .filter((s) => count(s) > 0)
      .map((s) => `${count(s)} ${s.toLowerCase()}`);
    console.log(
      `${prefix}${outcome.scenario}: ${count('SUCCESS')} passed, ${failures} failed${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`,
    );
    for (const check of outcome.checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'SKIPPED')) {
      console.log(
        `  ${check.status} ${check.id}${check.name ? ` (${check.name})` : ''}: ${check.errorMessage ?? check.description ?? ''}`,
      );
    }
    const runnerFailed = outcome.checks.length === 0 || outcome.exitCode !== 0;
    if (runnerFailed) {
      const tail = outcome.output
        .split('\n')
        .filter((l) => !l.includes('EBADENGINE') && !l.startsWith('npm warn'))
        .slice(-20);
      console.log(`  runner exit code ${String(outcome.exitCode)}; output tail:\n${tail.join('\n')}`);
    }
    if (failures > 0 || runnerFailed) ok = false;
  }
  return ok;
}

async function main(): Promise<void> {
  const selected = process.argv.slice(2).length > 0 ? process.argv.slice(2) : SERVER_SCENARIOS;
  console.log(`${PACKAGE}, spec ${SPEC_VERSION}: server scenarios against the reference server`);
  const outcomes = await runServerScenarios(selected);
  process.exitCode = report(outcomes) ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
