/**
 * `npm run demo` is the first command the README shows: it must keep working. `npm test` builds `dist/` before
 * vitest runs, so this runs the demo script itself (`tsx examples/demo.ts`, without a TTY: the question is answered
 * from its answers file) and checks every step ended with the exit code the demo expects.
 */
import { execSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

it('the README demo (examples/demo.ts) runs every step with its expected exit code', async () => {
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'examples/demo.ts'], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
      child.on('error', reject);
      child.on('close', (exit) => resolve({ code: exit, stdout: out, stderr: err }));
    },
  );
  expect(code, `${stdout}\n${stderr}`).toBe(0);
  expect(stdout).not.toMatch(/\bFAIL\b/);
  expect(stdout).toContain('cancelled (the server reported it)');
}, 120_000);

it('`npm run demo` builds only when dist/ is stale (JavaScript only) and always says what it does first', () => {
  const script =
    (JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts
      .demo ?? '';
  expect(script).toBe('tsx scripts/demo-build.ts && tsx examples/demo.ts');
  // npm test built dist/ just before vitest ran, so the step finds it up to date and builds nothing.
  expect(execSync('npx tsx scripts/demo-build.ts', { cwd: ROOT, encoding: 'utf8' })).toBe(
    'mcp-tasks demo: dist/ is up to date, no build needed\n',
  );
});
