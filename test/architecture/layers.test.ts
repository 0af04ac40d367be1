/**
 * The layer order of docs/architecture.md, checked on the source: no import cycle between files, no import from a
 * lower layer to a higher one, and the command line package reaches the library only through its entry points. Uses the TypeScript compiler's own import scanner.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/**
 * Lowest first; a file may import only files of its own layer or of a layer before it. A new folder under src/ must
 * be placed here (and in docs/architecture.md) before its files pass.
 */
export const LAYERS = [
  'protocol',
  'errors',
  'internal',
  'transport',
  'store',
  'tasks',
  'legacy',
  'modern',
  'fleet',
  'client',
  'entry',
  'adapters',
  'testing',
] as const;

function layerOf(file: string): (typeof LAYERS)[number] {
  const rel = relative(SRC, file).split('\\').join('/');
  if (rel === 'version.ts') return 'protocol';
  if (rel === 'errors.ts' || rel.startsWith('errors/')) return 'errors';
  if (!rel.includes('/')) return 'entry'; // index.ts, stdio.ts, file-store.ts: the package's entry points
  const folder = rel.split('/')[0] as (typeof LAYERS)[number];
  if (!LAYERS.includes(folder)) throw new Error(`${rel}: folder "${folder}" has no place in the layer order`);
  return folder;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Relative imports (static, type-only and dynamic with a literal) of every file, resolved to files. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((f) => f.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts')));
    graph.set(file, targets);
  }
  return graph;
}

/** Every cycle's files, found with Tarjan's strongly connected components. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(relative(SRC, w));
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

describe('architecture (docs/architecture.md)', () => {
  const graph = importGraph();

  it('no import cycle between source files', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it(`no import up the layers: ${LAYERS.join(' → ')}`, () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      const from = LAYERS.indexOf(layerOf(file));
      for (const target of targets) {
        const to = LAYERS.indexOf(layerOf(target));
        if (to > from)
          upward.push(`${relative(SRC, file)} (${LAYERS[from]}) → ${relative(SRC, target)} (${LAYERS[to]})`);
      }
    }
    expect(upward).toEqual([]);
  });
});

describe('the command line package (packages/cli) is a host of the library', () => {
  const CLI_SRC = join(SRC, '..', 'packages', 'cli', 'src');

  it('imports the library only through its published entry points, never its source files', () => {
    const reachesIntoLibrary: string[] = [];
    for (const file of sourceFiles(CLI_SRC)) {
      for (const ref of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
        const target = ref.fileName.startsWith('.') ? resolve(dirname(file), ref.fileName) : undefined;
        if (target !== undefined && !target.startsWith(CLI_SRC))
          reachesIntoLibrary.push(`${relative(CLI_SRC, file)} → ${ref.fileName}`);
      }
    }
    expect(reachesIntoLibrary).toEqual([]);
  });
});
