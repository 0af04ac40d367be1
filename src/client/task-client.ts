/**
 * `TaskClient`: the request pipeline. Adds `_meta` to every request, sends it, dispatches on `resultType`
 * (`complete`, MRTR `input_required`, `task`), and hands tasks to the tasks layer.
 * (CLIENT-REQUIREMENTS §1, §4, §5, §6; DESIGN.md § The path of one call)
 *
 * @module
 */
import { EventEmitter } from 'eventemitter3';
import { ClientClosedError, InvalidResponseError, McpError, redactTaskId, RequestTimeoutError, TaskExpiredError, TaskNotFoundError, TooManyRoundsError } from '../errors.js';
import { linkAbort } from '../internal/abort.js';
import { ErrorCode, LEGACY_PROTOCOL_VERSION, METHODS, MRTR_METHODS } from '../protocol/constants.js';
import type { InputResponses } from '../protocol/input.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import {
  DiscoverResultSchema,
  InputRequiredResultSchema,
  ListToolsResultSchema,
  ToolSchema,
  type CallToolResult,
  type DiscoverResult,
  type GetPromptResult,
  type ReadResourceResult,
  type Tool,
} from '../protocol/results.js';
import { isTerminalStatus, parseCreateTaskResult, parseDetailedTask, TaskShapeError, type DetailedTask } from '../protocol/tasks.js';
import type { Era } from '../legacy/era.js';
import type { LegacyBackend } from '../legacy/legacy-backend.js';
import type { InputRequiredEvent } from '../tasks/input-broker.js';
import { PollScheduler } from '../tasks/scheduler.js';
import type { TaskRecord } from '../store/task-record.js';
import type { TaskStore } from '../store/task-store.js';
import { TaskHandle, type Settled, type TaskDriver } from '../tasks/task-handle.js';
import { sendCreation } from './creation-retry.js';
import { EraRouter } from './era-router.js';
import { settledFromRecord } from './resume.js';
import { newRecord, recordHandle } from './task-recorder.js';
import { answerRound } from './mrtr.js';
import { resolveOptions, type ResolvedOptions, type TaskClientOptions } from './options.js';
import { invalidHeaderReason, paramHeaders } from './param-headers.js';
import { RequestPipeline, type RequestOptions } from './request-pipeline.js';
import { parserFor } from './result-parsers.js';
// hook: issue-16 (fleet mode: src/fleet/)
import { fleetHostOf } from '../fleet/client-host.js';
import { FleetRunner, type FleetOptions } from '../fleet/fleet-runner.js';
import { resultOf, type ResultOfOptions } from '../fleet/result-of.js';

/** Options of `callTool`, `readResource`, `getPrompt` and `startTool`. */
export interface CallOptions<T = unknown> extends RequestOptions {
  /**
   * Budget for the whole call, ms: every round, the task's wait and its polls. On expiry the call fails with
   * `RequestTimeoutError` (and the task is cancelled unless `onAbort: 'detach'`).
   */
  maxTotalTimeoutMs?: number;
  /** Called once if the call became a task, before its first poll. */
  onTask?: (handle: TaskHandle<T>) => void;
  /** A poll interval in ms that may raise the server's `pollIntervalMs` (never lower it). */
  pollIntervalMs?: number;
  /**
   * What an aborted `signal` (or `maxTotalTimeoutMs`) does to a task the call created: `'cancel'` sends
   * `tasks/cancel` once (the caller holds no handle, STYLE 9); `'detach'` leaves it running. @default 'cancel'
   */
  onAbort?: 'cancel' | 'detach';
  /**
   * A caller-chosen key that makes re-sending this call safe: a creation request that got no response is re-sent
   * (new JSON-RPC id, same key) and a server honouring the key returns the same task (issue 6). Sent where
   * `idempotencyKeyIn` says. Without it, a lost creation is re-sent only for tools annotated idempotent or
   * read-only; otherwise the call fails with `OutcomeUnknownError`.
   */
  idempotencyKey?: string;
}

/** What `startTool` (and friends) returns: the final result, or the handle of a task. */
export type CallStart<T> = { resultType: 'complete'; result: T } | { resultType: 'task'; task: TaskHandle<T> };

/** Events of a {@link TaskClient}. */
export interface TaskClientEvents {
  /** A question from the server (an MRTR round or a task), once per key. Answer with `event.respond(...)`. */
  inputRequired: [event: InputRequiredEvent];
  /** A call became a task. */
  task: [handle: TaskHandle<unknown>];
  /** A notification arrived that no call claimed (e.g. `notifications/message`). */
  notification: [notification: JsonRpcNotification];
  /** The server broke a rule and the client coped (e.g. a nested `task` wrapper, -32602 right after creation). */
  serverViolation: [detail: string];
  /** A tool from `tools/list` was dropped (invalid `x-mcp-header`, 2.7). */
  warning: [message: string];
}

/** Options of {@link TaskClient.task}. */
export interface AttachOptions {
  /** The method that created the task (decides how the result is parsed). @default 'tools/call' */
  method?: string;
  /** Local time the task was created, epoch ms, if known (enables "expired" vs "unknown"). */
  localCreatedAt?: number;
  /** The task's `ttlMs` when last known (with `localCreatedAt`, tells "expired" from "unknown"). */
  ttlMs?: number | null;
  /** Keys answered before. */
  answeredKeys?: Iterable<string>;
  /** Raise the poll interval, ms. */
  pollIntervalMs?: number;
  signal?: AbortSignal;
}

/**
 * A task-aware MCP client. One promise per call, whether the server answers inline, asks questions (MRTR), or
 * turns the call into a task.
 *
 * @example
 * const client = new TaskClient({ transport: new StreamableHttpTransport(url) });
 * client.on('inputRequired', (event) => event.respond({ action: 'accept', content: { confirm: true } }));
 * const result = await client.callTool('deploy_release', { version: '1.2.3' });
 */
export class TaskClient extends EventEmitter<TaskClientEvents> {
  readonly #options: ResolvedOptions;
  readonly #pipeline: RequestPipeline;
  readonly #scheduler: PollScheduler;
  readonly #tools = new Map<string, Tool>();
  readonly #driver: TaskDriver;
  readonly #router: EraRouter;
  readonly #legacyDrivers = new WeakMap<LegacyBackend, TaskDriver>();
  readonly #drains = new WeakMap<TaskHandle<unknown>, () => Promise<void>>();
  /** Handles not yet settled, so that `close()` can release their waiters. */
  readonly #live = new Set<TaskHandle<unknown>>();
  #closed = false;
  #fleet: FleetRunner | undefined; // hook: issue-16

  /** @throws TypeError when an option is invalid (the message names it and the value). */
  constructor(options: TaskClientOptions) {
    super();
    this.#options = resolveOptions(options);
    const o = this.#options;
    this.#pipeline = new RequestPipeline(o, () => this.listenerCount('inputRequired') > 0, (n) => this.emit('notification', n));
    this.#scheduler = new PollScheduler({ maxConcurrentPolls: o.maxConcurrentPolls, jitterRatio: o.jitterRatio, autoPoll: o.autoPoll, now: o.now });
    this.#driver = {
      serverKey: o.transport.serverKey,
      scheduler: this.#scheduler,
      policy: { defaultMs: o.defaultPollIntervalMs, minMs: o.minPollIntervalMs, maxMs: o.maxPollIntervalMs },
      handlers: o.handlers,
      maxPollRetries: o.maxPollRetries,
      notYetVisibleRetries: o.notYetVisibleRetries,
      now: o.now,
      getTask: (taskId) => {
        this.#fleet?.gate(taskId); // hook: issue-16 (no poll once this worker's lease on the task ran out)
        return this.#pipeline.send(METHODS.tasksGet, { taskId });
      },
      updateTask: async (taskId, inputResponses) => {
        await this.#pipeline.send(METHODS.tasksUpdate, { taskId, inputResponses });
      },
      cancelTask: async (taskId) => {
        await this.#pipeline.send(METHODS.tasksCancel, { taskId });
      },
      emitInput: (event) => this.emit('inputRequired', event),
    };
    const host = {
      clientInfo: o.clientInfo,
      handlers: o.handlers,
      emitInput: (event: InputRequiredEvent) => this.emit('inputRequired', event),
      listenerCount: () => this.listenerCount('inputRequired'),
    };
    this.#router = new EraRouter(o.transport, o.era, host, (signal) => this.#pipeline.send(METHODS.discover, {}, { signal }));
  }

  /**
   * The protocol era of the server, once known: `modern` (2026-07-28) or `legacy` (2025-11-25, through the
   * official SDK 1.x). Detected on the first call and cached per server (issue 4).
   */
  get era(): Era | undefined {
    return this.#router.era;
  }

  /** The protocol version in use (after any -32022 renegotiation, 1.8). */
  get protocolVersion(): string {
    return this.era === 'legacy' ? LEGACY_PROTOCOL_VERSION : this.#pipeline.protocolVersion;
  }

  /** `server/discover`: versions, capabilities (tasks under `extensions`), instructions, server info (1.9). */
  async discover(options: RequestOptions = {}): Promise<DiscoverResult> {
    return this.#router.route(
      async () => this.#validate(METHODS.discover, DiscoverResultSchema, await this.#pipeline.send(METHODS.discover, {}, options)),
      async (legacy) => legacy.discover(),
      options.signal,
    );
  }

  /**
   * `tools/list`, following `nextCursor` (at most 100 pages). Tools with invalid `x-mcp-header` annotations are
   * dropped with a `warning` event (2.7). The list is cached for `Mcp-Param-*` headers.
   */
  async listTools(options: RequestOptions = {}): Promise<Tool[]> {
    return this.#router.route(
      () => this.#listModernTools(options),
      (legacy) => legacy.listTools({ ...options, timeoutMs: options.timeoutMs ?? this.#options.timeoutMs }),
      options.signal,
    );
  }

  async #listModernTools(options: RequestOptions): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const raw = await this.#pipeline.send(METHODS.listTools, cursor ? { cursor } : {}, options);
      const result = this.#validate(METHODS.listTools, ListToolsResultSchema, raw);
      for (const entry of result.tools) {
        const parsed = ToolSchema.safeParse(entry);
        const name = (entry as { name?: unknown })?.name;
        const reason = parsed.success ? invalidHeaderReason(parsed.data) : 'not a valid tool definition';
        if (!parsed.success || reason) {
          this.emit('warning', `tools/list: dropped tool ${JSON.stringify(name)}: ${reason}`);
          continue;
        }
        tools.push(parsed.data);
      }
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    this.#tools.clear();
    for (const tool of tools) this.#tools.set(tool.name, tool);
    return tools;
  }

  /**
   * Calls a tool and resolves with its final result, whether the server answered inline, with MRTR rounds, or
   * with a task (5.17). A result with `isError: true` is returned, not thrown (5.9).
   *
   * @throws {@link TaskFailedError}, {@link TaskCancelledError}, {@link TaskExpiredError}, {@link TaskNotFoundError}
   *   for task outcomes; {@link McpError} for a JSON-RPC error; {@link InputRequiredError} when nobody can answer;
   *   {@link TooManyRoundsError}; {@link InvalidResponseError}; transport errors; `signal.reason` on abort.
   */
  async callTool(name: string, args?: Record<string, unknown>, options: CallOptions<CallToolResult> = {}): Promise<CallToolResult> {
    const call = this.#toolCall(name, args, options);
    return this.#callAndWait<CallToolResult>(METHODS.callTool, (o) => this.#startRouted(METHODS.callTool, call.params, o, call.headers), call.options);
  }

  /** Like {@link callTool}, but resolves as soon as the outcome is known: the result, or a task handle. */
  async startTool(name: string, args?: Record<string, unknown>, options: CallOptions<CallToolResult> = {}): Promise<CallStart<CallToolResult>> {
    const call = this.#toolCall(name, args, options);
    return this.#startRouted<CallToolResult>(METHODS.callTool, call.params, call.options, call.headers);
  }

  /** `resources/read`, resolved to its final result (inline, MRTR or task; 5.3). Throws as {@link callTool}. */
  async readResource(uri: string, options: CallOptions<ReadResourceResult> = {}): Promise<ReadResourceResult> {
    return this.#callAndWait<ReadResourceResult>(METHODS.readResource, (o) => this.#startRouted(METHODS.readResource, { uri }, o), options);
  }

  /** `prompts/get`, resolved to its final result (inline, MRTR or task; 5.3). Throws as {@link callTool}. */
  async getPrompt(name: string, args?: Record<string, string>, options: CallOptions<GetPromptResult> = {}): Promise<GetPromptResult> {
    const params = args ? { name, arguments: args } : { name };
    return this.#callAndWait<GetPromptResult>(METHODS.getPrompt, (o) => this.#startRouted(METHODS.getPrompt, params, o), options);
  }

  /**
   * Sends any request with `_meta` added and resolves with its raw `result` (no `resultType` dispatch).
   *
   * @throws {@link McpError} and transport errors.
   */
  async request(method: string, params: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    return this.#router.route(
      () => this.#pipeline.send(method, params, options),
      (legacy) => legacy.request(method, params, { ...options, timeoutMs: options.timeoutMs ?? this.#options.timeoutMs }),
      options.signal,
    );
  }

  /**
   * Attaches to a task created elsewhere (another process, a stored id): one `tasks/get` now, then polling.
   *
   * @throws {@link TaskNotFoundError} / {@link TaskExpiredError} when the server does not know it.
   */
  async task<T = CallToolResult>(taskId: string, options: AttachOptions = {}): Promise<TaskHandle<T>> {
    if (typeof taskId !== 'string' || taskId.length === 0) throw new TypeError(`TaskClient.task: taskId must be a non-empty string, got ${JSON.stringify(taskId)}`);
    return this.#router.route(
      () => this.#attach<T>(taskId, options, this.#driver),
      async (legacy) => {
        const handle = await this.#attach<T>(taskId, options, this.#legacyDriver(legacy));
        legacy.track(handle);
        return handle;
      },
      options.signal,
    );
  }

  async #attach<T>(taskId: string, options: AttachOptions, driver: TaskDriver): Promise<TaskHandle<T>> {
    const method = options.method ?? METHODS.callTool;
    let first: DetailedTask;
    try {
      first = parseDetailedTask(await driver.getTask(taskId));
    } catch (error) {
      if (error instanceof TaskShapeError) throw new InvalidResponseError(METHODS.tasksGet, error.message, error.issues, { cause: error });
      if (error instanceof McpError && error.code === ErrorCode.InvalidParams) {
        const { localCreatedAt, ttlMs } = options;
        const expiresAt = localCreatedAt !== undefined && typeof ttlMs === 'number' ? localCreatedAt + ttlMs : undefined;
        if (expiresAt !== undefined && this.#options.now() >= expiresAt) throw new TaskExpiredError(taskId, expiresAt, undefined, { cause: error });
        throw new TaskNotFoundError(taskId, 'unknown', undefined, { cause: error });
      }
      throw error;
    }
    const handle = new TaskHandle<T>(driver, {
      task: first,
      method,
      localCreatedAt: options.localCreatedAt ?? this.#localCreatedAtFrom(first.createdAt),
      parseResult: parserFor(method) as (raw: Record<string, unknown>) => T,
      justCreated: false,
      answeredKeys: options.answeredKeys,
      pollIntervalMs: options.pollIntervalMs,
      firstPoll: 'after-interval',
    });
    this.#follow(handle).start();
    return handle;
  }

  /** Keeps `handle` in the live set until it settles. */
  #follow<T>(handle: TaskHandle<T>): TaskHandle<T> {
    this.#live.add(handle);
    const forget = (): boolean => this.#live.delete(handle);
    handle.result().then(forget, forget);
    return handle;
  }

  #legacyDriver(legacy: LegacyBackend): TaskDriver {
    let driver = this.#legacyDrivers.get(legacy);
    if (!driver) {
      driver = { ...this.#driver, ...legacy.ops, questionsOutOfBand: true };
      this.#legacyDrivers.set(legacy, driver);
    }
    return driver;
  }

  /**
   * Polls every task that is due now and resolves with the next due time (epoch ms), or `undefined`.
   * For serverless hosts with `autoPoll: false`.
   */
  tick(): Promise<number | undefined> {
    return this.#scheduler.tick();
  }

  /**
   * Stops polling and closes the transport. Every call still waiting rejects with {@link ClientClosedError} (its
   * task may still run on the server: `resume` it later from a store), and later calls reject the same way.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#fleet?.stop(); // hook: issue-16
    this.#scheduler.close();
    const closed = new ClientClosedError();
    for (const handle of this.#live) handle.abandon(closed);
    this.#live.clear();
    await this.#router.close();
    await this.#options.transport.close();
  }

  /** Params, options and `Mcp-Param-*` headers of one `tools/call`, with the idempotency key placed (issue 6). */
  #toolCall<T>(name: string, args: Record<string, unknown> | undefined, options: CallOptions<T>) {
    const key = options.idempotencyKey;
    const placement = this.#options.idempotencyKeyIn;
    let callArgs = args;
    let callOptions = options;
    if (key !== undefined && 'argument' in placement) callArgs = { ...args, [placement.argument]: key };
    if (key !== undefined && 'meta' in placement) callOptions = { ...options, meta: { ...options.meta, [placement.meta]: key } };
    const params: Record<string, unknown> = callArgs === undefined ? { name } : { name, arguments: callArgs };
    return { params, options: callOptions, headers: paramHeaders(this.#tools.get(name), callArgs) };
  }

  /** Whether a lost creation request may be re-sent: reads always; a tool call with a key, or a tool hinted safe. */
  async #mayResend(method: string, params: Record<string, unknown>, options: CallOptions<unknown>): Promise<boolean> {
    if (method !== METHODS.callTool || options.idempotencyKey !== undefined) return true;
    const name = String(params.name);
    if (this.#tools.size === 0) await this.listTools().catch(() => undefined);
    const hints = this.#tools.get(name)?.annotations;
    return hints?.idempotentHint === true || hints?.readOnlyHint === true;
  }

  #localCreatedAtFrom(createdAt: string | undefined): number {
    const parsed = createdAt ? Date.parse(createdAt) : Number.NaN;
    return Number.isNaN(parsed) ? this.#options.now() : Math.min(parsed, this.#options.now());
  }

  /** Checks a result of a method without MRTR or tasks: only `complete` (or no `resultType`) is valid there (1.7, 4.1). */
  #validate<T>(method: string, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: unknown[]; message: string } } }, value: unknown): T {
    const resultType = (value as { resultType?: unknown } | null)?.resultType;
    if (resultType !== undefined && resultType !== 'complete') {
      throw new InvalidResponseError(method, `unexpected resultType ${JSON.stringify(resultType)} for ${method}`);
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    throw new InvalidResponseError(method, `result does not match the schema: ${parsed.error.message.slice(0, 300)}`, parsed.error.issues);
  }

  async #callAndWait<T>(method: string, begin: (options: CallOptions<T>) => Promise<CallStart<T>>, options: CallOptions<T>): Promise<T> {
    if (options.signal === undefined && options.maxTotalTimeoutMs === undefined) {
      // Nothing can abort this call: no controller or listeners live as long as the task (issue 8, heap per task).
      const start = await begin(options);
      if (start.resultType === 'complete') return start.result;
      try {
        return await start.task.result();
      } finally {
        await this.#drained(start.task);
      }
    }
    const total = options.maxTotalTimeoutMs;
    const link = linkAbort(options.signal, total, () => new RequestTimeoutError(method, total ?? 0));
    try {
      const start = await begin({ ...options, signal: link.signal });
      if (start.resultType === 'complete') return start.result;
      const handle = start.task;
      const onAbort = (): void => {
        if (options.onAbort !== 'detach') handle.cancel().catch((error: unknown) => handle.emit('error', error));
      };
      // The abort may have landed while the creation result was already on its way: the task exists and the
      // caller holds no handle, so act on it now instead of leaving it polling (STYLE 9).
      if (link.signal.aborted) onAbort();
      else link.signal.addEventListener('abort', onAbort, { once: true });
      try {
        return await handle.result({ signal: link.signal });
      } finally {
        link.signal.removeEventListener('abort', onAbort);
        await this.#drained(handle); // the stored outcome is on disk before the caller sees it (issue 6)
      }
    } finally {
      link.dispose();
    }
  }

  /** Sends the request, runs MRTR rounds, and returns the final result or the new task's handle (4.4, 4.5, 5.5). */
  async #start<T>(method: string, params: Record<string, unknown>, options: CallOptions<T>, headers?: Record<string, string>): Promise<CallStart<T>> {
    const parse = parserFor(method) as (raw: Record<string, unknown>) => T;
    let retry: { inputResponses?: InputResponses; requestState?: string } = {};
    for (let round = 0; ; round++) {
      const sendOptions = { ...options, headers: { ...headers, ...options.headers } };
      const result = await sendCreation(() => this.#pipeline.send(method, { ...params, ...retry }, sendOptions), {
        method,
        mayResend: () => this.#mayResend(method, params, options as CallOptions<unknown>),
        retry: this.#options.creationRetry,
        signal: options.signal,
      });
      const resultType = result.resultType ?? 'complete';
      if (resultType === 'complete') return { resultType: 'complete', result: parse(result) };
      if (resultType === 'input_required' && MRTR_METHODS.includes(method)) {
        if (round >= this.#options.maxInputRounds) throw new TooManyRoundsError(method, round);
        const parsed = InputRequiredResultSchema.safeParse(result);
        if (!parsed.success) throw new InvalidResponseError(method, 'malformed input_required result', parsed.error.issues);
        const { inputRequests = {}, requestState } = parsed.data;
        const inputResponses = await answerRound({
          method,
          inputRequests,
          handlers: this.#options.handlers,
          emit: (event) => this.emit('inputRequired', event),
          listenerCount: () => this.listenerCount('inputRequired'),
          signal: options.signal,
        });
        // Only the latest answers and state, echoed byte-exact; none when none came (4.3, 4.5).
        retry = {};
        if (Object.keys(inputResponses).length > 0) retry.inputResponses = inputResponses;
        if (requestState !== undefined) retry.requestState = requestState;
        continue;
      }
      if (resultType === 'task' && this.#options.taskMethods.includes(method)) {
        const { task, terminal } = this.#parseCreated(method, result);
        return { resultType: 'task', task: await this.#adopt<T>(method, params, task, parse, options, this.#driver, undefined, terminal) };
      }
      throw new InvalidResponseError(method, `unexpected resultType ${JSON.stringify(resultType)} for ${method}`);
    }
  }

  /** Routes a call to the era's pipeline: modern `#start`, or the legacy session. */
  #startRouted<T>(method: string, params: Record<string, unknown>, options: CallOptions<T>, headers?: Record<string, string>): Promise<CallStart<T>> {
    return this.#router.route(
      () => this.#start<T>(method, params, options, headers),
      (legacy) => this.#startLegacy<T>(legacy, method, params, options),
      options.signal,
    );
  }

  /** A call in the 2025-11-25 era: tools may become tasks (driven by our scheduler); other methods answer inline. */
  async #startLegacy<T>(legacy: LegacyBackend, method: string, params: Record<string, unknown>, options: CallOptions<T>): Promise<CallStart<T>> {
    const parse = parserFor(method) as (raw: Record<string, unknown>) => T;
    const legacyOptions = { signal: options.signal, timeoutMs: options.timeoutMs ?? this.#options.timeoutMs, onProgress: options.onProgress };
    if (method !== METHODS.callTool) return { resultType: 'complete', result: parse(await legacy.request(method, params, legacyOptions)) };
    const started = await legacy.startTool(params, legacyOptions);
    if ('result' in started) return { resultType: 'complete', result: parse(started.result) };
    const handle = await this.#adopt<T>(method, params, started.task, parse, options, this.#legacyDriver(legacy), (h) => legacy.track(h));
    return { resultType: 'task', task: handle };
  }

  /** The new task, and whether it was already terminal (then the first poll runs at once). */
  #parseCreated(method: string, result: Record<string, unknown>): { task: DetailedTask; terminal: boolean } {
    let terminal = false;
    try {
      const task = parseCreateTaskResult(result, {
        onNested: () => this.emit('serverViolation', `${method}: CreateTaskResult nested under "task" (the specification makes it flat)`),
        onTerminal: () => (terminal = true),
      });
      return { task, terminal };
    } catch (error) {
      if (error instanceof TaskShapeError) throw new InvalidResponseError(method, error.message, error.issues, { cause: error });
      throw error;
    }
  }

  /** Makes the handle of a new task, stores its record first (5.6), then starts polling. */
  async #adopt<T>(
    method: string,
    params: Record<string, unknown>,
    task: DetailedTask,
    parse: (raw: Record<string, unknown>) => T,
    options: CallOptions<T>,
    driver: TaskDriver,
    track?: (handle: TaskHandle<T>) => void,
    pollNow = false,
  ): Promise<TaskHandle<T>> {
    const localCreatedAt = this.#options.now();
    const firstPoll = pollNow ? 'now' : 'after-interval';
    const handle = new TaskHandle<T>(driver, { task, method, localCreatedAt, parseResult: parse, justCreated: true, pollIntervalMs: options.pollIntervalMs, firstPoll });
    track?.(handle);
    handle.on('serverViolation', (detail) => this.emit('serverViolation', detail));
    const store = this.#options.store;
    if (store) {
      const { _meta: _, ...plain } = params;
      const record = newRecord(task, localCreatedAt, {
        server: driver.serverKey,
        method,
        name: typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined,
        params: this.#options.redactParams(method, plain),
        idempotencyKey: options.idempotencyKey,
      }, this.#options.now());
      await store.put(record).catch((error: unknown) => this.emit('warning', `task store: could not write ${redactTaskId(task.taskId)}: ${String(error)}`));
      this.#record(handle, record);
    }
    this.emit('task', handle);
    options.onTask?.(handle);
    this.#follow(handle).start();
    if (this.#closed) handle.abandon(new ClientClosedError()); // closed while the creation was on its way
    return handle;
  }

  #record(handle: TaskHandle<unknown>, record: TaskRecord): void {
    const store = this.#options.store;
    if (!store) return;
    this.#drains.set(handle, recordHandle(store, handle, record, this.#options.now, (error) => this.emit('warning', `task store: ${String(error)}`)));
  }

  /** Resolves once every record write queued so far for `handle` (its outcome included, once known) is done. */
  async #drained(handle: TaskHandle<unknown>): Promise<void> {
    await this.#drains.get(handle)?.();
  }

  /**
   * Re-attaches to a stored task of this server after a restart (issue 6): answered keys are remembered, a stored
   * terminal outcome is returned as it is, and a task the server lost is reported (its record updated).
   *
   * @returns a handle whose `result()` gives the outcome.
   * @throws TypeError without a `store`; {@link TaskNotFoundError} when the store has no such task.
   */
  async resume<T = CallToolResult>(taskId: string): Promise<TaskHandle<T>> {
    const store = this.#requireStore('resume');
    if (this.#closed) throw new ClientClosedError();
    const record = await store.get(taskId, this.#driver.serverKey);
    if (!record) throw new TaskNotFoundError(taskId, 'unknown');
    return this.#resumeRecord<T>(record);
  }

  /**
   * Re-attaches to every stored task of this server that has no terminal outcome yet. Tasks whose TTL passed while
   * nobody watched come back settled with `TaskExpiredError`; none is dropped silently.
   *
   * @throws TypeError without a `store`.
   */
  async resumeAll<T = CallToolResult>(): Promise<Array<TaskHandle<T>>> {
    const store = this.#requireStore('resumeAll');
    if (this.#closed) throw new ClientClosedError();
    const records = (await store.list()).filter((r) => r.server === this.#driver.serverKey && !r.outcome);
    return records.map((r) => this.#resumeRecord<T>(r));
  }

  #requireStore(method: string): TaskStore {
    if (!this.#options.store) throw new TypeError(`TaskClient.${method}: no store was configured (option "store")`);
    return this.#options.store;
  }

  /**
   * A handle for a stored task. With a stored outcome it starts settled and never polls; otherwise it is rebuilt
   * from the record and polls at once, so a lost task (-32602: expired or unknown), a transient fault (retried) and
   * a live task all take the normal polling path. Resume is modern-era only: a 2025-11-25 task belongs to the
   * session that created it.
   */
  #resumeRecord<T>(record: TaskRecord): TaskHandle<T> {
    const parse = parserFor(record.method) as (raw: Record<string, unknown>) => T;
    const stored = record.status === 'input_required' || isTerminalStatus(record.status) ? 'working' : record.status;
    const handle = new TaskHandle<T>(this.#driver, {
      task: { taskId: record.taskId, status: stored, ttlMs: record.ttlMs, statusMessage: record.statusMessage, pollIntervalMs: record.pollIntervalMs } as DetailedTask,
      method: record.method,
      localCreatedAt: record.localCreatedAt,
      parseResult: parse,
      justCreated: false,
      answeredKeys: record.answeredKeys,
      firstPoll: 'now',
      outcome: record.outcome ? settledFromRecord(record, parse) : undefined,
    });
    if (!record.outcome) this.#record(this.#follow(handle), record);
    handle.start();
    return handle;
  }

  // hook: issue-16
  /**
   * Runs this client as one worker of a fleet sharing a `RedisTaskStore` (option `store`, named by `workerId`):
   * claims due tasks, follows each (one worker polls a task at a time), renews its leases, records outcomes, and
   * takes over the tasks of workers whose lease ran out. Questions of fleet tasks are emitted on the runner.
   * Tasks as in https://github.com/modelcontextprotocol/ext-tasks; the protocol is described in docs/fleet.md.
   *
   * @returns the running worker; `await fleet.stop()` releases its leases.
   * @throws TypeError when the store has no leases (not a `RedisTaskStore`) or an option is invalid.
   */
  runFleet(options: FleetOptions = {}): FleetRunner {
    if (this.#closed) throw new ClientClosedError();
    this.#fleet = new FleetRunner(this.#fleetHost('runFleet'), options);
    return this.#fleet;
  }

  // hook: issue-16
  /**
   * Awaits a task that any worker of the fleet follows: resolves with the outcome once the lease holder records it
   * in the shared store (https://github.com/modelcontextprotocol/ext-tasks, `tasks/get` results).
   *
   * @throws {@link TaskNotFoundError} when the store has no record of it; {@link TaskExpiredError} when its TTL
   *   passes with no outcome; {@link TaskFailedError} / {@link TaskCancelledError} for those outcomes;
   *   `signal.reason` on abort; TypeError without a fleet store.
   */
  resultOf<T = CallToolResult>(taskId: string, options: ResultOfOptions = {}): Promise<T> {
    return resultOf<T>(this.#fleetHost('resultOf'), taskId, options, this.#fleet);
  }

  // hook: issue-16
  #fleetHost(method: string) {
    const o = this.#options;
    return fleetHostOf(this as never, { store: o.store, workerId: o.workerId, serverKey: o.transport.serverKey, now: o.now }, method);
  }
}
