/**
 * The first step of `npm test`: makes sure the programs the tests drive for real are on this machine, so that
 * `npm install && npm test` is the whole set-up. Chromium (the browser bundle test, the inbox's page) and
 * `redis-server` (the fleet tests) are Debian packages with no npm package that ships them: when one is missing
 * and this runs as root with `apt-get`, it says what it installs and installs it; otherwise it prints one line
 * naming the package to install and fails, so no test is skipped in silence. Deno, Bun and workerd come from npm
 * (devDependencies) and need nothing here.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

interface Prerequisite {
  /** The program, looked up on PATH (or the absolute path). */
  program: string;
  /** The Debian package that provides it. */
  debianPackage: string;
  /** What needs it. */
  neededBy: string;
}

const CHROMIUM = process.env.MCP_CHROMIUM_PATH ?? '/usr/bin/chromium';
const PREREQUISITES: Prerequisite[] = [
  { program: CHROMIUM, debianPackage: 'chromium', neededBy: 'the browser tests' },
  { program: 'redis-server', debianPackage: 'redis-server', neededBy: 'the fleet tests' },
];

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function found(program: string): boolean {
  if (program.includes('/')) return isExecutable(program);
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir !== '' && isExecutable(join(dir, program)));
}

const missing = PREREQUISITES.filter((p) => !found(p.program));
if (missing.length > 0) {
  const packages = missing.map((p) => p.debianPackage);
  const canInstall = process.getuid?.() === 0 && found('apt-get');
  if (!canInstall) {
    for (const p of missing)
      console.error(
        `npm test: ${p.neededBy} need ${p.program}: install the Debian package \`${p.debianPackage}\` (as root: apt-get install ${p.debianPackage}).`,
      );
    process.exit(1);
  }
  console.log(
    `npm test: installing ${packages.join(' and ')} (Debian packages) for ${missing.map((p) => p.neededBy).join(' and ')}…`,
  );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install =
    update.status === 0
      ? spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], {
          stdio: ['ignore', 'ignore', 'inherit'],
          env,
        })
      : update;
  const still = missing.filter((p) => !found(p.program));
  if (install.status !== 0 || still.length > 0) {
    console.error(
      `npm test: could not install ${still.map((p) => p.debianPackage).join(', ') || packages.join(', ')} with apt-get.`,
    );
    process.exit(1);
  }
}
