/**
 * The build step of `npm run demo`: the demo runs the built command line (`dist/cli/main.js`), so it needs `dist/`.
 * When `dist/` is already newer than every file in `src/` nothing is built; otherwise the JavaScript is built without
 * type declarations (seconds instead of minutes; `npm run build` and `npm test` make the full package). Either way
 * one line says what happens, so the demo never looks hung.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** The newest modification time (ms) of any file under `dir`. */
function newestMtimeMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtimeMs(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function builtIsFresh(): boolean {
  try {
    return statSync(CLI).mtimeMs >= newestMtimeMs(join(ROOT, 'src'));
  } catch {
    return false;
  }
}

if (builtIsFresh()) {
  console.log('mcp-tasks demo: dist/ is up to date, no build needed');
} else {
  console.log('mcp-tasks demo: building the package (JavaScript only, a few seconds)…');
  const built = spawnSync('npx', ['tsup', '--silent'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, MCP_TASKS_BUILD: 'js' } });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
