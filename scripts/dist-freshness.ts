/**
 * Whether the built command line (`packages/cli/dist/main.js`) is newer than every source file of the library
 * (`src/`) and of the command line (`packages/cli/src/`), and how to build both: used by `npm run demo`
 * (scripts/demo-build.ts) and the CLI tests (packages/cli/test/helpers.ts) to build only when needed.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder (the library). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The command line's package folder. */
export const CLI_ROOT = join(ROOT, 'packages', 'cli');
/** The built command line. */
export const CLI = join(CLI_ROOT, 'dist', 'main.js');

/** The newest modification time (ms) of any file under `dir`. */
function newestMtimeMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtimeMs(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** True when the built CLI exists and is at least as new as every file in `src/` and `packages/cli/src/`. */
export function builtIsFresh(): boolean {
  try {
    const built = statSync(CLI).mtimeMs;
    return built >= newestMtimeMs(join(ROOT, 'src')) && built >= newestMtimeMs(join(CLI_ROOT, 'src'));
  } catch {
    return false;
  }
}

/**
 * Builds the library (`dist/`), then the command line (`packages/cli/dist/`), with tsup. `jsOnly` leaves out the
 * library's type declarations (seconds instead of minutes). Returns the first failing build's exit status and
 * output, or `undefined` when both built.
 */
export function buildAll(
  options: { jsOnly?: boolean; inherit?: boolean } = {},
): { status: number; stderr: string } | undefined {
  const env = options.jsOnly ? { ...process.env, MCP_TASKS_BUILD: 'js' } : process.env;
  for (const cwd of [ROOT, CLI_ROOT]) {
    const spawnOptions: SpawnSyncOptions = {
      cwd,
      env,
      encoding: 'utf8',
      stdio: options.inherit ? 'inherit' : 'pipe',
    };
    const built = spawnSync('npx', ['tsup', '--silent'], spawnOptions);
    if (built.status !== 0) return { status: built.status ?? 1, stderr: String(built.stderr ?? '') };
  }
  // npm links a workspace's bin only when its target exists: now it does, so `npx mcp-tasks` finds this build.
  spawnSync('npm', ['rebuild', 'mcp-tasks', '--ignore-scripts'], { cwd: ROOT, stdio: 'ignore' });
  return undefined;
}
