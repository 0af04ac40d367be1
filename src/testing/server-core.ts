/**
 * The transport-independent core of the reference server (MCP 2026-07-28, stateless, + Tasks extension): one
 * message in, one {@link CoreReply} out. The HTTP server, and later an in-memory transport and a stdio mode, wrap it.
 *
 * Order of checks for a request: envelope (-32600) → known method (-32601) → `params._meta` with
 * `io.modelcontextprotocol/protocolVersion` and `io.modelcontextprotocol/clientCapabilities` (-32602) → standard
 * headers when given (-32020) → protocol version (-32022) → the method.
 *
 * @module
 */
import {
  ErrorCode,
  META_KEYS,
  SUPPORTED_PROTOCOL_VERSIONS,
  TASKS_EXTENSION_ID,
  type JsonRpcNotification,
  type RequestId,
} from '../protocol/index.js';
import { mergeCatalogs, type Catalog } from './catalog.js';
import { conformanceCatalog } from './conformance-fixtures.js';
import { errorReply, resultReply, type CoreReply } from './core-reply.js';
import { findHeaderMismatch, normalizeHeaders } from './headers.js';
import { IdempotencyIndex, idempotencyKeyOf } from './idempotency.js';
import { invoke, type Invocable, type InvokerSettings } from './invoke.js';
import { JobError } from './job.js';
import { resolveCoreOptions, type ResolvedCoreOptions, type TaskServerCoreOptions } from './options.js';
import { RequestStateCodec } from './request-state.js';
import { ServerStats } from './stats.js';
import { SubscriptionHub } from './subscriptions.js';
import { TaskRegistry } from './task-registry.js';
import { handleTaskMethod, REMOVED_TASK_METHODS, TASK_METHODS } from './task-methods.js';
import { demoCatalog } from './tools.js';

/** Per-call options of {@link TaskServerCore.handle}. */
export interface HandleOptions {
  /** Receives each notification as soon as it is produced (live SSE); they are also collected in the reply. */
  onNotification?: (notification: JsonRpcNotification) => void;
  /** Abort to abandon an inline answer (closed HTTP request); the job is told to stop unless it became a task. */
  signal?: AbortSignal;
  /**
   * Who the request's authorization stands for (the bearer token's subject). A task created under one principal is
   * unknown to every other: `tasks/get`, `tasks/update` and `tasks/cancel` by another answer -32602 like for an
   * unknown id. `undefined` (no authorization) binds nothing.
   */
  principal?: string;
}

const METHODS = [
  'subscriptions/listen',
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  ...TASK_METHODS,
];
const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const isRequestId = (v: unknown): v is RequestId =>
  typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
const CACHEABLE = { cacheScope: 'public', ttlMs: 0 } as const;

/**
 * The reference server's logic, without I/O. Stateless per request: every request carries its own `_meta`; the only
 * state is the task store (`registry`) and the counters (`stats`).
 *
 * @example
 * ```ts
 * const core = new TaskServerCore({ inlineBudgetMs: 20 });
 * const reply = await core.handle(message, undefined); // no headers: header checks skipped (stdio, in-memory)
 * ```
 */
export class TaskServerCore {
  /** The resolved options (defaults applied). */
  readonly options: ResolvedCoreOptions;
  /** Request counters; see {@link ServerStats}. */
  readonly stats = new ServerStats();
  /** The task store. */
  readonly registry: TaskRegistry;
  /** Open `subscriptions/listen` streams, fed by the registry's task changes. */
  readonly subscriptions: SubscriptionHub;
  /** Everything the server offers (demo + fixtures + `options.catalog`). */
  readonly catalog: Catalog;
  /** Idempotency keys seen, bound to the tasks they created. */
  readonly idempotency: IdempotencyIndex;
  readonly #settings: InvokerSettings;
  readonly #inflight = new Map<RequestId, AbortController>();
  #tasksCreated = 0;

  /** @throws {TypeError} when an option is invalid (the message names it). */
  constructor(options: TaskServerCoreOptions = {}) {
    this.options = resolveCoreOptions(options);
    const o = this.options;
    this.registry = new TaskRegistry({ now: o.now });
    this.subscriptions = new SubscriptionHub(this.registry);
    this.registry.onTaskChange = (record) => this.subscriptions.taskChanged(record);
    this.idempotency = new IdempotencyIndex(this.registry);
    this.catalog = mergeCatalogs(
      o.demo ? demoCatalog() : { tools: [], resources: [], prompts: [] },
      o.fixtures === 'conformance' ? conformanceCatalog() : { tools: [], resources: [], prompts: [] },
      {
        tools: o.catalog.tools ?? [],
        resources: o.catalog.resources ?? [],
        prompts: o.catalog.prompts ?? [],
      },
    );
    this.#settings = {
      registry: this.registry,
      codec: new RequestStateCodec(),
      inlineBudgetMs: o.inlineBudgetMs,
      inputTimeoutMs: o.inputTimeoutMs,
      timeScale: o.timeScale,
      pollIntervalMs: o.pollIntervalMs,
      ttlMs: o.ttlMs,
    };
  }

  /**
   * Handles one JSON-RPC message (a request or a notification; batches and responses are rejected with -32600).
   *
   * @param message the parsed JSON body.
   * @param headers request headers (any case) to check against the body; `undefined` skips header checks (transports
   *   without headers).
   * @returns the reply; never throws.
   */
  async handle(
    message: unknown,
    headers?: Record<string, string | string[] | undefined>,
    options: HandleOptions = {},
  ): Promise<CoreReply> {
    const notifications: JsonRpcNotification[] = [];
    const emit = (n: JsonRpcNotification) => {
      notifications.push(n);
      options.onNotification?.(n);
    };
    if (!isObject(message) || message.jsonrpc !== '2.0' || typeof message.method !== 'string') {
      const id = isObject(message) && isRequestId(message.id) ? message.id : null;
      return errorReply(
        id,
        {
          code: ErrorCode.InvalidRequest,
          message: 'Invalid Request: expected one JSON-RPC request or notification',
        },
        [],
      );
    }
    const method = message.method;
    if (!('id' in message)) {
      this.#notification(method, message.params);
      return { status: 202, notifications: [] };
    }
    if (!isRequestId(message.id)) {
      return errorReply(
        null,
        { code: ErrorCode.InvalidRequest, message: 'Invalid Request: id must be a string or an integer' },
        [],
      );
    }
    const id = message.id;
    this.stats.recordRequest(method);
    const controller = new AbortController();
    const onAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    this.#inflight.set(id, controller);
    try {
      const result = await this.#request(
        id,
        method,
        message.params,
        headers,
        emit,
        controller.signal,
        options.principal,
      );
      return resultReply(id, result, notifications);
    } catch (error) {
      const rpc =
        error instanceof JobError
          ? error.toJsonRpc()
          : { code: ErrorCode.InternalError, message: `Internal error: ${String(error)}` };
      return errorReply(id, rpc, notifications);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      if (this.#inflight.get(id) === controller) this.#inflight.delete(id);
    }
  }

  /** Number of tasks created since start (a replayed idempotency key creates none). */
  get tasksCreated(): number {
    return this.#tasksCreated;
  }

  /** Stops every job and forgets all tasks. */
  close(): void {
    this.subscriptions.close();
    for (const controller of this.#inflight.values()) controller.abort();
    this.registry.clear();
    this.idempotency.clear();
  }

  async #request(
    id: RequestId,
    method: string,
    rawParams: unknown,
    rawHeaders: Record<string, string | string[] | undefined> | undefined,
    emit: (n: JsonRpcNotification) => void,
    signal: AbortSignal,
    principal: string | undefined,
  ): Promise<Record<string, unknown>> {
    if (!METHODS.includes(method)) {
      const hint = REMOVED_TASK_METHODS.includes(method)
        ? ' (removed by the 2026-07-28 Tasks extension)'
        : '';
      throw new JobError(ErrorCode.MethodNotFound, `Method not found: ${method}${hint}`);
    }
    const params = rawParams === undefined ? {} : rawParams;
    if (!isObject(params)) throw new JobError(ErrorCode.InvalidParams, 'params must be an object');
    const meta = params._meta;
    const version = isObject(meta) ? meta[META_KEYS.protocolVersion] : undefined;
    const caps = isObject(meta) ? meta[META_KEYS.clientCapabilities] : undefined;
    if (!isObject(meta) || typeof version !== 'string' || !isObject(caps)) {
      throw new JobError(
        ErrorCode.InvalidParams,
        `Invalid params: every request needs params._meta with "${META_KEYS.protocolVersion}" (string) and "${META_KEYS.clientCapabilities}" (object)`,
      );
    }
    if (rawHeaders !== undefined) {
      const mismatch = findHeaderMismatch(normalizeHeaders(rawHeaders), method, params, version);
      if (mismatch !== undefined)
        throw new JobError(ErrorCode.HeaderMismatch, `Header mismatch: ${mismatch}`);
    }
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      throw new JobError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${version}`, {
        supported: [...SUPPORTED_PROTOCOL_VERSIONS],
        requested: version,
      });
    }
    const extensions = caps.extensions;
    const tasksDeclared = isObject(extensions) && isObject(extensions[TASKS_EXTENSION_ID]);
    const token = meta.progressToken;
    const progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
    const call = (target: Invocable, args: Record<string, unknown>) => {
      const start = async () => {
        const result = await invoke(
          target,
          {
            method,
            args,
            params,
            clientCapabilities: caps,
            tasksDeclared,
            progressToken,
            emit,
            signal,
            principal,
          },
          this.#settings,
        );
        if (result.resultType === 'task') this.#tasksCreated++;
        return result;
      };
      const key = idempotencyKeyOf(params, args, this.options.idempotencyArgument);
      return key === undefined ? start() : this.idempotency.run(target.scope, key, args, start);
    };

    switch (method) {
      case 'subscriptions/listen':
        return this.subscriptions.listen(id, params, tasksDeclared, emit, signal);
      case 'server/discover':
        return this.#discover();
      case 'tools/list':
        return {
          resultType: 'complete',
          tools: this.catalog.tools.map(
            ({ run: _run, taskSupport: _t, requiredCapabilities: _r, ...tool }) => tool,
          ),
          ...CACHEABLE,
        };
      case 'resources/list':
        return {
          resultType: 'complete',
          resources: this.catalog.resources.map(({ run: _run, taskSupport: _t, ...resource }) => resource),
          ...CACHEABLE,
        };
      case 'prompts/list':
        return {
          resultType: 'complete',
          prompts: this.catalog.prompts.map(({ run: _run, taskSupport: _t, ...prompt }) => prompt),
          ...CACHEABLE,
        };
      case 'tools/call': {
        const tool = this.catalog.tools.find((t) => t.name === params.name);
        if (tool === undefined)
          throw new JobError(ErrorCode.InvalidParams, `Unknown tool: ${String(params.name)}`);
        return call({ ...tool, scope: `tools/call:${tool.name}` }, argsOf(params.arguments));
      }
      case 'resources/read': {
        const resource = this.catalog.resources.find((r) => r.uri === params.uri);
        if (resource === undefined)
          throw new JobError(ErrorCode.InvalidParams, `Resource not found: ${String(params.uri)}`, {
            uri: params.uri,
          });
        const finalizeResult = (r: Record<string, unknown>) => ({ ...CACHEABLE, ...r });
        return call(
          { ...resource, scope: `resources/read:${resource.uri}`, finalizeResult },
          { uri: resource.uri },
        );
      }
      case 'prompts/get': {
        const prompt = this.catalog.prompts.find((p) => p.name === params.name);
        if (prompt === undefined)
          throw new JobError(ErrorCode.InvalidParams, `Unknown prompt: ${String(params.name)}`);
        return call({ ...prompt, scope: `prompts/get:${prompt.name}` }, argsOf(params.arguments));
      }
      default:
        return handleTaskMethod(method, params, tasksDeclared, {
          registry: this.registry,
          stats: this.stats,
          now: this.options.now,
          principal,
        });
    }
  }

  #discover(): Record<string, unknown> {
    const { serverInfo, instructions } = this.options;
    return {
      resultType: 'complete',
      supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
      capabilities: { tools: {}, resources: {}, prompts: {}, extensions: { [TASKS_EXTENSION_ID]: {} } },
      instructions,
      ...CACHEABLE,
      _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
    };
  }

  /**
   * `notifications/cancelled {requestId}` abandons that in-flight inline request (stdio-style cancellation, one
   * client per core; over HTTP a client cancels by closing its POST instead).
   */
  #notification(method: string, params: unknown): void {
    if (method !== 'notifications/cancelled' || !isObject(params) || !isRequestId(params.requestId)) return;
    this.#inflight
      .get(params.requestId)
      ?.abort(new JobError(ErrorCode.InternalError, 'cancelled by notifications/cancelled'));
  }
}

function argsOf(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}
