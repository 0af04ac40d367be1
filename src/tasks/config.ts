/**
 * `TaskClient` options, their defaults, and validation at the boundary.
 *
 * @module
 */
import { z } from 'zod';
import { DEFAULT_TASK_METHODS, IDEMPOTENCY_META_KEY } from '../protocol/constants.js';
import type { TaskStore } from '../store/task-store.js';
import type { InputHandlers } from './input-broker.js';
import { DEFAULT_MAX_POLL_RETRIES } from './poll-errors.js';
import {
  DEFAULT_MAX_POLL_INTERVAL_MS,
  DEFAULT_MIN_POLL_INTERVAL_MS,
  DEFAULT_POLL_INTERVAL_MS,
} from './poll-interval.js';
import { DEFAULT_JITTER_RATIO, DEFAULT_MAX_CONCURRENT_POLLS } from './scheduler.js';
import type { Transport } from '../transport/transport.js';
import { VERSION } from '../version.js';
import { durationSchema } from '../internal/duration.js';
import { closestKey } from '../internal/option-keys.js';
import type { Era } from './backend.js';
import { DEFAULT_ABORT_GRACE_MS } from './abort-grace.js';
import { DEFAULT_EXPIRING_MARGIN_RATIO } from './expiry.js';
import { DEFAULT_MAX_CONCURRENT_UPDATES } from './update-sender.js';
import type { ClientCapabilities, ClientInfo } from '../protocol/client-info.js';

/** Default per-request time budget, in milliseconds (one POST and its response). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Default cap on MRTR rounds for one call (4.5). */
export const DEFAULT_MAX_INPUT_ROUNDS = 10;
/** Default number of -32602 answers tolerated right after creation before `TaskNotFoundError('not-yet-visible')`. */
export const DEFAULT_NOT_YET_VISIBLE_RETRIES = 2;
/** Where an idempotency key travels: a `_meta` key, or a tool argument the server reads. */
export type IdempotencyKeyPlacement = { meta: string } | { argument: string };
/** Default placement: `_meta` under our own namespace, ignored by servers that do not know it. */
export const DEFAULT_IDEMPOTENCY_KEY_IN: IdempotencyKeyPlacement = { meta: IDEMPOTENCY_META_KEY };

/**
 * Decides what of a request's params is stored in a task record. Return `undefined` to store nothing.
 * The default keeps only the argument names, never their values.
 */
export type RedactParams = (
  method: string,
  params: Record<string, unknown>,
) => Record<string, unknown> | undefined;

/** Default {@link RedactParams}: `{ argumentKeys: [...] }` — names only, no values. */
export const defaultRedactParams: RedactParams = (_method, params) => {
  const args = params.arguments;
  return args !== null && typeof args === 'object'
    ? { argumentKeys: Object.keys(args as object).sort() }
    : undefined;
};

/** Bounds of creation re-sends. All times in milliseconds. */
export interface CreationRetryOptions {
  /** Re-sends after the first attempt. @default 4 */
  retries?: number;
  /** First backoff delay, ms (doubled each time, randomised by up to ×2). @default 500 */
  minTimeoutMs?: number;
  /** Largest backoff delay, ms. @default 8000 */
  maxTimeoutMs?: number;
  /** Total time for all attempts, ms. @default 30000 */
  maxRetryTimeMs?: number;
  /**
   * Re-sends of a request that never reached the server (the connection was refused, the host was not found or not
   * reachable), whatever the idempotency key: nothing was sent, so nothing can run twice. @default 3
   */
  notSentRetries?: number;
  /**
   * First delay before such a re-send, ms (doubled each time, randomised by up to ×2, at most `maxTimeoutMs`); with
   * the defaults the waits are 0.25–0.5 s, 0.5–1 s and 1–2 s, about 2 to 3.5 s before the call fails. @default 250
   */
  notSentMinTimeoutMs?: number;
}

/** Defaults of {@link CreationRetryOptions}. */
export const DEFAULT_CREATION_RETRY: Required<CreationRetryOptions> = {
  retries: 4,
  minTimeoutMs: 500,
  maxTimeoutMs: 8_000,
  maxRetryTimeMs: 30_000,
  notSentRetries: 3,
  notSentMinTimeoutMs: 250,
};

/** Which eras a client may use: detect (`auto`), or insist on one. */
export type EraMode = 'auto' | Era;

/** Default `clientInfo`. */
export const DEFAULT_CLIENT_INFO: ClientInfo = { name: 'mcp-tasks-client', version: VERSION };

/** Options of `new TaskClient(options)`. */
export interface TaskClientOptions {
  /** How messages reach the server, e.g. `new StreamableHttpTransport(url)`. */
  transport: Transport;
  /** Sent as `io.modelcontextprotocol/clientInfo` on every request (1.2); `false` sends none. @default DEFAULT_CLIENT_INFO */
  clientInfo?: ClientInfo | false;
  /** Handlers that answer input requests automatically; each also declares its capability (1.3). */
  handlers?: InputHandlers;
  /** Extra capabilities declared on every request (e.g. `{ elicitation: { form: {}, url: {} } }`). */
  capabilities?: ClientCapabilities;
  /** Poll interval when the server gives none, ms. @default DEFAULT_POLL_INTERVAL_MS (1000) */
  defaultPollIntervalMs?: number;
  /** Floor for any poll interval, ms; bad server values are raised to it. @default DEFAULT_MIN_POLL_INTERVAL_MS (100) */
  minPollIntervalMs?: number;
  /** Cap for any poll interval, ms. @default DEFAULT_MAX_POLL_INTERVAL_MS (300000) */
  maxPollIntervalMs?: number;
  /** Methods whose result may be a task. @default DEFAULT_TASK_METHODS (`tools/call`, `resources/read`, `prompts/get`) */
  taskMethods?: readonly string[];
  /** Per-request time budget, ms. @default DEFAULT_REQUEST_TIMEOUT_MS (60000) */
  timeoutMs?: number;
  /**
   * The most MRTR rounds one call answers. A round answers one `input_required` result and re-sends the request, so a
   * call is sent at most `maxInputRounds + 1` times: the first request plus one re-send per round (with 10: 11 POSTs
   * over HTTP). The next `input_required` rejects the call with `TooManyRoundsError` without asking its questions.
   * A re-send of a creation request whose response was lost (see `creationRetry`) repeats the same round and does
   * not count. (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr)
   * @default DEFAULT_MAX_INPUT_ROUNDS (10)
   */
  maxInputRounds?: number;
  /** Consecutive transient poll failures tolerated per task. @default DEFAULT_MAX_POLL_RETRIES (5) */
  maxPollRetries?: number;
  /** -32602 answers tolerated right after creation. @default DEFAULT_NOT_YET_VISIBLE_RETRIES (2) */
  notYetVisibleRetries?: number;
  /** Cap on concurrent `tasks/get` per server. @default DEFAULT_MAX_CONCURRENT_POLLS (16) */
  maxConcurrentPolls?: number;
  /** Random jitter above each poll floor, as a fraction of the interval. @default DEFAULT_JITTER_RATIO (0.05) */
  jitterRatio?: number;
  /** Cap on concurrent `tasks/update` per server (answers ready together share one). @default DEFAULT_MAX_CONCURRENT_UPDATES (4) */
  maxConcurrentUpdates?: number;
  /**
   * After the caller aborts a call whose creation request already left, how long its response is still read (a
   * task it started is then cancelled or recorded), ms; with no response by then the call fails with
   * `OutcomeUnknownError`. @default DEFAULT_ABORT_GRACE_MS (5000)
   */
  abortGraceMs?: number;
  /**
   * A task still `input_required` with less than this fraction of its TTL left emits one `expiring` event (on the
   * handle and the client), so a host can escalate before the server forgets the task. @default DEFAULT_EXPIRING_MARGIN_RATIO (0.2)
   */
  expiringMarginRatio?: number;
  /** When false, nothing polls by itself: call `client.tick()`. @default true */
  autoPoll?: boolean;
  /**
   * Called as each scheduled poll starts, with how late it starts after its due time (ms, ≥ 0): the scheduler's lag
   * when more polls are due than `maxConcurrentPolls` serves. For metrics; exceptions are ignored.
   */
  onPollLag?: (lagMs: number, serverKey: string) => void;
  /**
   * Push merged with polling: `subscriptions/listen` streams (at most `DEFAULT_MAX_PUSH_STREAMS`, 4) ask the server
   * for `notifications/tasks` about the followed tasks (applied exactly like `tasks/get` results). Tasks the server
   * acknowledges keep a safety poll at `DEFAULT_SAFETY_POLL_MULTIPLE` (10) × their interval; the others poll at their floor. A server without
   * `subscriptions/listen` costs one refused request, then plain polling.
   * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-status-notifications)
   * @default false
   */
  push?: boolean;
  /** Clock, epoch ms. @default Date.now */
  now?: () => number;
  /** Where task records are kept; without one, nothing is persisted and `resume` has nothing to find. */
  store?: TaskStore;
  /** This worker's name in a fleet's leases (with a `RedisTaskStore`). @default the store's (`<hostname>:<pid>`) */
  workerId?: string;
  /** What of the params a record keeps. @default defaultRedactParams (argument names only) */
  redactParams?: RedactParams;
  /** Where `callTool(…, { idempotencyKey })` puts the key. @default DEFAULT_IDEMPOTENCY_KEY_IN */
  idempotencyKeyIn?: IdempotencyKeyPlacement;
  /** Bounds for re-sending a creation request that got no response. @default DEFAULT_CREATION_RETRY */
  creationRetry?: CreationRetryOptions;
  /**
   * Which protocol era to speak: `auto` detects it on first contact (per client); `modern` is 2026-07-28
   * only; `legacy` is 2025-11-25 through the official SDK 1.x (optional peer dependency). @default 'auto'
   */
  era?: EraMode;
}

// Every duration: a number, not negative, at most what a timer holds (src/internal/duration.ts; docs/guide.md).
const positiveMs = durationSchema();
const nonNegativeMs = durationSchema({ min: 'zero' });
const isFunction = (v: unknown): boolean => typeof v === 'function';
const fn = <T>(what: string) => z.custom<T>(isFunction, { message: `${what} must be a function` });
// Strict: a misspelt option is an error, not silently ignored.
const OptionsSchema = z.strictObject({
  transport: z.custom<Transport>(
    (v) => v !== null && typeof v === 'object' && typeof (v as Transport).request === 'function',
    {
      message: 'transport must implement request()',
    },
  ),
  defaultPollIntervalMs: positiveMs.optional(),
  minPollIntervalMs: nonNegativeMs.optional(),
  maxPollIntervalMs: positiveMs.optional(),
  taskMethods: z.array(z.string()).optional(),
  timeoutMs: positiveMs.optional(),
  maxInputRounds: z.number().int().positive().optional(),
  maxPollRetries: z.number().int().nonnegative().optional(),
  notYetVisibleRetries: z.number().int().nonnegative().optional(),
  maxConcurrentPolls: z.number().int().positive().optional(),
  jitterRatio: z.number().min(0).max(1).optional(),
  maxConcurrentUpdates: z.number().int().positive().optional(),
  abortGraceMs: nonNegativeMs.optional(),
  expiringMarginRatio: z.number().min(0).max(1).optional(),
  era: z.enum(['auto', 'modern', 'legacy']).optional(),
  idempotencyKeyIn: z
    .union([z.object({ meta: z.string().min(1) }), z.object({ argument: z.string().min(1) })])
    .optional(),
  clientInfo: z
    .union([z.literal(false), z.looseObject({ name: z.string(), version: z.string() })])
    .optional(),
  handlers: z
    .strictObject({
      elicitation: fn('handlers.elicitation').optional(),
      sampling: fn('handlers.sampling').optional(),
      roots: fn('handlers.roots').optional(),
    })
    .optional(),
  capabilities: z.record(z.string(), z.unknown()).optional(),
  autoPoll: z.boolean().optional(),
  push: z.boolean().optional(),
  onPollLag: fn<(lagMs: number, serverKey: string) => void>('onPollLag').optional(),
  now: fn<() => number>('now').optional(),
  workerId: z.string().min(1).max(200).optional(),
  store: z
    .custom<unknown>(
      (v) =>
        v !== null &&
        typeof v === 'object' &&
        ['put', 'get', 'list', 'delete', 'prune'].every((m) => isFunction((v as Record<string, unknown>)[m])),
      {
        message: 'store must implement put, get, list, delete and prune',
      },
    )
    .optional(),
  redactParams: fn('redactParams').optional(),
  creationRetry: z
    .strictObject({
      retries: z.number().int().nonnegative().optional(),
      minTimeoutMs: nonNegativeMs.optional(),
      maxTimeoutMs: nonNegativeMs.optional(),
      maxRetryTimeMs: nonNegativeMs.optional(),
      notSentRetries: z.number().int().nonnegative().optional(),
      notSentMinTimeoutMs: nonNegativeMs.optional(),
    })
    .optional(),
});

/** A value as an error message shows it: strings quoted, objects by their shape. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (value !== null && typeof value === 'object')
    return Array.isArray(value) ? 'an array' : `an object with keys [${Object.keys(value).join(', ')}]`;
  return String(value);
}

/** `TaskClient: unknown option "<path.key>"; did you mean "<path.closest>"?`, the keys read from the schema at `path`. */
function unknownKeyError(path: readonly PropertyKey[], key: string): TypeError {
  let schema: unknown = OptionsSchema;
  for (const step of path) {
    schema = (schema as { shape?: Record<string, unknown> } | undefined)?.shape?.[String(step)];
    while (schema !== undefined && typeof (schema as { unwrap?: unknown }).unwrap === 'function')
      schema = (schema as { unwrap(): unknown }).unwrap();
  }
  const prefix = path.map(String).join('.') + (path.length > 0 ? '.' : '');
  const near = closestKey(key, Object.keys((schema as { shape?: object } | undefined)?.shape ?? {}));
  return new TypeError(
    `TaskClient: unknown option "${prefix}${key}"${near === undefined ? '' : `; did you mean "${prefix}${near}"?`}`,
  );
}

/** Options after defaults. */
export type ResolvedOptions = Required<
  Omit<
    TaskClientOptions,
    'clientInfo' | 'handlers' | 'capabilities' | 'store' | 'creationRetry' | 'onPollLag' | 'workerId'
  >
> &
  Pick<TaskClientOptions, 'handlers' | 'capabilities' | 'store' | 'onPollLag' | 'workerId'> & {
    clientInfo: ClientInfo | undefined;
    creationRetry: Required<CreationRetryOptions>;
  };

/**
 * Validates and fills in defaults once.
 *
 * @throws TypeError naming the option and the value it got.
 */
export function resolveOptions(options: TaskClientOptions): ResolvedOptions {
  if (options === null || typeof options !== 'object')
    throw new TypeError('TaskClient: options are required: new TaskClient({ transport })');
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue?.code === 'unrecognized_keys') throw unknownKeyError(issue.path, issue.keys[0] ?? '');
    const path = issue?.path.join('.') ?? '';
    let got: unknown = options;
    for (const key of issue?.path ?? [])
      got = (got as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey];
    throw new TypeError(`TaskClient: option "${path}" is invalid (${issue?.message}); got ${describe(got)}`);
  }
  const min = options.minPollIntervalMs ?? DEFAULT_MIN_POLL_INTERVAL_MS;
  const max = options.maxPollIntervalMs ?? DEFAULT_MAX_POLL_INTERVAL_MS;
  if (min > max)
    throw new TypeError(`TaskClient: minPollIntervalMs (${min}) exceeds maxPollIntervalMs (${max})`);
  return {
    transport: options.transport,
    clientInfo: options.clientInfo === false ? undefined : (options.clientInfo ?? DEFAULT_CLIENT_INFO),
    handlers: options.handlers,
    capabilities: options.capabilities,
    defaultPollIntervalMs: options.defaultPollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    minPollIntervalMs: min,
    maxPollIntervalMs: max,
    taskMethods: options.taskMethods ?? DEFAULT_TASK_METHODS,
    timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    maxInputRounds: options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
    maxPollRetries: options.maxPollRetries ?? DEFAULT_MAX_POLL_RETRIES,
    notYetVisibleRetries: options.notYetVisibleRetries ?? DEFAULT_NOT_YET_VISIBLE_RETRIES,
    maxConcurrentPolls: options.maxConcurrentPolls ?? DEFAULT_MAX_CONCURRENT_POLLS,
    jitterRatio: options.jitterRatio ?? DEFAULT_JITTER_RATIO,
    maxConcurrentUpdates: options.maxConcurrentUpdates ?? DEFAULT_MAX_CONCURRENT_UPDATES,
    abortGraceMs: options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS,
    expiringMarginRatio: options.expiringMarginRatio ?? DEFAULT_EXPIRING_MARGIN_RATIO,
    autoPoll: options.autoPoll ?? true,
    onPollLag: options.onPollLag,
    push: options.push ?? false,
    now: options.now ?? Date.now,
    store: options.store,
    workerId: options.workerId,
    redactParams: options.redactParams ?? defaultRedactParams,
    idempotencyKeyIn: options.idempotencyKeyIn ?? DEFAULT_IDEMPOTENCY_KEY_IN,
    creationRetry: { ...DEFAULT_CREATION_RETRY, ...options.creationRetry },
    era: options.era ?? 'auto',
  };
}
