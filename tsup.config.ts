import { defineConfig } from 'tsup';

// ESM + CJS + .d.ts for every entry. p-retry is ESM-only, so the CJS build bundles it (STYLE 23).
export default defineConfig([
  {
    entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' },
    format: ['esm'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    outDir: 'dist',
  },
  {
    entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' },
    format: ['cjs'],
    dts: true,
    sourcemap: true,
    target: 'node20',
    outDir: 'dist',
    noExternal: ['p-retry', 'is-network-error'],
  },
]);
