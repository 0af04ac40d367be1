/**
 * What `npm install mcp-tasks-client` costs a user, and what it needs: the packed library installed into an empty
 * folder (its dependencies only; every peer is optional, so none comes along) adds at most 40 packages and 30 MB
 * (source maps included), carries no server framework, and a strict TypeScript consumer of the main entry, `/stdio`
 * and `/file-store` compiles with no optional peer installed (ESM and CommonJS, `skipLibCheck: false`,
 * `module: nodenext`). `npm test` builds `dist/` before running the tests, so the pack skips its build.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'mcp-tasks-footprint-'));
const project = join(work, 'app');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Packages no client install should carry: web server frameworks and their middleware. */
const SERVER_FRAMEWORKS = [
  'express',
  'hono',
  '@hono/node-server',
  'cors',
  'express-rate-limit',
  'body-parser',
];

/** Every installed package (`name@version`) under `dir/node_modules`, nested ones included. */
function installedPackages(dir: string): string[] {
  const found: string[] = [];
  const visit = (modules: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(modules);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.startsWith('.')) continue;
      if (entry.startsWith('@')) {
        for (const scoped of readdirSync(join(modules, entry)))
          add(join(modules, entry, scoped), `${entry}/${scoped}`);
      } else add(join(modules, entry), entry);
    }
  };
  const add = (path: string, name: string): void => {
    found.push(name);
    visit(join(path, 'node_modules'));
  };
  visit(join(dir, 'node_modules'));
  return found;
}

/** Bytes of every file under `path` (links not followed). */
function sizeOf(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + sizeOf(join(path, entry)), 0);
}

beforeAll(() => {
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const tarball = join(work, (JSON.parse(out) as Array<{ filename: string }>)[0]?.filename ?? '');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  execFileSync(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball],
    { cwd: project, encoding: 'utf8' },
  );
}, 300_000);

describe('npm install mcp-tasks-client (the packed tarball, into an empty folder)', () => {
  it('adds at most 40 packages and 30 MB, and no server framework', () => {
    const packages = installedPackages(project);
    const bytes = sizeOf(join(project, 'node_modules'));
    console.log(`install footprint: ${packages.length} packages, ${(bytes / 1e6).toFixed(1)} MB`);
    expect(packages).toContain('mcp-tasks-client');
    expect(packages.length).toBeLessThanOrEqual(40);
    expect(bytes).toBeLessThanOrEqual(30e6);
    expect(packages.filter((name) => SERVER_FRAMEWORKS.includes(name))).toEqual([]);
  });

  it('a strict consumer of the main entry, /stdio and /file-store compiles with no optional peer (ESM and CJS)', () => {
    // Node's types are the one thing a Node user brings (the /stdio and /file-store entries are Node only).
    mkdirSync(join(project, 'node_modules', '@types'), { recursive: true });
    symlinkSync(
      join(ROOT, 'node_modules', '@types', 'node'),
      join(project, 'node_modules', '@types', 'node'),
      'dir',
    );
    const body = `
export async function use(): Promise<string | undefined> {
  const store = new FileTaskStore('.tasks');
  const client = new TaskClient({ transport: new StreamableHttpTransport('http://127.0.0.1:1/mcp'), store });
  const local = new TaskClient({ transport: new StdioTransport({ command: 'node', args: ['server.js'] }) });
  const start = await client.startTool('reindex_corpus', { documents: 10 });
  await local.close();
  return start.resultType === 'task' ? start.task.taskId : undefined;
}
`;
    // The same source as an ES module (.mts: the "import" conditions) and as CommonJS (.cts: "require").
    const source = `import { StreamableHttpTransport, TaskClient } from 'mcp-tasks-client';
import { StdioTransport } from 'mcp-tasks-client/stdio';
import { FileTaskStore } from 'mcp-tasks-client/file-store';
${body}`;
    writeFileSync(join(project, 'esm.mts'), source);
    writeFileSync(join(project, 'cjs.cts'), source);
    const tsc = spawnSync(
      join(ROOT, 'node_modules', '.bin', 'tsc'),
      [
        '--strict',
        '--skipLibCheck',
        'false',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--noEmit',
        '--types',
        'node',
        'esm.mts',
        'cjs.cts',
      ],
      { cwd: project, encoding: 'utf8' },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 120_000);
});
