/**
 * What a library install brings: the packed tarball installed into an empty project without dev dependencies holds
 * no server framework (express, hono, cors and their middleware) and no official SDK 1.x, which used to come with
 * the 2025-11-25 era and now stays a dev dependency of this repository's tests.
 *
 * Issue: "A client's install, not a server's" (no server framework anywhere in that tree).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'mcp-tasks-install-tree-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every package name under `dir/node_modules`, nested ones included. */
function installed(dir: string): string[] {
  const names: string[] = [];
  const walk = (modules: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(modules);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.startsWith('.')) continue;
      const scoped = entry.startsWith('@')
        ? readdirSync(join(modules, entry)).map((n) => `${entry}/${n}`)
        : [entry];
      for (const name of scoped) {
        names.push(name);
        walk(join(modules, name, 'node_modules'));
      }
    }
  };
  walk(join(dir, 'node_modules'));
  return names;
}

it('a library install holds no server framework and no @modelcontextprotocol/sdk', () => {
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const tarball = join(work, (JSON.parse(out) as Array<{ filename: string }>)[0]?.filename ?? '');
  const project = join(work, 'app');
  execFileSync('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  execFileSync(
    'npm',
    ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball],
    { cwd: project, encoding: 'utf8' },
  );
  const names = installed(project);
  expect(names).toContain('mcp-tasks-client');
  const servers = names.filter((n) =>
    /^(express|express-rate-limit|hono|@hono\/.*|cors|body-parser|router|@modelcontextprotocol\/sdk)$/.test(
      n,
    ),
  );
  expect(servers).toEqual([]);
}, 180_000);
