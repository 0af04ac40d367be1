/**
 * The 2025-11-25 era through the official SDK 1.x client: `initialize` and the session are the SDK's; tasks are
 * requested for tools whose `execution.taskSupport` is `required` or `optional`; `ttl`/`pollInterval` become
 * `ttlMs`/`pollIntervalMs`; the blocking `tasks/result` is read in the background, and the elicitation requests a
 * server sends on it come out as the same `inputRequired` events as in the modern era, the host's answer going back
 * as the response to that request. Our scheduler still polls `tasks/get`, so the server's interval stays a floor.
 *
 * @module
 */
import type { ClientInfo } from '../protocol/client-info.js';
import { DEFAULT_ABORT_GRACE_MS, withAbortGrace } from '../tasks/abort-grace.js';
import { answerRound } from '../tasks/input-round.js';
import { InvalidResponseError } from '../errors.js';
import type { BackendRequestOptions, EraBackend, StartOptions, StartResult } from '../tasks/backend.js';
import type { TaskOps } from '../tasks/task-handle.js';
import { INPUT_METHODS, LEGACY_PROTOCOL_VERSION, METHODS } from '../protocol/constants.js';
import { InputRequestSchema, type InputResponse, type InputResponses } from '../protocol/input.js';
import { ToolSchema, type DiscoverResult, type Tool } from '../protocol/results.js';
import type { DetailedTask } from '../protocol/tasks.js';
import { parseCreatedTask } from '../tasks/created-task.js';
import type { InputHandlers, InputRequiredEvent } from '../tasks/input-broker.js';
import type { TaskHandle } from '../tasks/task-handle.js';
import type { TransportTarget } from '../transport/transport.js';
import { createSdkTransport } from './sdk-transport.js';
import { unanswerable } from './unanswerable.js';
import {
  fromSdkError,
  loadSdk,
  type SdkClient,
  type SdkRequestOptions,
  type SdkSchemas,
} from './sdk-client.js';

/** What the legacy backend needs from its `TaskClient`. */
export interface LegacyHost {
  clientInfo: ClientInfo | undefined;
  handlers: InputHandlers | undefined;
  emitInput(event: InputRequiredEvent): void;
  listenerCount(): number;
  /** Reports a request nobody could answer (the client's `warning` event). */
  warning?(message: string): void;
  /** Per-request time budget when a call gives none, ms. */
  timeoutMs?: number;
  /** How long a task-augmented `tools/call` is still read after an abort or `close()`, ms. @default DEFAULT_ABORT_GRACE_MS */
  abortGraceMs?: number;
}

/** Per-request options the backend honours. */
export type LegacyRequestOptions = Pick<BackendRequestOptions, 'signal' | 'timeoutMs' | 'onProgress'>;

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
/** `tasks/result` blocks until the task ends; its own time budget is the task's, not a request's. */
const RESULT_TIMEOUT_MS = 2_147_483_647;

interface LegacyTaskState {
  handle?: TaskHandle<unknown>;
  /** The memoised `tasks/result`: the final result, or the failed task's JSON-RPC error. */
  final?: Promise<
    { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } }
  >;
  readonly abort: AbortController;
  readonly pending: Map<string, (response: InputResponse) => void>;
}

/** A session with one 2025-11-25 server. */
export class LegacyBackend implements EraBackend {
  readonly era = 'legacy' as const;
  readonly questionsOutOfBand = true;
  readonly protocolVersion = LEGACY_PROTOCOL_VERSION;
  readonly ops: TaskOps;
  readonly #sdk: SdkClient;
  readonly #schemas: SdkSchemas;
  readonly #host: LegacyHost;
  readonly #tasks = new Map<string, LegacyTaskState>();
  readonly #tools = new Map<string, Tool & { execution?: { taskSupport?: string } }>();
  #seq = 0;

  private constructor(sdk: SdkClient, schemas: SdkSchemas, host: LegacyHost) {
    this.#sdk = sdk;
    this.#schemas = schemas;
    this.#host = host;
    this.ops = {
      getTask: (taskId) => this.#getTask(taskId),
      updateTask: async (taskId, inputResponses) => this.#answer(taskId, inputResponses),
      cancelTask: async (taskId) => {
        await this.#call(METHODS.tasksCancel, () => this.#sdk.experimental.tasks.cancelTask(taskId));
      },
    };
  }

  /**
   * Connects (the SDK runs `initialize`) and registers the handlers for server-to-client requests.
   *
   * @throws {@link UnsupportedProtocolVersionError} without the SDK; the SDK's connection errors, mapped.
   */
  static async connect(
    target: TransportTarget,
    host: LegacyHost,
    release?: () => Promise<void>,
  ): Promise<LegacyBackend> {
    const sdk = await loadSdk();
    const capabilities: Record<string, unknown> = { elicitation: { form: {} } };
    if (host.handlers?.sampling) capabilities.sampling = {};
    if (host.handlers?.roots) capabilities.roots = {};
    const client = sdk.createClient(
      host.clientInfo ?? { name: 'mcp-tasks-client', version: '0' },
      capabilities,
    );
    const backend = new LegacyBackend(client, sdk.schemas, host);
    const route =
      (method: string) => (request: { params?: Record<string, unknown> }, extra: { signal?: AbortSignal }) =>
        backend.#onServerRequest(method, request.params ?? {}, extra.signal);
    client.setRequestHandler(sdk.schemas.ElicitRequestSchema, route(INPUT_METHODS.elicitation));
    if (host.handlers?.sampling)
      client.setRequestHandler(sdk.schemas.CreateMessageRequestSchema, route(INPUT_METHODS.sampling));
    if (host.handlers?.roots)
      client.setRequestHandler(sdk.schemas.ListRootsRequestSchema, route(INPUT_METHODS.roots));
    try {
      await client.connect(await createSdkTransport(target, release));
    } catch (error) {
      throw fromSdkError('initialize', error);
    }
    return backend;
  }

  /** A `DiscoverResult` built from what `initialize` returned. */
  async discover(): Promise<DiscoverResult> {
    return {
      resultType: 'complete',
      supportedVersions: [LEGACY_PROTOCOL_VERSION],
      capabilities: { ...this.#sdk.getServerCapabilities() },
      serverInfo: this.#sdk.getServerVersion(),
      instructions: this.#sdk.getInstructions(),
    };
  }

  /** `tools/list`, all pages; remembers each tool's `execution.taskSupport`. */
  async listTools(options: LegacyRequestOptions = {}): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const result = await this.request(METHODS.listTools, cursor ? { cursor } : {}, options);
      for (const entry of Array.isArray(result.tools) ? result.tools : []) {
        const parsed = ToolSchema.safeParse(entry);
        if (parsed.success) tools.push(parsed.data);
      }
      cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
      if (!cursor) break;
    }
    this.#tools.clear();
    for (const tool of tools) this.#tools.set(tool.name, tool);
    return tools;
  }

  /**
   * Calls a tool: as a task when its `taskSupport` is `required` or `optional` (legacy clients must opt in),
   * inline otherwise. Returns the inline result or the new task. A task-augmented call aborted (or closed) after it
   * was sent is still read for `abortGraceMs`: a task it names comes back with `aborted` and the abort reason, for
   * the engine to cancel with `tasks/cancel` (2025-11-25 basic/utilities/cancellation: not `notifications/cancelled`).
   *
   * @throws the abort reason; {@link OutcomeUnknownError} (or {@link ClientClosedError} with `outcomeUnknown`) when
   *   no answer came within the grace; {@link McpError}, {@link NetworkError}, {@link HttpError},
   *   {@link InvalidResponseError} as mapped from the SDK.
   */
  async startTool(
    params: Record<string, unknown>,
    options: LegacyRequestOptions = {},
  ): Promise<
    { result: Record<string, unknown> } | { task: DetailedTask; aborted: boolean; abortReason?: unknown }
  > {
    // Re-list when the tool is unknown: servers may add tools after `initialize` (server-everything registers its
    // task tools once it has seen the client's capabilities) or announce them with `list_changed`.
    if (!this.#tools.has(String(params.name))) await this.listTools(options);
    const support = this.#tools.get(String(params.name))?.execution?.taskSupport;
    const { _meta: _, ...plain } = params;
    if (support !== 'required' && support !== 'optional')
      return { result: await this.request(METHODS.callTool, plain, options) };
    const sent = await withAbortGrace(
      METHODS.callTool,
      (abort) =>
        this.#call(METHODS.callTool, () =>
          this.#sdk.request(
            { method: METHODS.callTool, params: plain },
            this.#schemas.CreateTaskResultSchema,
            { ...this.#options({ ...options, signal: abort?.signal }), task: {} },
          ),
        ),
      options.signal,
      this.#host.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS,
    );
    const task = parseCreatedTask(METHODS.callTool, sent.value);
    this.#tasks.set(task.taskId, this.#state(task.taskId));
    return { task, aborted: sent.aborted, abortReason: sent.abortReason };
  }

  /** A call in this era: tools may become tasks (followed by the engine); other methods answer inline. */
  async start(method: string, params: Record<string, unknown>, options: StartOptions): Promise<StartResult> {
    const o = { signal: options.signal, timeoutMs: options.timeoutMs, onProgress: options.onProgress };
    // `task: 'forbid'`: the call goes without its `task` field, so the server answers inline (or refuses).
    if (method !== METHODS.callTool || options.task === 'forbid')
      return { resultType: 'complete', result: await this.request(method, params, o) };
    const started = await this.startTool(params, o);
    if ('result' in started) return { resultType: 'complete', result: started.result };
    return {
      resultType: 'task',
      created: { resultType: 'task', ...started.task },
      aborted: started.aborted,
      abortReason: started.abortReason,
    };
  }

  /** Any request through the SDK session; the raw result. */
  async request(
    method: string,
    params: Record<string, unknown>,
    options: LegacyRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const { _meta: _, ...plain } = params;
    return this.#call(method, () =>
      this.#sdk.request({ method, params: plain }, this.#schemas.ResultSchema, this.#options(options)),
    );
  }

  /** Routes a legacy server's elicitation for `handle`'s task to that handle. */
  track(handle: TaskHandle<unknown>): void {
    const state = this.#tasks.get(handle.taskId) ?? this.#state(handle.taskId);
    state.handle = handle;
    this.#tasks.set(handle.taskId, state);
    const forget = (): void => this.#forget(handle.taskId);
    handle.result().then(forget, forget);
  }

  /** Ends the session. */
  async close(): Promise<void> {
    for (const state of this.#tasks.values()) state.abort.abort();
    this.#tasks.clear();
    await this.#sdk.close().catch(() => undefined);
  }

  #state(taskId: string): LegacyTaskState {
    return this.#tasks.get(taskId) ?? { abort: new AbortController(), pending: new Map() };
  }

  #forget(taskId: string): void {
    this.#tasks.get(taskId)?.abort.abort();
    this.#tasks.delete(taskId);
  }

  #options(options: LegacyRequestOptions): SdkRequestOptions {
    const out: SdkRequestOptions = {};
    if (options.signal) out.signal = options.signal;
    const timeoutMs = options.timeoutMs ?? this.#host.timeoutMs;
    if (timeoutMs !== undefined) out.timeout = timeoutMs;
    const onProgress = options.onProgress;
    if (onProgress) out.onprogress = (p) => onProgress({ progressToken: 'legacy', ...p });
    return out;
  }

  async #call<T>(method: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw fromSdkError(method, error);
    }
  }

  /** `tasks/get`, mapped to a modern `DetailedTask`; terminal results come from the memoised `tasks/result`. */
  async #getTask(taskId: string): Promise<Record<string, unknown>> {
    const task = await this.#call(METHODS.tasksGet, () => this.#sdk.experimental.tasks.getTask(taskId));
    const state = this.#tasks.get(taskId) ?? this.#state(taskId);
    this.#tasks.set(taskId, state);
    const status = task.status;
    if (status === 'input_required') {
      this.#final(taskId, state); // the server delivers its questions on the tasks/result stream
      return { ...task, inputRequests: {} };
    }
    if (status !== 'completed' && status !== 'failed') return task;
    const final = await this.#final(taskId, state);
    return 'result' in final
      ? { ...task, status: 'completed', result: final.result }
      : { ...task, status: 'failed', error: final.error };
  }

  #final(taskId: string, state: LegacyTaskState): NonNullable<LegacyTaskState['final']> {
    state.final ??= this.#sdk.experimental.tasks
      .getTaskResult(taskId, this.#schemas.ResultSchema, {
        signal: state.abort.signal,
        timeout: RESULT_TIMEOUT_MS,
      })
      .then(
        (result) => ({ result }),
        (error: unknown) => {
          const mapped = fromSdkError('tasks/result', error);
          if (mapped instanceof Error && 'code' in mapped && typeof mapped.code === 'number') {
            const { code, message, data } = mapped as Error & { code: number; data?: unknown };
            return {
              error: {
                code,
                message: message.replace(/^tasks\/result failed: /, '').replace(/ \(JSON-RPC -?\d+\)$/, ''),
                data,
              },
            };
          }
          state.final = undefined; // a transport failure: try again on the next poll
          throw mapped;
        },
      );
    return state.final;
  }

  /** Delivers answers to the elicitation requests waiting for them. */
  #answer(taskId: string, inputResponses: InputResponses): void {
    const pending = this.#tasks.get(taskId)?.pending;
    for (const [key, response] of Object.entries(inputResponses)) {
      const resolve = pending?.get(key);
      if (!resolve)
        throw new InvalidResponseError(METHODS.tasksUpdate, `no open question "${key}" for task ${taskId}`);
      pending?.delete(key);
      resolve(response);
    }
  }

  /**
   * A server-to-client request: to the task's handle when related to a task, else to the client's listeners; one
   * nobody can answer is refused at once with a JSON-RPC error (see `./unanswerable.ts`), never left waiting.
   *
   * @throws {@link InputRequiredError} when nobody can answer (the SDK turns it into the JSON-RPC error reply).
   */
  async #onServerRequest(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const { _meta: meta, ...rest } = params;
    const request = InputRequestSchema.parse({ method, params: rest });
    const key = `${method}#${++this.#seq}`;
    const relatedTaskId = ((meta as Record<string, { taskId?: unknown }> | undefined)?.[RELATED_TASK]
      ?.taskId ?? undefined) as string | undefined;
    const state = relatedTaskId !== undefined ? this.#tasks.get(relatedTaskId) : undefined;
    const refused = unanswerable(this.#host, method, key, relatedTaskId, state?.handle);
    if (refused) throw refused;
    if (!state?.handle) {
      const answers = await answerRound({
        method: METHODS.callTool,
        inputRequests: { [key]: request },
        handlers: this.#host.handlers,
        emit: (event) => this.#host.emitInput(event),
        listenerCount: () => this.#host.listenerCount(),
        signal,
      });
      return answers[key];
    }
    const answer = new Promise<InputResponse>((resolve, reject) => {
      state.pending.set(key, resolve);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    state.handle.offerInput({ [key]: request });
    return answer;
  }
}
