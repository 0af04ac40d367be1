/**
 * `TaskClient`: the request pipeline. Adds `_meta` to every request, sends it, dispatches on `resultType`
 * (`complete`, MRTR `input_required`, `task`), and hands tasks to the tasks layer.
 * (CLIENT-REQUIREMENTS §1, §4, §5, §6; DESIGN.md § The path of one call)
 *
 * @module
 */
import { EventEmitter } from 'eventemitter3';
import { InvalidResponseError, McpError, RequestTimeoutError, TaskExpiredError, TaskNotFoundError, TooManyRoundsError } from '../errors.js';
import { linkAbort } from '../internal/abort.js';
import { ErrorCode, METHODS, MRTR_METHODS } from '../protocol/constants.js';
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
import { parseCreateTaskResult, parseDetailedTask, TaskShapeError, type DetailedTask } from '../protocol/tasks.js';
import type { InputRequiredEvent } from '../tasks/input-broker.js';
import { PollScheduler } from '../tasks/scheduler.js';
import { TaskHandle, type TaskDriver } from '../tasks/task-handle.js';
import { answerRound } from './mrtr.js';
import { resolveOptions, type ResolvedOptions, type TaskClientOptions } from './options.js';
import { invalidHeaderReason, paramHeaders } from './param-headers.js';
import { RequestPipeline, type RequestOptions } from './request-pipeline.js';
import { parserFor } from './result-parsers.js';

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
      getTask: (taskId) => this.#pipeline.send(METHODS.tasksGet, { taskId }),
      updateTask: async (taskId, inputResponses) => {
        await this.#pipeline.send(METHODS.tasksUpdate, { taskId, inputResponses });
      },
      cancelTask: async (taskId) => {
        await this.#pipeline.send(METHODS.tasksCancel, { taskId });
      },
      emitInput: (event) => this.emit('inputRequired', event),
    };
  }

  /** The protocol version in use (after any -32022 renegotiation, 1.8). */
  get protocolVersion(): string {
    return this.#pipeline.protocolVersion;
  }

  /** `server/discover`: versions, capabilities (tasks under `extensions`), instructions, server info (1.9). */
  async discover(options: RequestOptions = {}): Promise<DiscoverResult> {
    const result = await this.#pipeline.send(METHODS.discover, {}, options);
    return this.#validate(METHODS.discover, DiscoverResultSchema, result);
  }

  /**
   * `tools/list`, following `nextCursor` (at most 100 pages). Tools with invalid `x-mcp-header` annotations are
   * dropped with a `warning` event (2.7). The list is cached for `Mcp-Param-*` headers.
   */
  async listTools(options: RequestOptions = {}): Promise<Tool[]> {
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
    return this.#callAndWait<CallToolResult>(METHODS.callTool, this.#toolParams(name, args), options, paramHeaders(this.#tools.get(name), args));
  }

  /** Like {@link callTool}, but resolves as soon as the outcome is known: the result, or a task handle. */
  async startTool(name: string, args?: Record<string, unknown>, options: CallOptions<CallToolResult> = {}): Promise<CallStart<CallToolResult>> {
    return this.#start<CallToolResult>(METHODS.callTool, this.#toolParams(name, args), options, paramHeaders(this.#tools.get(name), args));
  }

  /** `resources/read`, resolved to its final result (inline, MRTR or task; 5.3). Throws as {@link callTool}. */
  async readResource(uri: string, options: CallOptions<ReadResourceResult> = {}): Promise<ReadResourceResult> {
    return this.#callAndWait<ReadResourceResult>(METHODS.readResource, { uri }, options);
  }

  /** `prompts/get`, resolved to its final result (inline, MRTR or task; 5.3). Throws as {@link callTool}. */
  async getPrompt(name: string, args?: Record<string, string>, options: CallOptions<GetPromptResult> = {}): Promise<GetPromptResult> {
    return this.#callAndWait<GetPromptResult>(METHODS.getPrompt, args ? { name, arguments: args } : { name }, options);
  }

  /**
   * Sends any request with `_meta` added and resolves with its raw `result` (no `resultType` dispatch).
   *
   * @throws {@link McpError} and transport errors.
   */
  async request(method: string, params: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    return this.#pipeline.send(method, params, options);
  }

  /**
   * Attaches to a task created elsewhere (another process, a stored id): one `tasks/get` now, then polling.
   *
   * @throws {@link TaskNotFoundError} / {@link TaskExpiredError} when the server does not know it.
   */
  async task<T = CallToolResult>(taskId: string, options: AttachOptions = {}): Promise<TaskHandle<T>> {
    const method = options.method ?? METHODS.callTool;
    let first: DetailedTask;
    try {
      first = parseDetailedTask(await this.#pipeline.send(METHODS.tasksGet, { taskId }, { signal: options.signal }));
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
    const handle = new TaskHandle<T>(this.#driver, {
      task: first,
      method,
      localCreatedAt: options.localCreatedAt ?? this.#localCreatedAtFrom(first.createdAt),
      parseResult: parserFor(method) as (raw: Record<string, unknown>) => T,
      justCreated: false,
      answeredKeys: options.answeredKeys,
      pollIntervalMs: options.pollIntervalMs,
      firstPoll: 'after-interval',
    });
    handle.start();
    return handle;
  }

  /**
   * Polls every task that is due now and resolves with the next due time (epoch ms), or `undefined`.
   * For serverless hosts with `autoPoll: false`.
   */
  tick(): Promise<number | undefined> {
    return this.#scheduler.tick();
  }

  /** Stops polling and closes the transport. Pending waits stay pending; abort them with their signals. */
  async close(): Promise<void> {
    this.#scheduler.close();
    await this.#options.transport.close();
  }

  #toolParams(name: string, args: Record<string, unknown> | undefined): Record<string, unknown> {
    return args === undefined ? { name } : { name, arguments: args };
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

  async #callAndWait<T>(method: string, params: Record<string, unknown>, options: CallOptions<T>, headers?: Record<string, string>): Promise<T> {
    const total = options.maxTotalTimeoutMs;
    const link = linkAbort(options.signal, total, () => new RequestTimeoutError(method, total ?? 0));
    try {
      const start = await this.#start<T>(method, params, { ...options, signal: link.signal }, headers);
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
      const result = await this.#pipeline.send(method, { ...params, ...retry }, { ...options, headers: { ...headers, ...options.headers } });
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
      if (resultType === 'task' && this.#options.taskMethods.includes(method)) return { resultType: 'task', task: this.#adopt<T>(method, result, parse, options) };
      throw new InvalidResponseError(method, `unexpected resultType ${JSON.stringify(resultType)} for ${method}`);
    }
  }

  #adopt<T>(method: string, result: Record<string, unknown>, parse: (raw: Record<string, unknown>) => T, options: CallOptions<T>): TaskHandle<T> {
    const localCreatedAt = this.#options.now();
    let task;
    try {
      task = parseCreateTaskResult(result, () => this.emit('serverViolation', `${method}: CreateTaskResult nested under "task" (the specification makes it flat)`));
    } catch (error) {
      if (error instanceof TaskShapeError) throw new InvalidResponseError(method, error.message, error.issues, { cause: error });
      throw error;
    }
    const handle = new TaskHandle<T>(this.#driver, { task, method, localCreatedAt, parseResult: parse, justCreated: true, pollIntervalMs: options.pollIntervalMs, firstPoll: 'after-interval' });
    handle.on('serverViolation', (detail) => this.emit('serverViolation', detail));
    this.emit('task', handle as TaskHandle<unknown>);
    options.onTask?.(handle);
    handle.start();
    return handle;
  }
}
