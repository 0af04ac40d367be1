/**
 * `TaskClient`: the facade. It validates options, asks the era router for the backend (2026-07-28 or 2025-11-25),
 * and hands every task to the one task engine ({@link TaskTracker}), which owns its life: creating, attaching,
 * restoring, following, answering, cancelling and recording.
 * (https://modelcontextprotocol.io/specification/2026-07-28; https://github.com/modelcontextprotocol/ext-tasks)
 *
 * @module
 */
import { SafeEmitter } from '../internal/safe-emitter.js';
import { ClientClosedError, RequestTimeoutError, TaskNotFoundError } from '../errors.js';
import { linkAbort } from '../internal/abort.js';
import { ownAbortReason } from '../internal/race-abort.js';
import type { Era } from '../legacy/era.js';
import { LEGACY_PROTOCOL_VERSION, METHODS } from '../protocol/constants.js';
import type {
  CallToolResult,
  DiscoverResult,
  GetPromptResult,
  ReadResourceResult,
  Tool,
} from '../protocol/results.js';
import type { TaskStore } from '../store/task-store.js';
import type { EraBackend } from '../tasks/backend.js';
import type { InputRequiredEvent } from '../tasks/input-broker.js';
import { PollScheduler } from '../tasks/scheduler.js';
import { createPushTracker, type PushTracker } from '../tasks/push/index.js';
import type { TaskHandle } from '../tasks/task-handle.js';
import { TaskTracker } from '../tasks/tracker.js';
import {
  OutputSchemas,
  outputCheck,
  type StandardSchemaV1,
  type TypedCallToolResult,
} from '../tasks/typed-results.js';
import { EraRouter } from './era-router.js';
import { InFlightCalls } from './in-flight-calls.js';
import { guardProgress, startCall } from './start-call.js';
import { refreshFromToolList } from '../modern/header-mismatch.js';
import { ModernBackend } from '../modern/modern-backend.js';
import {
  AttachOptionsSchema,
  CallOptionsSchema,
  callOptionsError,
  type AttachOptions,
  type EngineConfig,
  RequestOptionsSchema,
  type RequestOptions,
  resolveConfig,
  type TaskClientOptions,
} from '../tasks/config.js';
import { RequestPipeline } from '../modern/request-pipeline.js';
import type { z } from 'zod';
import { toolCall, type CallOptions, type CallStart, type TaskClientEvents } from './call-options.js';
import {
  fleetStoreOf,
  FleetRunner,
  resultOf,
  type FleetClient,
  type FleetOptions,
  type ResultOfOptions,
} from '../fleet/index.js';

export type { CallOptions, CallStart, TaskClientEvents } from './call-options.js';

/**
 * A task-aware MCP client. One promise per call, whether the server answers inline, asks questions (MRTR), or
 * turns the call into a task. Listeners and callbacks run guarded: they never break the engine ({@link TaskClientEvents}).
 *
 * @example
 * const client = new TaskClient({ transport: new StreamableHttpTransport(url) });
 * client.on('inputRequired', (event) => event.respond({ action: 'accept', content: { confirm: true } }));
 * const result = await client.callTool('deploy_release', { version: '1.2.3' });
 */
export class TaskClient extends SafeEmitter<TaskClientEvents> {
  readonly #options: EngineConfig;
  readonly #scheduler: PollScheduler;
  readonly #modern: ModernBackend;
  readonly #router: EraRouter;
  readonly #tracker: TaskTracker;
  readonly #calls = new InFlightCalls();
  /** Each tool's declared `outputSchema`, from the last `listTools`. */
  readonly #outputs = new OutputSchemas();
  readonly #push: PushTracker | undefined;
  #fleet: FleetRunner | undefined;
  readonly #warn = (message: string): void => void this.emit('warning', message);

  /** @throws TypeError when an option is invalid (the message names it and the value). */
  constructor(options: TaskClientOptions) {
    super();
    const o = (this.#options = resolveConfig(options));
    const emitInput = (event: InputRequiredEvent): boolean => this.emit('inputRequired', event);
    const listenerCount = (): number => this.listenerCount('inputRequired');
    const refresh = refreshFromToolList((bounds) => this.#modern.listTools(bounds)); // -32020 → tools/list, one re-send
    const pipeline = new RequestPipeline(
      o,
      () => listenerCount() > 0,
      (n) => this.emit('notification', n),
      refresh,
      (d) => this.emit('serverViolation', d),
    );
    this.#modern = new ModernBackend(o, pipeline, {
      emitInput,
      listenerCount,
      warning: (m) => this.emit('warning', m),
    });
    this.#scheduler = new PollScheduler({
      maxConcurrentPolls: o.limits.maxConcurrentPolls,
      jitterRatio: o.polling.jitterRatio,
      autoPoll: o.polling.mode !== 'manual',
      now: o.now,
    });
    this.#push =
      o.polling.mode === 'push'
        ? createPushTracker(
            o.transport,
            () => pipeline.currentMeta(),
            (e) => this.emit('warning', `push: ${String(e)}`),
          )
        : undefined;
    const legacyHost = {
      clientInfo: o.clientInfo,
      handlers: o.handlers,
      emitInput,
      listenerCount,
      warning: (m: string) => void this.emit('warning', m),
      timeoutMs: o.timeoutMs,
      abortGraceMs: o.limits.abortGraceMs,
      traceContext: o.traceContext,
      spanOwner: o.transport,
    };
    this.#router = new EraRouter(o.transport, o.era, legacyHost, (signal) =>
      pipeline.send(METHODS.discover, {}, { signal }),
    );
    this.#tracker = new TaskTracker(o, this.#scheduler, this.#push, {
      inputRequired: emitInput,
      warning: (m) => this.emit('warning', m),
      expiring: (e) => this.emit('expiring', e),
      serverViolation: (d) => this.emit('serverViolation', d),
      task: (h) => this.emit('task', h),
    });
  }

  /** @internal A listener about no task failed: a `warning` (a failing `warning` listener is dropped: nowhere left). */
  protected override listenerFailed(error: unknown, event: string): void {
    if (event !== 'warning') this.#warn(`a '${event}' listener threw: ${String(error)}`);
  }

  /** The protocol era of the server, once known: `modern` (2026-07-28) or `legacy` (2025-11-25, official SDK 1.x). */
  get era(): Era | undefined {
    return this.#router.era;
  }

  /** The protocol version in use (after any -32022 renegotiation). */
  get protocolVersion(): string {
    return this.era === 'legacy' ? LEGACY_PROTOCOL_VERSION : this.#modern.protocolVersion;
  }

  /**
   * `server/discover`: versions, capabilities (tasks under `extensions`), instructions, server info.
   * (https://modelcontextprotocol.io/specification/2026-07-28/server/discover)
   * @throws {@link RequestTimeoutError} (`timeoutMs`), {@link NetworkError} (`notSent`: nothing reached the server), {@link HttpError}, {@link StreamEndedError},
   *   {@link ResponseTooLargeError}, {@link InvalidResponseError}, {@link McpError} (the server's JSON-RPC error), {@link UnsupportedProtocolVersionError},
   *   {@link AuthorizationRequiredError}, {@link AuthorizationError}, {@link ServerExitedError} (stdio), {@link ClientClosedError}; `signal.reason` on abort.
   */
  discover(options: RequestOptions = {}): Promise<DiscoverResult> {
    return this.#run(
      'discover',
      options,
      (b, signal) => b.discover({ ...guardProgress('discover', options, this.#warn), signal }),
      RequestOptionsSchema,
    );
  }

  /**
   * `tools/list`, following `nextCursor` (at most 100 pages). Tools with invalid `x-mcp-header` annotations are
   * dropped with a `warning` event. The list is kept for `Mcp-Param-*` headers.
   * (https://modelcontextprotocol.io/specification/2026-07-28/server/tools#listing-tools)
   * @throws {@link RequestTimeoutError} (`timeoutMs`), {@link NetworkError} (`notSent`: nothing reached the server), {@link HttpError}, {@link StreamEndedError},
   *   {@link ResponseTooLargeError}, {@link InvalidResponseError}, {@link McpError} (the server's JSON-RPC error), {@link UnsupportedProtocolVersionError},
   *   {@link AuthorizationRequiredError}, {@link AuthorizationError}, {@link ServerExitedError} (stdio), {@link ClientClosedError}; `signal.reason` on abort.
   */
  listTools(options: RequestOptions = {}): Promise<Tool[]> {
    return this.#run(
      'listTools',
      options,
      async (b, signal) => {
        const tools = await b.listTools({ ...guardProgress('tools/list', options, this.#warn), signal });
        this.#outputs.set(tools);
        return tools;
      },
      RequestOptionsSchema,
    );
  }

  /**
   * Calls a tool and resolves with its final result, whether the server answered inline, with MRTR rounds, or
   * with a task. A result with `isError: true` is returned, not thrown. (https://modelcontextprotocol.io/specification/2026-07-28/server/tools#calling-tools;
   * https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-creation)
   * @throws TypeError (an unknown option key, or a duration option breaking the rule of docs/guide.md § Durations), {@link TaskFailedError}, {@link TaskCancelledError} (the server reported `cancelled`), {@link TaskExpiredError},
   *   {@link TaskNotFoundError}, {@link InputDeliveryError}, {@link InputRequiredError} (no handler), {@link TooManyRoundsError},
   *   {@link OutcomeUnknownError} (a creation lost in flight), {@link CancelDeliveryError} (an abort's `tasks/cancel` not delivered);
   *   {@link InvalidResponseError} and the abort reason / {@link ClientClosedError} carry `taskId` when a task was started;
   *   the request errors: {@link RequestTimeoutError} (`timeoutMs`; `notSent` when nothing was written), {@link NetworkError} (`notSent`: nothing reached the server), {@link HttpError}, {@link StreamEndedError},
   *   {@link ResponseTooLargeError}, {@link InvalidResponseError}, {@link McpError} (the server's JSON-RPC error), {@link UnsupportedProtocolVersionError},
   *   {@link AuthorizationRequiredError}, {@link AuthorizationError}, {@link ServerExitedError} (stdio), {@link ClientClosedError}; `signal.reason` on abort;
   *   {@link OutputValidationError} when `structuredContent` does not match the tool's `outputSchema` (known from `listTools`) or the call's `schema`.
   */
  callTool<S extends StandardSchemaV1>(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallOptions<TypedCallToolResult<S>> & { schema: S },
  ): Promise<TypedCallToolResult<S>>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: CallOptions<CallToolResult>,
  ): Promise<CallToolResult>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options: CallOptions<never> = {},
  ): Promise<CallToolResult | TypedCallToolResult<StandardSchemaV1>> {
    const call = toolCall(this.#options.idempotencyKeyIn, name, args, options as CallOptions<CallToolResult>);
    return this.#callAndWait<CallToolResult>(
      METHODS.callTool,
      call.params,
      call.options,
      this.#checkOf(name, options),
    );
  }

  /** The check of `name`'s result the call's options ask for (`schema`, `validateOutput`), if any. */
  #checkOf(name: string, options: { schema?: StandardSchemaV1; validateOutput?: boolean }) {
    return outputCheck(name, this.#outputs, options.validateOutput !== false, options.schema);
  }

  /**
   * Like {@link callTool}, but resolves as soon as the outcome is known: the result, or a task handle (`handle.result()`).
   * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-creation)
   * @throws TypeError (an unknown option key, a duration breaking the rule), {@link InputRequiredError}, {@link TooManyRoundsError}, {@link OutcomeUnknownError}, {@link CancelDeliveryError}, {@link InvalidResponseError} (`taskCancel`),
   *   {@link RequestTimeoutError} (`notSent`), {@link NetworkError} (`notSent`), {@link HttpError}, {@link StreamEndedError}, {@link McpError}, {@link ClientClosedError}; the abort reason and {@link ClientClosedError} carry `taskId` when a task was started.
   */
  startTool<S extends StandardSchemaV1>(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallOptions<TypedCallToolResult<S>> & { schema: S },
  ): Promise<CallStart<TypedCallToolResult<S>>>;
  startTool(
    name: string,
    args?: Record<string, unknown>,
    options?: CallOptions<CallToolResult>,
  ): Promise<CallStart<CallToolResult>>;
  startTool(
    name: string,
    args?: Record<string, unknown>,
    options: CallOptions<never> = {},
  ): Promise<CallStart<CallToolResult> | CallStart<TypedCallToolResult<StandardSchemaV1>>> {
    const call = toolCall(this.#options.idempotencyKeyIn, name, args, options as CallOptions<CallToolResult>);
    return this.#start<CallToolResult>(
      METHODS.callTool,
      call.params,
      call.options,
      this.#checkOf(name, options),
    );
  }

  /**
   * `resources/read`, resolved to its final result (inline, MRTR or task).
   * (https://modelcontextprotocol.io/specification/2026-07-28/server/resources#reading-resources)
   * @throws as {@link callTool}: TypeError (an unknown option key, a bad duration), {@link TaskFailedError}, {@link TaskCancelledError}, {@link TaskExpiredError}, {@link TaskNotFoundError}, {@link InputDeliveryError}, {@link InputRequiredError}, {@link TooManyRoundsError}, {@link OutcomeUnknownError}, {@link CancelDeliveryError}, {@link InvalidResponseError}, {@link RequestTimeoutError} (`notSent`), {@link NetworkError} (`notSent`), {@link HttpError}, {@link StreamEndedError}, {@link ResponseTooLargeError}, {@link McpError}, {@link ClientClosedError}; `signal.reason` on abort.
   */
  readResource(uri: string, options: CallOptions<ReadResourceResult> = {}): Promise<ReadResourceResult> {
    return this.#callAndWait<ReadResourceResult>(METHODS.readResource, { uri }, options);
  }

  /**
   * `prompts/get`, resolved to its final result (inline, MRTR or task).
   * (https://modelcontextprotocol.io/specification/2026-07-28/server/prompts#getting-a-prompt)
   * @throws as {@link callTool}: TypeError (an unknown option key, a bad duration), {@link TaskFailedError}, {@link TaskCancelledError}, {@link TaskExpiredError}, {@link TaskNotFoundError}, {@link InputDeliveryError}, {@link InputRequiredError}, {@link TooManyRoundsError}, {@link OutcomeUnknownError}, {@link CancelDeliveryError}, {@link InvalidResponseError}, {@link RequestTimeoutError} (`notSent`), {@link NetworkError} (`notSent`), {@link HttpError}, {@link StreamEndedError}, {@link ResponseTooLargeError}, {@link McpError}, {@link ClientClosedError}; `signal.reason` on abort.
   */
  getPrompt(
    name: string,
    args?: Record<string, string>,
    options: CallOptions<GetPromptResult> = {},
  ): Promise<GetPromptResult> {
    return this.#callAndWait<GetPromptResult>(
      METHODS.getPrompt,
      args ? { name, arguments: args } : { name },
      options,
    );
  }

  /**
   * Sends any request with `_meta` added and resolves with its raw `result` (no `resultType` dispatch).
   * (https://modelcontextprotocol.io/specification/2026-07-28/basic)
   * @throws {@link RequestTimeoutError} (`timeoutMs`), {@link NetworkError} (`notSent`: nothing reached the server), {@link HttpError}, {@link StreamEndedError},
   *   {@link ResponseTooLargeError}, {@link InvalidResponseError}, {@link McpError} (the server's JSON-RPC error), {@link UnsupportedProtocolVersionError},
   *   {@link AuthorizationRequiredError}, {@link AuthorizationError}, {@link ServerExitedError} (stdio), {@link ClientClosedError}; `signal.reason` on abort.
   */
  request(
    method: string,
    params: Record<string, unknown> = {},
    options: RequestOptions = {},
  ): Promise<Record<string, unknown>> {
    return this.#run(
      method,
      options,
      (b, signal) => b.request(method, params, { ...guardProgress(method, options, this.#warn), signal }),
      RequestOptionsSchema,
      true, // one request at a time: the transport times it on this call's link
    );
  }

  /**
   * Attaches to a task created elsewhere (another process, a stored id): one `tasks/get` now, then polling. Its
   * expiry comes from the local clock: receipt time + `ttlMs` − the age the server reports.
   *
   * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling)
   * @throws TypeError for an empty `taskId`; {@link TaskNotFoundError} / {@link TaskExpiredError} when the server does not know it;
   *   the request errors of {@link callTool} ({@link RequestTimeoutError}, {@link NetworkError}, {@link ClientClosedError}, …).
   */
  async task<T = CallToolResult>(taskId: string, options: AttachOptions = {}): Promise<TaskHandle<T>> {
    if (typeof taskId !== 'string' || taskId.length === 0)
      throw new TypeError(
        `TaskClient.task: taskId must be a non-empty string, got ${JSON.stringify(taskId)}`,
      );
    return this.#run(
      'task',
      options,
      (b) => this.#tracker.attach<T>(b, taskId, options),
      AttachOptionsSchema,
    );
  }

  /**
   * Re-attaches to a stored task of this server after a restart: answered keys are remembered, a stored terminal
   * outcome is returned as it is, and a task the server lost is reported (its record updated).
   *
   * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling: "persist task IDs")
   * @throws TypeError without a `store`; {@link TaskNotFoundError} when the store has no such task; {@link ClientClosedError}.
   */
  async resume<T = CallToolResult>(taskId: string): Promise<TaskHandle<T>> {
    const store = this.#requireStore('resume');
    const record = await store.get(taskId, this.#options.transport.serverKey);
    if (!record) throw new TaskNotFoundError(taskId, 'unknown');
    return this.#tracker.restore<T>(this.#modern, record);
  }

  /**
   * Re-attaches to every stored task of this server without a terminal outcome (a requested but unconfirmed cancel
   * included). Tasks whose TTL passed while nobody watched come back settled with `TaskExpiredError`.
   * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling)
   * @throws TypeError without a `store`; {@link ClientClosedError}.
   */
  async resumeAll<T = CallToolResult>(): Promise<Array<TaskHandle<T>>> {
    const store = this.#requireStore('resumeAll');
    const records = (await store.list()).filter(
      (r) => r.server === this.#options.transport.serverKey && !r.outcome,
    );
    return records.map((r) => this.#tracker.restore<T>(this.#modern, r));
  }

  /**
   * Polls every task that is due now and resolves with the next due time (epoch ms), or `undefined`.
   * For serverless hosts with `autoPoll: false`. Never rejects: a failed poll reaches its handle (`error` event / `result()`).
   * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling)
   */
  tick(): Promise<number | undefined> {
    return this.#scheduler.tick();
  }

  /**
   * Stops polling and closes the transport. A call whose request is still in flight ends as if aborted: its answer is
   * read for at most `abortGraceMs`, a task it names gets `tasks/cancel` (or is recorded, with `onAbort: 'detach'`),
   * and the call rejects with {@link ClientClosedError} carrying that `taskId` (`outcomeUnknown` when no answer came);
   * close() waits for this, at most 2 × `abortGraceMs`. Every call waiting on a task rejects with
   * {@link ClientClosedError} carrying its `taskId` (the task may still run on the server: `resume` it later from a
   * store); later answers are dropped, not sent. With a store, close() then waits for the last record writes and
   * lease releases, at most `RECORD_FLUSH_WAIT_MS` (10 s): past it a `warning` names each task whose write or
   * release the store has not finished.
   * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
   */
  async close(): Promise<void> {
    // Calls in flight end like an abort (their late tasks cancelled or recorded) before anything else closes.
    await this.#calls.close(2 * this.#options.limits.abortGraceMs);
    this.#push?.close(); // push closes first
    await this.#fleet?.stop(); // the fleet releases its leases before polling stops
    this.#scheduler.close();
    await this.#tracker.close();
    await this.#router.close();
    await this.#options.transport.close();
  }

  #run<R>(
    where: string,
    options: { signal?: AbortSignal },
    op: (backend: EraBackend, signal: AbortSignal) => Promise<R>,
    schema: z.ZodType = CallOptionsSchema,
    oneRequest = false,
  ): Promise<R> {
    const bad = callOptionsError(`TaskClient ${where}`, schema, options); // an unknown option or a duration breaking the rule: TypeError, nothing sent
    return bad
      ? Promise.reject(bad)
      : this.#calls.run(
          options.signal,
          (signal) => this.#router.run(this.#modern, (backend) => op(backend, signal), signal),
          oneRequest,
        );
  }

  #requireStore(method: string): TaskStore {
    if (!this.#options.store)
      throw new TypeError(`TaskClient.${method}: no store was configured (option "store")`);
    if (this.#calls.closed) throw new ClientClosedError();
    return this.#options.store;
  }

  /** Sends the call on the era's backend; a task goes to the engine (recorded first, then followed). */
  #start<T>(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions<T>,
    check?: (result: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<CallStart<T>> {
    return this.#run(method, options, (backend, signal) =>
      startCall<T>(this.#tracker, backend, method, params, { ...options, signal }, this.#warn, check),
    );
  }

  async #callAndWait<T>(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions<T>,
    check?: (result: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<T> {
    const total = options.maxTotalTimeoutMs;
    if (total === undefined) {
      // No total budget: the call's link follows the caller's signal itself, and the task's wait races it directly
      // (one listener on a signal however many waits share it). Nothing of ours lives as long as the task.
      const start = await this.#start<T>(method, params, options, check);
      return start.resultType === 'complete'
        ? start.result
        : this.#tracker.waitFor(start.task, options.signal, options.onAbort);
    }
    const link = linkAbort(options.signal, total, () =>
      ownAbortReason(new RequestTimeoutError(method, total ?? 0)),
    );
    try {
      const start = await this.#start<T>(method, params, { ...options, signal: link.signal }, check);
      return start.resultType === 'complete'
        ? start.result
        : await this.#tracker.waitFor(start.task, link.signal, options.onAbort);
    } finally {
      link.dispose();
    }
  }

  /**
   * Runs this client as one fleet worker on a shared store with leases (`RedisTaskStore`): claims due tasks,
   * follows them, renews its leases, records outcomes once and releases, and takes over a dead worker's tasks.
   * See docs/fleet.md; https://github.com/modelcontextprotocol/ext-tasks
   * @throws TypeError when the store has no leases.
   */
  runFleet(options: FleetOptions = {}): FleetRunner {
    const store = fleetStoreOf(this.#options.store, 'runFleet');
    const client = this as unknown as FleetClient; // its public task API, typed as the fleet sees it
    return (this.#fleet = new FleetRunner(client, store, this.#options.transport.serverKey, options));
  }

  /**
   * The outcome of a task that any fleet worker follows, resolved from the store once the lease holder records it.
   * @throws {@link TaskNotFoundError}, {@link TaskExpiredError}, {@link TaskFailedError}, {@link TaskCancelledError};
   *   TypeError without a store with leases.
   */
  resultOf<T = CallToolResult>(taskId: string, options: ResultOfOptions = {}): Promise<T> {
    const o = this.#options;
    const store = fleetStoreOf(o.store, 'resultOf');
    return resultOf<T>(store, o.transport.serverKey, o.now, taskId, options, this.#fleet);
  }
}
