/**
 * The options of `TaskClient` and of its calls, as one zod schema: it declares every option once, with its TSDoc and
 * default, and is the source of the option types (`z.input`), of the defaults ({@link DEFAULTS}) and of the
 * validation at both boundaries (`new TaskClient(options)` and each call). A client's options are resolved once into
 * one frozen {@link EngineConfig} that the engine and both era backends read by reference.
 *
 * @module
 */
import { z } from 'zod';
import { durationProblem, type DurationRule } from '../internal/duration.js';
import { closestKey } from '../internal/option-keys.js';
import type { TraceContextMode } from '../internal/telemetry.js';
import type { ClientCapabilities, ClientInfo } from '../protocol/client-info.js';
import { DEFAULT_TASK_METHODS, IDEMPOTENCY_META_KEY } from '../protocol/constants.js';
import type { Progress } from '../protocol/results.js';
import type { TaskStore } from '../store/task-store.js';
import type { Transport } from '../transport/transport.js';
import { VERSION } from '../version.js';
import { DEFAULT_ABORT_GRACE_MS } from './abort-grace.js';
import { DEFAULT_EXPIRING_MARGIN_RATIO } from './decisions.js';
import type { InputHandlers } from './input-broker.js';
import type { StandardSchemaV1 } from './typed-results.js';
import { DEFAULT_MAX_POLL_RETRIES } from './decisions.js';
import {
  DEFAULT_MAX_POLL_INTERVAL_MS,
  DEFAULT_MIN_POLL_INTERVAL_MS,
  DEFAULT_POLL_INTERVAL_MS,
} from './decisions.js';
import { DEFAULT_JITTER_RATIO, DEFAULT_MAX_CONCURRENT_POLLS } from './scheduler.js';
import { DEFAULT_MAX_CONCURRENT_UPDATES } from './update-sender.js';

/** The protocol era of a server: `modern` = 2026-07-28 (stateless); `legacy` = 2025-11-25 (sessions). */
export type Era = 'modern' | 'legacy';

/** Where an idempotency key travels: a `_meta` key, or a tool argument the server reads. */
export type IdempotencyKeyPlacement = { meta: string } | { argument: string };

/**
 * Decides what of a request's params is stored in a task record. Return `undefined` to store nothing.
 * The default keeps only the argument names, never their values.
 */
export type RedactParams = (
  method: string,
  params: Record<string, unknown>,
) => Record<string, unknown> | undefined;

/** Which eras a client may use: detect (`auto`), or insist on one. */
export type EraMode = 'auto' | Era;

/**
 * How followed tasks are observed: `auto` polls on timers; `push` adds `notifications/tasks` to those polls; `manual`
 * polls only when the host calls `client.tick()`.
 */
export type PollingMode = 'auto' | 'push' | 'manual';

/** The default {@link RedactParams}: `{ argumentKeys: [...] }`, the argument names without their values. */
function argumentNamesOnly(_method: string, params: Record<string, unknown>) {
  const args = params.arguments;
  return args !== null && typeof args === 'object'
    ? { argumentKeys: Object.keys(args as object).sort() }
    : undefined;
}

/**
 * The default of every option of `new TaskClient(options)`, the one place each default is written (the schema
 * below fills them in). Times in milliseconds.
 */
export const DEFAULTS = Object.freeze({
  era: 'auto' as EraMode,
  clientInfo: Object.freeze({ name: 'mcp-tasks-client', version: VERSION }) as ClientInfo,
  timeoutMs: 60_000,
  polling: Object.freeze({
    intervalMs: DEFAULT_POLL_INTERVAL_MS,
    minIntervalMs: DEFAULT_MIN_POLL_INTERVAL_MS,
    maxIntervalMs: DEFAULT_MAX_POLL_INTERVAL_MS,
    mode: 'auto' as PollingMode,
  }),
  creationRetry: Object.freeze({ retries: 4, minTimeoutMs: 500 }),
  limits: Object.freeze({
    maxInputRounds: 10,
    maxConcurrentPolls: DEFAULT_MAX_CONCURRENT_POLLS,
    abortGraceMs: DEFAULT_ABORT_GRACE_MS,
  }),
  idempotencyKeyIn: Object.freeze({ meta: IDEMPOTENCY_META_KEY }) as IdempotencyKeyPlacement,
  redactParams: argumentNamesOnly as RedactParams,
  traceContext: true as TraceContextMode,
});

// Every duration follows one rule (src/internal/duration.ts; docs/guide.md § Durations).
const duration = (rule: DurationRule = {}) =>
  z.custom<number>((value) => durationProblem(value, rule) === undefined, {
    error: (issue) => durationProblem(issue.input, rule) ?? 'is not a valid duration',
  });
const positiveMs = () => duration();
const nonNegativeMs = () => duration({ min: 'zero' });
const count = (min: 0 | 1) =>
  z.custom<number>((v) => Number.isInteger(v) && (v as number) >= min, {
    message: `must be a whole number, ${min} or more`,
  });
const fn = <T>() => z.custom<T>((v) => typeof v === 'function', { message: 'must be a function' });
/** A value the option takes as it is (its type is the compiler's to check, as before). */
const any = <T>() => z.custom<T>(() => true);
const plainObject = <T>() =>
  z.custom<T>((v) => v !== null && typeof v === 'object' && !Array.isArray(v), {
    message: 'must be an object',
  });
const hasMethods = <T>(methods: readonly string[]) =>
  z.custom<T>(
    (v) =>
      v !== null &&
      typeof v === 'object' &&
      methods.every((m) => typeof (v as Record<string, unknown>)[m] === 'function'),
    { message: `must implement ${methods.join(', ')}` },
  );

type Handler<K extends keyof InputHandlers> = NonNullable<InputHandlers[K]>;

/**
 * The options of `new TaskClient(options)`. Strict: a misspelt option is a `TypeError` naming it and the closest
 * known one, never silently ignored.
 */
export const TaskClientOptionsSchema = z.strictObject({
  /** How messages reach the server, e.g. `new StreamableHttpTransport(url)`. Required. */
  transport: hasMethods<Transport>(['request']),
  /**
   * Where task records are kept (`MemoryTaskStore`, `FileTaskStore`, `RedisTaskStore`); without one nothing is
   * persisted and `resume` has nothing to find. A fleet worker's name in leases is the store's `workerId`.
   * @default undefined (no records)
   */
  store: hasMethods<TaskStore>(['put', 'get', 'list', 'delete', 'prune']).optional(),
  /**
   * Which protocol era to speak: `auto` detects it on first contact (per client); `modern` is 2026-07-28 only;
   * `legacy` is 2025-11-25 through the official SDK 1.x (optional peer dependency).
   * (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning)
   * @default 'auto'
   */
  era: z
    .enum(['auto', 'modern', 'legacy'], { message: "must be 'auto', 'modern' or 'legacy'" })
    .default(DEFAULTS.era),
  /**
   * Sent as `io.modelcontextprotocol/clientInfo` in every request's `_meta`; `false` sends none.
   * @default DEFAULTS.clientInfo (`{ name: 'mcp-tasks-client', version }`)
   */
  clientInfo: z
    .union([z.literal(false), z.looseObject({ name: z.string(), version: z.string() })], {
      message: 'must be false or { name, version }',
    })
    .default(DEFAULTS.clientInfo),
  /**
   * Extra capabilities declared on every request (e.g. `{ elicitation: { form: {}, url: {} } }`); each handler in
   * `handlers` declares its own. @default undefined
   */
  capabilities: plainObject<ClientCapabilities>().optional(),
  /**
   * Handlers that answer input requests (`elicitation/create`, `sampling/createMessage`, `roots/list`)
   * automatically; each also declares its capability. Without one, questions go to `inputRequired` listeners.
   * @default undefined
   */
  handlers: z
    .strictObject({
      /** Answers `elicitation/create` (form mode when `params.mode` is absent). */
      elicitation: fn<Handler<'elicitation'>>().optional(),
      /** Answers `sampling/createMessage`. */
      sampling: fn<Handler<'sampling'>>().optional(),
      /** Answers `roots/list`. */
      roots: fn<Handler<'roots'>>().optional(),
    })
    .optional(),
  /** Time budget of one request (one POST and its response), ms. Per call: `timeoutMs`. @default 60000 */
  timeoutMs: positiveMs().default(DEFAULTS.timeoutMs),
  /** How tasks are polled. (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling) */
  polling: z
    .strictObject({
      /** Poll interval when the server gives no `pollIntervalMs`, ms. @default 1000 */
      intervalMs: positiveMs().default(DEFAULTS.polling.intervalMs),
      /** Floor for any poll interval, ms; lower server values are raised to it. @default 100 */
      minIntervalMs: nonNegativeMs().default(DEFAULTS.polling.minIntervalMs),
      /** Cap for any poll interval, ms. @default 300000 */
      maxIntervalMs: positiveMs().default(DEFAULTS.polling.maxIntervalMs),
      /**
       * `auto`: tasks are polled on timers. `push`: as `auto`, merged with push: `subscriptions/listen` streams ask the
       * server for `notifications/tasks` about the followed tasks (applied exactly like `tasks/get` results); tasks the
       * server acknowledges keep a slow safety poll, and a server without `subscriptions/listen` costs one refused
       * request, then plain polling. `manual`: nothing polls by itself; call `client.tick()` (serverless hosts).
       * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-status-notifications)
       * @default 'auto'
       */
      mode: z
        .enum(['auto', 'push', 'manual'], { message: "must be 'auto', 'push' or 'manual'" })
        .default(DEFAULTS.polling.mode),
    })
    .prefault({}),
  /**
   * Re-sending a creation request that got no response, only when that cannot start the same work twice (an
   * `idempotencyKey`, or a tool annotated idempotent or read-only). A request that provably never reached the
   * server is re-sent up to 3 times whatever the key, first after `minTimeoutMs / 2`.
   */
  creationRetry: z
    .strictObject({
      /** Re-sends after the first attempt (all within 30 s). @default 4 */
      retries: count(0).default(DEFAULTS.creationRetry.retries),
      /** First backoff delay, ms; doubled each time, randomised by up to ×2, at most 16 × this. @default 500 */
      minTimeoutMs: nonNegativeMs().default(DEFAULTS.creationRetry.minTimeoutMs),
    })
    .prefault({}),
  /** Bounds on the work and the waits of one client. */
  limits: z
    .strictObject({
      /**
       * The most MRTR rounds one call answers: a call is sent at most `maxInputRounds + 1` times; the next
       * `input_required` rejects it with `TooManyRoundsError`. A re-send of a lost creation repeats its round.
       * (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr)
       * @default 10
       */
      maxInputRounds: count(1).default(DEFAULTS.limits.maxInputRounds),
      /** Cap on concurrent `tasks/get` per server. @default 16 */
      maxConcurrentPolls: count(1).default(DEFAULTS.limits.maxConcurrentPolls),
      /**
       * After the caller aborts a call whose creation request already left, how long its response is still read (a
       * task it started is then cancelled or recorded), and how long an aborted call waits for its task's
       * `tasks/cancel` before it rejects, ms. @default 5000
       */
      abortGraceMs: nonNegativeMs().default(DEFAULTS.limits.abortGraceMs),
    })
    .prefault({}),
  /** Where `callTool(…, { idempotencyKey })` puts the key. @default `{ meta: 'io.github.mcp-tasks-client/idempotencyKey' }` */
  idempotencyKeyIn: z
    .union([z.strictObject({ meta: z.string().min(1) }), z.strictObject({ argument: z.string().min(1) })], {
      message: 'must be { meta: string } or { argument: string }',
    })
    .default(DEFAULTS.idempotencyKeyIn),
  /** What of a request's params a task record keeps. @default the argument names, without their values */
  redactParams: fn<RedactParams>().default(() => DEFAULTS.redactParams), // a getter: zod calls a function default
  /**
   * The W3C trace context sent to this client's server in each request's `params._meta`, when a tracer provider
   * records the request's span (`@opentelemetry/api`): `true` sends `traceparent` and `tracestate`; `'with-baggage'`
   * also sends the active context's `baggage` (it may carry anything: user ids, tenant names); `false` sends nothing,
   * for a server run by a third party (the spans are still recorded here). One client talks to one server, so this is
   * set per server. Injected through the global propagator (`propagation.setGlobalPropagator`).
   * (https://www.w3.org/TR/trace-context/; https://www.w3.org/TR/baggage/)
   * @default true
   */
  traceContext: z
    .union([z.boolean(), z.literal('with-baggage')], { message: "must be true, false or 'with-baggage'" })
    .default(DEFAULTS.traceContext),
});

/** Options of `new TaskClient(options)`: each one, with its default, is described on `TaskClientOptionsSchema`. */
export interface TaskClientOptions extends z.input<typeof TaskClientOptionsSchema> {}
/** Bounds of creation re-sends (the `creationRetry` option). */
export type CreationRetryOptions = NonNullable<TaskClientOptions['creationRetry']>;

/**
 * Settings the engine uses that no caller sets. `maxTimeoutMs` and `notSentMinTimeoutMs` of the creation retry follow
 * `creationRetry.minTimeoutMs` (× 16 and ÷ 2).
 */
const FIXED = {
  /** The methods whose result may be a task, where the Tasks extension is declared (ext-tasks § Capability Negotiation). */
  taskMethods: DEFAULT_TASK_METHODS as readonly string[],
  /** A task still `input_required` with less than this fraction of its TTL left emits `expiring` once. */
  expiringMarginRatio: DEFAULT_EXPIRING_MARGIN_RATIO,
  /** Consecutive transient poll failures tolerated per task. */
  maxPollRetries: DEFAULT_MAX_POLL_RETRIES,
  /** -32602 answers tolerated right after creation before `TaskNotFoundError('not-yet-visible')`. */
  notYetVisibleRetries: 2,
  /** Random jitter above each poll floor, as a fraction of the interval. */
  jitterRatio: DEFAULT_JITTER_RATIO,
  /** Cap on concurrent `tasks/update` per server (answers ready together share one). */
  maxConcurrentUpdates: DEFAULT_MAX_CONCURRENT_UPDATES,
  /** Total time of all creation attempts, ms. */
  creationRetryTimeMs: 30_000,
  /** Re-sends of a creation request that never reached the server. */
  notSentRetries: 3,
} as const;

type Parsed = z.output<typeof TaskClientOptionsSchema>;

/** A client's resolved options: frozen, read by reference by the engine and both era backends. */
export type EngineConfig = Readonly<
  Omit<Parsed, 'clientInfo' | 'creationRetry' | 'polling' | 'limits'> & {
    /** `undefined` when the caller passed `false`. */
    clientInfo: ClientInfo | undefined;
    polling: Readonly<
      Parsed['polling'] & { maxRetries: number; notYetVisibleRetries: number; jitterRatio: number }
    >;
    creationRetry: Readonly<
      Required<CreationRetryOptions> & {
        maxTimeoutMs: number;
        maxRetryTimeMs: number;
        notSentRetries: number;
        notSentMinTimeoutMs: number;
      }
    >;
    limits: Readonly<Parsed['limits'] & { maxConcurrentUpdates: number }>;
    taskMethods: readonly string[];
    expiringMarginRatio: number;
    /** The clock, epoch ms (the global one, so fake timers apply). */
    now: () => number;
  }
>;

/** A value as an error message shows it: strings quoted, objects by their shape. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'function') return 'a function';
  if (value !== null && typeof value === 'object')
    return Array.isArray(value) ? 'an array' : `an object with keys [${Object.keys(value).join(', ')}]`;
  return String(value);
}

/**
 * The keys a (possibly wrapped) object schema declares at `path`, for "did you mean"; at the top, the keys of the
 * option groups too, by their own name (`abortGraceMs` → `limits.abortGraceMs`).
 */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): Map<string, string> {
  let at: unknown = schema;
  const unwrap = () => {
    for (;;) {
      const def = (at as { def?: { innerType?: unknown } } | undefined)?.def;
      if (def?.innerType === undefined) return;
      at = def.innerType;
    }
  };
  unwrap();
  for (const step of path) {
    at = (at as { shape?: Record<string, unknown> } | undefined)?.shape?.[String(step)];
    unwrap();
  }
  const shape = (at as { shape?: Record<string, z.ZodType> } | undefined)?.shape ?? {};
  const keys = new Map(Object.keys(shape).map((k) => [k, k]));
  if (path.length === 0)
    for (const [group, inner] of Object.entries(shape))
      for (const [leaf] of keysAt(inner, [])) if (!keys.has(leaf)) keys.set(leaf, `${group}.${leaf}`);
  return keys;
}

/**
 * Checks `options` against `schema`: the `TypeError` naming the option and the value
 * (`<where>: option "polling.intervalMs" must be greater than 0; got -1`, or `<where>: unknown option "timeoutMS";
 * did you mean "timeoutMs"?`), or the parsed options.
 */
function check<S extends z.ZodType>(
  where: string,
  schema: S,
  options: unknown,
): { error: TypeError } | { value: z.output<S> } {
  const parsed = schema.safeParse(options);
  if (parsed.success) return { value: parsed.data };
  const issue = parsed.error.issues[0]!;
  const prefix = issue.path.map(String).join('.') + (issue.path.length > 0 ? '.' : '');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const known = keysAt(schema, issue.path);
    const closest = closestKey(key, [...known.keys()]);
    const near = closest === undefined ? undefined : known.get(closest);
    return {
      error: new TypeError(
        `${where}: unknown option "${prefix}${key}"${near === undefined ? '' : `; did you mean "${prefix}${near}"?`}`,
      ),
    };
  }
  let got: unknown = options;
  for (const key of issue.path) got = (got as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey];
  const message = issue.code === 'invalid_type' && got === undefined ? 'is required' : issue.message;
  return { error: new TypeError(`${where}: option "${issue.path.join('.')}" ${message}; got ${shown(got)}`) };
}

/**
 * Validates the options of `new TaskClient(options)` and resolves them, once, into the frozen {@link EngineConfig}.
 *
 * @throws TypeError naming the option and the value it got (a misspelt one with the closest known key).
 */
export function resolveConfig(options: TaskClientOptions): EngineConfig {
  if (options === null || typeof options !== 'object')
    throw new TypeError('TaskClient: options are required: new TaskClient({ transport })');
  const result = check('TaskClient', TaskClientOptionsSchema, options);
  if ('error' in result) throw result.error;
  const o = result.value;
  const { minIntervalMs, maxIntervalMs } = o.polling;
  if (minIntervalMs > maxIntervalMs)
    throw new TypeError(
      `TaskClient: option "polling.minIntervalMs" (${minIntervalMs}) exceeds "polling.maxIntervalMs" (${maxIntervalMs})`,
    );
  const min = o.creationRetry.minTimeoutMs;
  return Object.freeze({
    ...o,
    clientInfo: o.clientInfo === false ? undefined : o.clientInfo,
    polling: Object.freeze({
      ...o.polling,
      maxRetries: FIXED.maxPollRetries,
      notYetVisibleRetries: FIXED.notYetVisibleRetries,
      jitterRatio: FIXED.jitterRatio,
    }),
    creationRetry: Object.freeze({
      ...o.creationRetry,
      maxTimeoutMs: 16 * min,
      maxRetryTimeMs: FIXED.creationRetryTimeMs,
      notSentRetries: FIXED.notSentRetries,
      notSentMinTimeoutMs: min / 2,
    }),
    limits: Object.freeze({ ...o.limits, maxConcurrentUpdates: FIXED.maxConcurrentUpdates }),
    taskMethods: FIXED.taskMethods,
    expiringMarginRatio: FIXED.expiringMarginRatio,
    now: () => Date.now(),
  });
}

// Per-call options: the same duration rule and error shape as the client's.

/** Options of every request (`discover`, `listTools`, `request`) and the base of the call options. */
export const RequestOptionsSchema = z.strictObject({
  /** Aborts the request (HTTP: the POST is aborted); the call rejects with `signal.reason`. */
  signal: any<AbortSignal>().optional(),
  /** This request's time budget, ms. @default the client's `timeoutMs` */
  timeoutMs: positiveMs().optional(),
  /** Opts into progress: a unique `progressToken` is sent and each `notifications/progress` is passed here. */
  onProgress: any<(progress: Progress) => void>().optional(),
  /** Extra transport headers (HTTP). @default undefined */
  headers: any<Record<string, string>>().optional(),
  /** Extra `_meta` entries; the reserved `io.modelcontextprotocol/*` keys cannot be overridden. @default undefined */
  meta: any<Record<string, unknown>>().optional(),
});

/** Options of `callTool`, `readResource`, `getPrompt` and `startTool` (`onTask` typed by the call). */
export const CallOptionsSchema = RequestOptionsSchema.extend({
  /**
   * Budget for the whole call, ms: every round, the task's wait and its polls. On expiry the call fails with
   * `RequestTimeoutError` (and the task is cancelled unless `onAbort: 'detach'`). `Infinity` or anything above
   * 2^31 − 1 ms means no total budget. @default undefined (none)
   */
  maxTotalTimeoutMs: duration({ unlimited: true }).optional(),
  /** Called once if the call became a task; typed and described on `CallOptions` (its handle follows the call's type). */
  onTask: fn<(handle: never) => void>().optional(),
  /** A poll interval in ms that may raise the server's `pollIntervalMs` (never lower it). @default undefined */
  pollIntervalMs: positiveMs().optional(),
  /**
   * What an aborted `signal` (or `maxTotalTimeoutMs`) does to a task the call created, also when the abort came
   * while the creation response was on its way, and to a task named by a malformed creation result: `'cancel'`
   * delivers one `tasks/cancel`; `'detach'` leaves it running and recorded. With `'cancel'` the call rejects with the
   * abort reason, carrying the `taskId`, after at most `limits.abortGraceMs` (a `tasks/cancel` not delivered by then
   * goes on in the background; its final failure is a `warning` event); with `'detach'` it rejects with
   * `TaskDetachedError` (`taskId`, `cause`: the abort reason, never written to, so calls sharing one signal each name
   * their own task; a `maxTotalTimeoutMs` expiry stays a `RequestTimeoutError` carrying `taskId`). After transient poll failures the task is never cancelled
   * (it stays recorded, resumable); after an invalid `tasks/get` answer this policy applies. A server-reported end
   * is never cancelled. @default 'cancel'
   */
  onAbort: z.enum(['cancel', 'detach'], { message: "must be 'cancel' or 'detach'" }).optional(),
  /**
   * A caller-chosen key that makes re-sending this call safe: a creation request that got no response is re-sent
   * (new JSON-RPC id, same key) and a server honouring the key returns the same task. Sent where `idempotencyKeyIn`
   * says. Without it, a lost creation is re-sent only for tools annotated idempotent or read-only; otherwise the call
   * fails with `OutcomeUnknownError`. @default undefined
   */
  idempotencyKey: any<string>().optional(),
  /**
   * Whether this call may become a task. `'allow'` declares the Tasks extension (on `tools/call`, `resources/read`,
   * `prompts/get`), so the server may answer with a task; `'forbid'` leaves it out of this call's capabilities: the
   * server answers inline, or refuses a tool that only runs as a task with `McpError` code -32021
   * (`MissingRequiredClientCapability`). The server decides whether a call it may run as a task becomes one; a
   * client cannot demand a task. On 2025-11-25 servers `'forbid'` sends the call without its `task` field.
   * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#capability-negotiation)
   * @default 'allow'
   */
  task: z.enum(['allow', 'forbid'], { message: "must be 'allow' or 'forbid'" }).optional(),
  /**
   * `tools/call`: a Standard Schema validator (zod, valibot, arktype...) for the result's `structuredContent`; the
   * call resolves with what it returns, typed by it (`callTool`, `startTool`, `handle.result()`), or rejects with
   * `OutputValidationError` (a tool error, `isError: true`, is not checked). Must validate synchronously.
   * (https://standardschema.dev) @default undefined
   */
  schema: hasMethods<StandardSchemaV1>([]).optional(),
  /**
   * `tools/call`: check `structuredContent` against the `outputSchema` the tool declared in the last `listTools`
   * (a tool not listed yet is not checked); a mismatch rejects with `OutputValidationError`. `false` turns it off.
   * (https://modelcontextprotocol.io/specification/2026-07-28/server/tools#output-schema) @default true
   */
  validateOutput: z.boolean({ message: 'must be true or false' }).optional(),
});

/** Options of `client.task(taskId, options)`: what is known of a task created elsewhere. */
export const AttachOptionsSchema = z.strictObject({
  /** Aborts the first `tasks/get`. */
  signal: any<AbortSignal>().optional(),
  /** The method that created the task (decides how its result is read). @default 'tools/call' */
  method: any<string>().optional(),
  /** Local start of the TTL (epoch ms), when known from a record. @default the time of the first answer */
  localCreatedAt: any<number>().optional(),
  /** The task's TTL as the server gave it at creation, ms (`null`: unlimited). @default the server's `ttlMs` */
  ttlMs: any<number | null>().optional(),
  /** Input request keys already answered (not asked again). @default none */
  answeredKeys: any<Iterable<string>>().optional(),
  /** A poll interval in ms that may raise the server's `pollIntervalMs` (never lower it). @default undefined */
  pollIntervalMs: positiveMs().optional(),
});

/** Options of `discover`, `listTools` and `request`, described on `RequestOptionsSchema`. */
export interface RequestOptions extends z.input<typeof RequestOptionsSchema> {}
/** Options of `client.task(taskId, options)`, described on `AttachOptionsSchema`. */
export interface AttachOptions extends z.input<typeof AttachOptionsSchema> {}

/**
 * The `TypeError` for per-call options a call must refuse before sending anything (an unknown key with the closest
 * known one, or a value breaking its option's rule), naming the method and the option; `undefined` when all are fine.
 */
export function callOptionsError(where: string, schema: z.ZodType, options: unknown): TypeError | undefined {
  if (options === undefined || isEmptyObject(options)) return undefined; // every call option is optional
  const result = check(where, schema, options);
  return 'error' in result ? result.error : undefined;
}

/** True for `{}` (a plain object without enumerable keys: what zod would read), the default of every call's options. */
function isEmptyObject(options: unknown): boolean {
  if (typeof options !== 'object' || options === null || Object.getPrototypeOf(options) !== Object.prototype)
    return false;
  for (const _ in options) return false;
  return true;
}
