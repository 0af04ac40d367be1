/**
 * The API reference is generated from the TSDoc by TypeDoc (`npm run docs:api` writes it to docs/api/), and it
 * builds with no warning: every exported symbol of every entry point is documented and every `{@link}` resolves.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// TypeDoc colours its output with ANSI escapes.
const ANSI = /\x1b\[[0-9;]*m/g;

it('TypeDoc documents every export of every entry point, with no warning', () => {
  const run = spawnSync(join(ROOT, 'node_modules', '.bin', 'typedoc'), ['--emit', 'none'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const problems = (run.stdout + run.stderr)
    .replace(ANSI, '')
    .split('\n')
    .filter((line) => /\[(warning|error)\]/.test(line) && !line.includes('Found 0 errors and 0 warnings'));
  expect(problems).toEqual([]);
  expect(run.status).toBe(0);
}, 300_000);
