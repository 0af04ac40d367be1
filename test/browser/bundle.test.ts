/**
 * The main entry runs without Node: no `node:` module, Node built-in or Node-only package reaches its browser
 * bundle. The Node-only entries are the negative control.
 */
import { describe, expect, it } from 'vitest';
import { checkBrowserBundle, formatReport } from '../../scripts/check-browser-bundle.js';

describe('browser bundle check (esbuild, platform: browser)', () => {
  it('passes for the main entry src/index.ts', async () => {
    const report = await checkBrowserBundle('src/index.ts');
    expect(report.violations, formatReport(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.inputs).toContain('src/index.ts');
    expect(
      report.inputs.some(
        (f) =>
          f.startsWith('src/testing/') || f === 'src/transport/stdio.ts' || f === 'src/store/file-store.ts',
      ),
    ).toBe(false);
  });

  it('names every node: import, built-in and Node-only package with its importer', async () => {
    const report = await checkBrowserBundle('test/browser/fixtures/node-leak.ts');
    expect(report.ok).toBe(false);
    expect(report.violations).toEqual(
      expect.arrayContaining([
        { module: 'node:fs', importer: 'test/browser/fixtures/node-leak.ts', kind: 'node-builtin' },
        { module: 'path', importer: 'test/browser/fixtures/node-leak.ts', kind: 'node-builtin' },
        {
          module: 'write-file-atomic',
          importer: 'test/browser/fixtures/node-leak.ts',
          kind: 'node-only-package',
        },
      ]),
    );
    expect(formatReport(report)).toMatch(/3 Node dependencies reached it/);
  });

  it('fails for the Node-only stdio entry', async () => {
    const report = await checkBrowserBundle('src/stdio.ts');
    expect(report.violations).toContainEqual({
      module: 'node:child_process',
      importer: 'src/transport/stdio-child.ts',
      kind: 'node-builtin',
    });
  });
});
