import { defineConfig } from 'tsup';

// The command line: one ESM program (ora is ESM only). Its dependencies, the library included, stay external.
// The inbox page's script is bundled for the browser, everything inlined, next to it (dist/inbox-app.js).
export default defineConfig([
  {
    entry: { main: 'src/main.ts' },
    format: ['esm'],
    sourcemap: true,
    clean: false,
    target: 'node20',
    outDir: 'dist',
  },
  {
    entry: { 'inbox-app': 'src/inbox/page/app.ts' },
    format: ['esm'],
    platform: 'browser',
    target: 'es2022',
    outDir: 'dist',
    clean: false,
    noExternal: [/.*/],
    minify: true,
  },
]);
