/**
 * The build step of `npm run demo`: the demo runs the built command line (`packages/cli/dist/main.js`), so it needs
 * the library's `dist/` and the command line's. When both are newer than every source file nothing is built;
 * otherwise the JavaScript is built without type declarations (seconds instead of minutes; `npm run build` and
 * `npm test` make the full package). Either way one line says what happens, so the demo never looks hung.
 */
import { buildAll, builtIsFresh } from './dist-freshness.js';

if (builtIsFresh()) {
  console.log('mcp-tasks demo: dist/ is up to date, no build needed');
} else {
  console.log('mcp-tasks demo: building the library and the command line (JavaScript only, a few seconds)…');
  const failed = buildAll({ jsOnly: true, inherit: true });
  if (failed) process.exit(failed.status);
}
