import { existsSync } from 'node:fs';
import { defineConfig } from 'tsup';

// Entry points. The main entry runs anywhere (fetch, Web Streams, timers); the others are Node only (the adapters
// import no `node:` module themselves, but their frameworks may).
const entries: Record<string, string> = {
  index: 'src/index.ts',
  node: 'src/node.ts',
  'testing/index': 'src/testing/index.ts',
  'testing/reference-server': 'src/testing/reference-server-cli.ts',
  stdio: 'src/stdio.ts',
  'file-store': 'src/file-store.ts',
  'redis-store': 'src/redis-store.ts',
  // Framework adapters: each framework is an optional peer dependency, so tsup leaves it external.
  'tool-runtime': 'src/adapters/tool-runtime.ts',
  'ai-sdk': 'src/adapters/ai-sdk/index.ts',
  langchain: 'src/adapters/langchain/index.ts',
  'openai-agents': 'src/adapters/openai-agents/index.ts',
};
const entry = Object.fromEntries(Object.entries(entries).filter(([, file]) => existsSync(file)));

// `MCP_TASKS_BUILD=js` (the demo's quick build, scripts/demo-build.ts) leaves out the type declarations.
const dts = process.env.MCP_TASKS_BUILD !== 'js';

// ESM + CJS + .d.ts for every library entry. p-retry is ESM-only, so the CJS build bundles it.
export default defineConfig([
  { entry, format: ['esm'], dts, sourcemap: true, clean: true, target: 'node20', outDir: 'dist' },
  {
    entry,
    format: ['cjs'],
    dts,
    sourcemap: true,
    target: 'node20',
    outDir: 'dist',
    noExternal: ['p-retry', 'is-network-error'],
  },
]);
