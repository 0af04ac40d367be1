/**
 * Tools for benchmarks and fan-out tests of the reference server, enabled through its `catalog` option (they are not
 * in the demo catalog). `sleep_ms {ms, key?}` becomes a task that completes `ms` milliseconds (× `timeScale`) after it
 * started and records when it did, so a benchmark can measure how long a client takes to observe a completion.
 *
 * @example
 * ```ts
 * const bench = benchCatalog();
 * const server = await createTaskServer({ catalog: bench.catalog, inlineBudgetMs: 0, pollIntervalMs: 1_000 });
 * const result = await client.callTool('sleep_ms', { ms: 2_500, key: 'task-1' });
 * const delay = Date.now() - bench.completions.get('task-1')!.completedAt;
 * ```
 *
 * @module
 */
import { ErrorCode } from '../protocol/index.js';
import { numberArg, textResult, type Catalog, type ToolDefinition } from './catalog.js';
import { JobError } from './job.js';

/** Largest `ms` accepted by `sleep_ms` (one day). */
export const SLEEP_MS_MAX = 86_400_000;

/** When one `sleep_ms` job started and completed, ms from the catalog's clock. */
export interface BenchCompletion {
  /** The `ms` argument. */
  ms: number;
  startedAt: number;
  completedAt: number;
}

/** A catalog with the benchmark tools, and what they recorded. */
export interface BenchCatalog {
  /** Pass as `catalog` to `createTaskServer` or `new TaskServerCore`. */
  readonly catalog: Catalog;
  /** Completions of `sleep_ms` calls that carried a `key`, by key. */
  readonly completions: Map<string, BenchCompletion>;
}

/** Options of {@link benchCatalog}. */
export interface BenchCatalogOptions {
  /** Clock for `startedAt` / `completedAt`, ms since the epoch. @default Date.now */
  now?: () => number;
}

/**
 * A fresh benchmark catalog with its own completion records.
 *
 * | name | behaviour |
 * | --- | --- |
 * | `sleep_ms {ms, key?}` | waits `ms` (× `timeScale`), then completes with `structuredContent {ms, key, startedAt, completedAt}`; with `key`, also recorded in `completions` |
 */
export function benchCatalog(options: BenchCatalogOptions = {}): BenchCatalog {
  const now = options.now ?? Date.now;
  const completions = new Map<string, BenchCompletion>();
  const sleepMs: ToolDefinition = {
    name: 'sleep_ms',
    description:
      'Waits the given number of milliseconds, then completes and records when it did (a task past the inline budget).',
    inputSchema: {
      type: 'object',
      properties: { ms: { type: 'integer', minimum: 0, maximum: SLEEP_MS_MAX }, key: { type: 'string' } },
      required: ['ms'],
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    run: async (ctx) => {
      const ms = numberArg(ctx.args, 'ms', { min: 0, max: SLEEP_MS_MAX });
      const key = ctx.args.key;
      if (key !== undefined && typeof key !== 'string')
        throw new JobError(ErrorCode.InvalidParams, 'Argument "key" must be a string');
      const startedAt = now();
      await ctx.sleep(ms);
      const completedAt = now();
      if (key !== undefined) completions.set(key, { ms, startedAt, completedAt });
      return textResult(`slept ${ms} ms`, {
        structuredContent: { ms, key: key ?? null, startedAt, completedAt },
      });
    },
  };
  return { catalog: { tools: [sleepMs], resources: [], prompts: [] }, completions };
}
