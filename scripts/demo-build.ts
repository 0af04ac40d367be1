/**
 * The build step of `npm run demo`: the demo runs the built command line (`dist/cli/main.js`), so it needs `dist/`.
 * When `dist/` is already newer than every file in `src/` nothing is built; otherwise the JavaScript is built without
 * type declarations (seconds instead of minutes; `npm run build` and `npm test` make the full package). Either way
 * one line says what happens, so the demo never looks hung.
 */
import { spawnSync } from 'node:child_process';
import { builtIsFresh, ROOT } from './dist-freshness.js';

if (builtIsFresh()) {
  console.log('mcp-tasks demo: dist/ is up to date, no build needed');
} else {
  console.log('mcp-tasks demo: building the package (JavaScript only, a few seconds)…');
  const built = spawnSync('npx', ['tsup', '--silent'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, MCP_TASKS_BUILD: 'js' },
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
