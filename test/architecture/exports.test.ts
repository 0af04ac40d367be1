/**
 * The main entry's public surface, read from the source with the TypeScript compiler: the sorted names it exports
 * (runtime values and types apart) are pinned here, so a name joins or leaves it only on purpose. At most 110
 * names, each documented, and one `DEFAULTS` object instead of `DEFAULT_*` constants.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { TaskClientOptionsSchema } from '../../src/tasks/config.js';
import { RUNTIME, TYPES } from './main-exports.js';

const ENTRY = fileURLToPath(new URL('../../src/index.ts', import.meta.url));

/** `export type { … }` (or `export { type … }`): the name exists for the compiler only. */
function typeOnly(symbol: ts.Symbol): boolean {
  const spec = symbol.declarations?.find(ts.isExportSpecifier);
  return spec !== undefined && (spec.isTypeOnly || spec.parent.parent.isTypeOnly);
}

function entryExports(): Array<{ name: string; value: boolean; documented: boolean }> {
  const program = ts.createProgram([ENTRY], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(ENTRY)!)!;
  return checker.getExportsOfModule(module).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return {
      name: symbol.name,
      value: (target.flags & ts.SymbolFlags.Value) !== 0 && !typeOnly(symbol),
      documented: target.getDocumentationComment(checker).length > 0,
    };
  });
}

describe('the main entry (mcp-tasks-client)', () => {
  const exported = entryExports();

  it('exports exactly the pinned runtime values and types', () => {
    const sorted = (names: string[]) => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(sorted(exported.filter((e) => e.value).map((e) => e.name))).toEqual(sorted(RUNTIME));
    expect(sorted(exported.filter((e) => !e.value).map((e) => e.name))).toEqual(sorted(TYPES));
  });

  it('at most 110 names, one DEFAULTS object and no DEFAULT_* constant', () => {
    expect(exported.length).toBeLessThanOrEqual(110);
    expect(exported.map((e) => e.name).filter((n) => n.startsWith('DEFAULT'))).toEqual(['DEFAULTS']);
  });

  it('every exported name is documented (TSDoc at its declaration)', () => {
    expect(exported.filter((e) => !e.documented).map((e) => e.name)).toEqual([]);
  });
});

describe('the options of new TaskClient(options)', () => {
  /** The keys an option declares below it (an object group, through optional/default wrappers). */
  const inner = (schema: unknown): string[] => {
    let at = schema as { def?: { innerType?: unknown }; shape?: Record<string, unknown> };
    while (at.def?.innerType !== undefined) at = at.def.innerType as typeof at;
    return Object.keys(at.shape ?? {});
  };
  const shape = TaskClientOptionsSchema.shape as Record<string, unknown>;

  it('13 top-level options, 25 keys in all (nested ones included), no catch-all bag', () => {
    expect(Object.keys(shape)).toEqual([
      'transport',
      'store',
      'era',
      'clientInfo',
      'capabilities',
      'handlers',
      'timeoutMs',
      'polling',
      'creationRetry',
      'limits',
      'idempotencyKeyIn',
      'redactParams',
      'traceContext',
    ]);
    const nested = Object.fromEntries(
      ['handlers', 'polling', 'creationRetry', 'limits'].map((k) => [k, inner(shape[k])]),
    );
    expect(nested).toEqual({
      handlers: ['elicitation', 'sampling', 'roots'],
      polling: ['intervalMs', 'minIntervalMs', 'maxIntervalMs', 'mode'],
      creationRetry: ['retries', 'minTimeoutMs'],
      limits: ['maxInputRounds', 'maxConcurrentPolls', 'abortGraceMs'],
    });
    const total = Object.keys(shape).length + Object.values(nested).flat().length;
    expect(total).toBe(25);
  });
});
