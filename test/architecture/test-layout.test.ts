/**
 * The tests mirror the code: every folder under src/ has a test folder of the same name under test/, test/ holds
 * nothing else but the cross-cutting folders named here, and no two test files (test/, packages/<name>/test/) share a
 * file name, so a name in a failure report or a doc points at one file.
 */
import { readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Test folders that follow no single src/ folder: they exercise the library as a whole or support the others. */
const CROSS_CUTTING = [
  'architecture',
  'browser',
  'conformance',
  'docs',
  'durability',
  'examples',
  'faults',
  'fuzz',
  'helpers',
  'integration',
  'package',
  'runtimes',
  'telemetry',
];

function folders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules') return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? testFiles(path) : e.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('test layout', () => {
  it('every src/ folder has a test folder of the same name', () => {
    const testFolders = new Set(folders(join(ROOT, 'test')));
    expect(folders(join(ROOT, 'src')).filter((name) => !testFolders.has(name))).toEqual([]);
  });

  it('test/ has only the src/ folders and the cross-cutting ones', () => {
    const known = new Set([...folders(join(ROOT, 'src')), ...CROSS_CUTTING]);
    expect(folders(join(ROOT, 'test')).filter((name) => !known.has(name))).toEqual([]);
  });

  it('no two test files share a name', () => {
    const roots = [
      join(ROOT, 'test'),
      ...folders(join(ROOT, 'packages')).map((p) => join(ROOT, 'packages', p, 'test')),
    ];
    const byName = new Map<string, string[]>();
    for (const file of roots.flatMap((dir) => testFiles(dir))) {
      const name = basename(file);
      byName.set(name, [...(byName.get(name) ?? []), relative(ROOT, file)]);
    }
    expect([...byName.values()].filter((paths) => paths.length > 1)).toEqual([]);
  });
});
