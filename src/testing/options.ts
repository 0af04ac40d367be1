/**
 * Options of the reference server, their defaults, and their validation (zod, at the boundary: a bad value throws a
 * `TypeError` naming the field and the value received).
 *
 * @module
 */
import { z } from 'zod';
import type { Catalog } from './catalog.js';

/** Default minimum polling interval sent in tasks, in ms. */
export const DEFAULT_POLL_INTERVAL_MS = 250;
/** Default task retention, in ms from creation (5 minutes). */
export const DEFAULT_TASK_TTL_MS = 300_000;
/** Default time a job may take and still be answered inline, in ms. */
export const DEFAULT_INLINE_BUDGET_MS = 50;
/** Default time an input request may stay unanswered before the task fails, in ms. */
export const DEFAULT_INPUT_TIMEOUT_MS = 60_000;
/** Default maximum request body, in bytes (1 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;
/** Default `serverInfo`. */
export const DEFAULT_SERVER_INFO = { name: 'mcp-tasks-reference-server', version: '0.1.0' } as const;

/** Options of {@link TaskServerCore}, transport-independent. */
export interface TaskServerCoreOptions {
  /** Minimum polling interval the server puts in every task, ms (positive integer). @default DEFAULT_POLL_INTERVAL_MS */
  pollIntervalMs?: number;
  /** Task retention from creation, ms (positive integer), or `null` for never. @default DEFAULT_TASK_TTL_MS */
  ttlMs?: number | null;
  /** A job finishing within this many ms is answered inline; later, it becomes a task. @default DEFAULT_INLINE_BUDGET_MS */
  inlineBudgetMs?: number;
  /** ms an input request may stay unanswered before the task fails with -32603. @default DEFAULT_INPUT_TIMEOUT_MS */
  inputTimeoutMs?: number;
  /** Multiplier for every job duration (0.1 = ten times faster). @default 1 */
  timeScale?: number;
  /** `"conformance"` adds the conformance-suite fixture tools. @default 'none' */
  fixtures?: 'none' | 'conformance';
  /** Include the demo catalog (`echo`, `reindex_corpus`, …). @default true */
  demo?: boolean;
  /** Extra tools, resources and prompts; they replace demo or fixture entries of the same name. */
  catalog?: Partial<Catalog>;
  /** Clock for task timestamps, TTL expiry and stats, in ms since the epoch. @default Date.now */
  now?: () => number;
  /** Identity sent by `server/discover`. @default DEFAULT_SERVER_INFO */
  serverInfo?: { name: string; version: string };
  /** `instructions` of `server/discover`. */
  instructions?: string;
  /**
   * Name of a tool argument that carries an idempotency key, besides `_meta[IDEMPOTENCY_META_KEY]` (always read).
   * A repeated key returns the task it created instead of starting new work (see `idempotency.ts`). @default undefined
   */
  idempotencyArgument?: string;
}

/** {@link TaskServerCoreOptions} with every default applied. */
export interface ResolvedCoreOptions {
  pollIntervalMs: number;
  ttlMs: number | null;
  inlineBudgetMs: number;
  inputTimeoutMs: number;
  timeScale: number;
  fixtures: 'none' | 'conformance';
  demo: boolean;
  catalog: Partial<Catalog>;
  now: () => number;
  serverInfo: { name: string; version: string };
  instructions: string;
  idempotencyArgument: string | undefined;
}

const positiveInt = z.number().int().positive();
const CoreOptionsSchema = z.object({
  pollIntervalMs: positiveInt.optional(),
  ttlMs: positiveInt.nullable().optional(),
  inlineBudgetMs: z.number().int().nonnegative().optional(),
  inputTimeoutMs: positiveInt.optional(),
  timeScale: z.number().nonnegative().refine(Number.isFinite).optional(),
  fixtures: z.enum(['none', 'conformance']).optional(),
  demo: z.boolean().optional(),
  catalog: z.custom<Partial<Catalog>>((v) => v !== null && typeof v === 'object').optional(),
  now: z.custom<() => number>((v) => typeof v === 'function').optional(),
  serverInfo: z.object({ name: z.string(), version: z.string() }).optional(),
  instructions: z.string().optional(),
  idempotencyArgument: z.string().min(1).optional(),
});

/**
 * Validates core options and applies defaults.
 *
 * @throws {TypeError} naming the first invalid field and the value it got.
 */
export function resolveCoreOptions(options: TaskServerCoreOptions = {}): ResolvedCoreOptions {
  const parsed = parseOptions(CoreOptionsSchema, options);
  return {
    pollIntervalMs: parsed.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    ttlMs: parsed.ttlMs === undefined ? DEFAULT_TASK_TTL_MS : parsed.ttlMs,
    inlineBudgetMs: parsed.inlineBudgetMs ?? DEFAULT_INLINE_BUDGET_MS,
    inputTimeoutMs: parsed.inputTimeoutMs ?? DEFAULT_INPUT_TIMEOUT_MS,
    timeScale: parsed.timeScale ?? 1,
    fixtures: parsed.fixtures ?? 'none',
    demo: parsed.demo ?? true,
    catalog: parsed.catalog ?? {},
    now: parsed.now ?? Date.now,
    serverInfo: parsed.serverInfo ?? { ...DEFAULT_SERVER_INFO },
    instructions:
      parsed.instructions ??
      'Reference MCP server for the Tasks extension. Slow tools return a task; poll it with tasks/get.',
    idempotencyArgument: parsed.idempotencyArgument,
  };
}

/**
 * Parses `value` with `schema`, turning the first issue into a `TypeError` that names the field and the value.
 *
 * @throws {TypeError}
 */
export function parseOptions<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.join('.') ?? '';
  const got = path === '' ? value : (value as Record<string, unknown>)[String(issue?.path[0])];
  throw new TypeError(
    `Invalid reference-server option "${path}": ${issue?.message ?? 'invalid'} (got ${safeString(got)})`,
  );
}

function safeString(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
