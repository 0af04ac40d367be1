/**
 * The packages as `npm pack` makes them and a user installs them: the library's `prepack` builds `dist/`, publint
 * and @arethetypeswrong/cli find nothing wrong with its exports map and types; the command line's `prepack` pins
 * its dependency on the library to the library's version; and the README's install lines work from the tarballs
 * (install both into an empty directory, run both bins, and the CLI against the reference server).
 * `npm test` builds both `dist/` folders before running the tests, so the library's pack skips its build.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const bin = (name: string): string => join(ROOT, 'node_modules', '.bin', name);
const work = mkdtempSync(join(tmpdir(), 'mcp-tasks-pack-'));
let tarball = '';
let cliTarball = '';

/** Packs the package in `cwd` into `work`; returns the tarball's path. */
function pack(args: string[]): string {
  const out = execFileSync('npm', ['pack', ...args, '--json', '--pack-destination', work], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return join(work, (JSON.parse(out) as Array<{ filename: string }>)[0]?.filename ?? '');
}

beforeAll(() => {
  tarball = pack(['--ignore-scripts']);
  cliTarball = pack(['--workspace', 'mcp-tasks']);
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed package', () => {
  it('builds dist/ on npm pack (prepack), and the tarball holds dist/ and the reference server bin', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      bin: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(pkg.scripts.prepack).toMatch(/tsup/);
    expect(Object.keys(pkg.bin)).toEqual(['mcp-tasks-reference-server']);
    // 2025-11-25 servers are reached without the SDK 1.x (and its server frameworks)
    expect(pkg.dependencies['@modelcontextprotocol/sdk']).toBeUndefined();
    const list = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
    for (const file of [
      'package/dist/index.js',
      'package/dist/index.cjs',
      'package/dist/index.d.ts',
      'package/dist/testing/index.js',
      ...Object.values(pkg.bin).map((b) => `package/${b}`),
    ]) {
      expect(list).toContain(file);
    }
    expect(list).not.toMatch(/package\/(src|test)\//);
  });

  it('passes publint --strict', () => {
    const run = spawnSync(bin('publint'), ['run', '--strict', '--pack', 'false'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(run.stdout + run.stderr).toContain('All good');
    expect(run.status).toBe(0);
  }, 120_000);

  it('passes @arethetypeswrong/cli (node16 and bundler resolution, ESM and CJS)', () => {
    const run = spawnSync(bin('attw'), [tarball, '--profile', 'node16', '--format', 'ascii'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
  }, 120_000);

  it('the command line tarball depends on the published library version, and leaves the link behind', () => {
    const library = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const packed = JSON.parse(
      execFileSync('tar', ['-xOzf', cliTarball, 'package/package.json'], { encoding: 'utf8' }),
    ) as { dependencies: Record<string, string>; bin: Record<string, string> };
    expect(packed.dependencies['mcp-tasks-client']).toBe(`^${library.version}`);
    expect(packed.bin).toEqual({ 'mcp-tasks': 'dist/main.js' });
    const inRepo = JSON.parse(readFileSync(join(ROOT, 'packages/cli/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(inRepo.dependencies['mcp-tasks-client']).toBe('file:../..');
    expect(execFileSync('tar', ['-tzf', cliTarball], { encoding: 'utf8' })).toContain('package/dist/main.js');
  });

  it('installs from the tarballs into an empty project, and both bins run', () => {
    const project = join(work, 'user');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'user', private: true, type: 'module' }),
    );
    execFileSync(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball, cliTarball],
      { cwd: project, encoding: 'utf8' },
    );
    const version = spawnSync(join(project, 'node_modules', '.bin', 'mcp-tasks'), ['--version'], {
      encoding: 'utf8',
    });
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const server = spawnSync(
      join(project, 'node_modules', '.bin', 'mcp-tasks-reference-server'),
      ['--help'],
      { encoding: 'utf8' },
    );
    expect(server.status).toBe(0);
    expect(server.stdout).toContain('--stdio');
    // The installed CLI talks to the installed reference server over stdio (the bin itself: npx may take longer to
    // start than the client's 5 s era probe on a loaded machine).
    const call = spawnSync(
      join(project, 'node_modules', '.bin', 'mcp-tasks'),
      [
        'call',
        '--stdio',
        'node_modules/.bin/mcp-tasks-reference-server --stdio --poll-interval-ms 100',
        'reindex_corpus',
        'documents=20',
      ],
      {
        cwd: project,
        encoding: 'utf8',
        env: { ...process.env, MCP_TASKS_HOME: join(work, 'home') },
      },
    );
    expect(call.stdout).toContain('Indexed 20 documents');
    expect(call.status).toBe(0);
  }, 300_000);
});
