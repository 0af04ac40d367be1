/**
 * `npm run conformance:server`: starts the reference task server with the conformance fixtures on loopback, runs the
 * official server scenarios of `@modelcontextprotocol/conformance` against it (Node 22 via `npx -p node@22`), reads
 * the `checks.json` each run writes, prints `name: N passed, M failed` per scenario (plus failure details), and exits
 * non-zero on any failed check or runner error.
 *
 * Usage: `tsx scripts/conformance-server.ts [scenario …]` (default: all scenarios below).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTaskServer } from '../src/testing/index.js';

const PACKAGE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
const SPEC_VERSION = '2026-07-28';
const SCENARIOS = [
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
];
const CONCURRENCY = 4;

interface Check {
  id: string;
  status: string;
  description?: string;
  errorMessage?: string;
}

interface Outcome {
  scenario: string;
  checks: Check[];
  exitCode: number | null;
  output: string;
}

function runScenario(url: string, scenario: string, outDir: string): Promise<{ exitCode: number | null; output: string }> {
  const args = ['-y', '-p', 'node@22', '-p', PACKAGE, 'conformance', 'server', '--url', url, '--scenario', scenario];
  // Extension scenarios (tasks-*) are off the spec timeline, so the runner needs --force to run them at a dated version.
  args.push('--spec-version', SPEC_VERSION, '--force', '-o', outDir);
  return new Promise((resolve) => {
    const child = spawn('npx', args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
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
    const parsed = JSON.parse(await readFile(join(dir, String(entry)), 'utf8')) as Check[] | { checks?: Check[] };
    checks.push(...(Array.isArray(parsed) ? parsed : (parsed.checks ?? [])));
  }
  return checks;
}

async function main(): Promise<void> {
  const selected = process.argv.slice(2).length > 0 ? process.argv.slice(2) : SCENARIOS;
  const server = await createTaskServer({ fixtures: 'conformance' });
  const root = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
  const outcomes: Outcome[] = [];
  try {
    console.log(`reference server at ${server.url}; ${PACKAGE}, spec ${SPEC_VERSION}`);
    const queue = [...selected];
    const worker = async () => {
      for (let scenario = queue.shift(); scenario !== undefined; scenario = queue.shift()) {
        const outDir = join(root, scenario);
        const { exitCode, output } = await runScenario(server.url, scenario, outDir);
        const checks = await readChecks(outDir).catch(() => []);
        outcomes.push({ scenario, checks, exitCode, output });
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, selected.length) }, worker));
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }

  let failed = false;
  for (const scenario of selected) {
    const outcome = outcomes.find((o) => o.scenario === scenario);
    if (outcome === undefined) continue;
    const count = (status: string) => outcome.checks.filter((c) => c.status === status).length;
    const failures = outcome.checks.filter((c) => c.status === 'FAILURE');
    const extra = ['WARNING', 'SKIPPED', 'INFO'].filter((s) => count(s) > 0).map((s) => `${count(s)} ${s.toLowerCase()}`);
    console.log(`${scenario}: ${count('SUCCESS')} passed, ${failures.length} failed${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`);
    for (const check of outcome.checks.filter((c) => c.status !== 'SUCCESS')) {
      console.log(`  ${check.status} ${check.id}: ${check.errorMessage ?? check.description ?? ''}`);
    }
    if (outcome.checks.length === 0 || outcome.exitCode !== 0) {
      console.log(`  runner exit code ${String(outcome.exitCode)}; output tail:\n${outcome.output.split('\n').slice(-15).join('\n')}`);
    }
    if (failures.length > 0 || outcome.checks.length === 0 || outcome.exitCode !== 0) failed = true;
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
