/**
 * A tarball a user can follow: both packages name their repository, homepage and issue tracker, and every link in
 * the READMEs npm shows is absolute (a relative link to `docs/…` is dead on the npm page) or an anchor on the page.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGES = ['.', 'packages/cli'];

describe.each(PACKAGES)('the package in %s', (dir) => {
  it('names its repository, homepage and issue tracker', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.repository).toMatchObject({ type: 'git', url: expect.stringMatching(/^git\+https:\/\//) });
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs).toMatchObject({ url: expect.stringMatching(/^https:\/\//) });
  });

  it('has only absolute links and anchors in its README', () => {
    const readme = readFileSync(join(ROOT, dir, 'README.md'), 'utf8').replace(/```[\s\S]*?```/g, '');
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.filter((t) => !/^(https?:\/\/|#|mailto:)/.test(t))).toEqual([]);
  });
});
