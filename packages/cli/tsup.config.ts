import { defineConfig } from 'tsup';

// The command line: one ESM program (ora is ESM only). Its dependencies, the library included, stay external.
export default defineConfig({
  entry: { main: 'src/main.ts' },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node20',
  outDir: 'dist',
});
