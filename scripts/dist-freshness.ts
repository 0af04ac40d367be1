/**
 * Whether the built command line (`dist/cli/main.js`) is newer than every file in `src/`: used by `npm run demo`
 * (scripts/demo-build.ts) and the CLI tests (test/cli/helpers.ts) to build only when needed.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The built command line. */
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** The newest modification time (ms) of any file under `dir`. */
function newestMtimeMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtimeMs(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** True when `dist/cli/main.js` exists and is at least as new as every file in `src/`. */
export function builtIsFresh(): boolean {
  try {
    return statSync(CLI).mtimeMs >= newestMtimeMs(join(ROOT, 'src'));
  } catch {
    return false;
  }
}
