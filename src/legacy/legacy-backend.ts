/**
 * The 2025-11-25 era over our own session (`./session.ts`: `initialize`, `Mcp-Session-Id`, the server's own
 * requests) on our own channels (`./http-channel.ts` for Streamable HTTP, the stdio target's channel); tasks are
 * requested for tools whose `execution.taskSupport` is `required` or `optional`; `ttl`/`pollInterval` become
 * `ttlMs`/`pollIntervalMs`; the blocking `tasks/result` is read in the background, and the elicitation requests a
 * server sends on it come out as the same `inputRequired` events as in the modern era, the host's answer going back
 * as the response to that request. Our scheduler still polls `tasks/get`, so the server's interval stays a floor.
 *
 * @module
 */
import { keepCreatingSpan, type TraceContextMode } from '../internal/telemetry.js';
import type { ClientInfo } from '../protocol/client-info.js';
import { DEFAULT_ABORT_GRACE_MS, withAbortGrace } from '../tasks/abort-grace.js';
import { answerRound } from '../tasks/input-round.js';
import { InvalidResponseError, McpClientError, McpError, NetworkError } from '../errors.js';
import type {
  BackendRequestOptions,
  EraBackend,
  EraHost,
  StartOptions,
  StartResult,
} from '../tasks/backend.js';
import type { TaskOps } from '../tasks/task-handle.js';
import { INPUT_METHODS, LEGACY_PROTOCOL_VERSION, METHODS } from '../protocol/constants.js';
import { InputRequestSchema, type InputResponse, type InputResponses } from '../protocol/input.js';
import { ToolSchema, type DiscoverResult, type Tool } from '../protocol/results.js';
import type { DetailedTask } from '../protocol/tasks.js';
import { parseCreatedTask } from '../tasks/created-task.js';
import type { InputHandlers } from '../tasks/input-broker.js';
import type { TaskHandle } from '../tasks/task-handle.js';
import type { JsonRpcChannel } from '../transport/channel.js';
import type { TransportTarget } from '../transport/transport.js';
import { HttpSessionChannel } from './http-channel.js';
import { LegacySession, type SessionRequestOptions } from './session.js';
import { unanswerable } from './unanswerable.js';

/** What the legacy backend needs from its `TaskClient`: what every era backend reports, and the session's settings. */
export interface LegacyHost extends EraHost {
  clientInfo: ClientInfo | undefined;
  handlers: InputHandlers | undefined;
  /** Per-request time budget when a call gives none, ms. */
  timeoutMs?: number;
  /** How long a task-augmented `tools/call` is still read after an abort or `close()`, ms. @default DEFAULT_ABORT_GRACE_MS */
  abortGraceMs?: number;
  /** What trace context each request carries in `params._meta` when its span records. @default true */
  traceContext?: TraceContextMode;
  /** The client's transport: the key under which its tasks' spans are found (see `registerTaskSpan`). */
  spanOwner?: object;
}

/** Per-request options the backend honours. */
export type LegacyRequestOptions = Pick<BackendRequestOptions, 'signal' | 'timeoutMs' | 'onProgress'>;

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
/** The 2025-11-25 method that blocks until a task ends and answers with its result (no such method in 2026-07-28). */
const LEGACY_TASKS_RESULT = 'tasks/result';
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
  readonly #session: LegacySession;
  readonly #host: LegacyHost;
  readonly #tasks = new Map<string, LegacyTaskState>();
  readonly #tools = new Map<string, Tool & { execution?: { taskSupport?: string } }>();
  #seq = 0;

  private constructor(session: LegacySession, host: LegacyHost) {
    this.#session = session;
    this.#host = host;
    this.ops = {
      getTask: (taskId, writeCheck) => this.#getTask(taskId, writeCheck),
      updateTask: async (taskId, inputResponses) => this.#answer(taskId, inputResponses),
      cancelTask: async (taskId) => {
        await this.#session.request(METHODS.tasksCancel, { taskId }, this.#options({}));
      },
    };
  }

  /**
   * Opens the session (`initialize`, then `notifications/initialized`) on a channel built from `target`, and answers
   * the server's requests from then on.
   *
   * @param release - called (not awaited) before a stdio channel starts its own process: lets the modern transport
   *   end the process it started for the `server/discover` probe.
   * @throws {@link UnsupportedProtocolVersionError} when the server negotiates a version this client does not speak;
   *   the channel's errors ({@link HttpError}, {@link NetworkError}, {@link McpError}, {@link ServerExitedError});
   *   TypeError for a stdio target that cannot open a channel.
   */
  static async connect(
    target: TransportTarget,
    host: LegacyHost,
    release?: () => Promise<void>,
  ): Promise<LegacyBackend> {
    const capabilities: Record<string, unknown> = { elicitation: { form: {} } };
    const answers = new Set<string>([INPUT_METHODS.elicitation]);
    if (host.handlers?.sampling) {
      capabilities.sampling = {};
      answers.add(INPUT_METHODS.sampling);
    }
    if (host.handlers?.roots) {
      capabilities.roots = {};
      answers.add(INPUT_METHODS.roots);
    }
    let backend: LegacyBackend | undefined;
    const session = await LegacySession.open(await openChannel(target, release), {
      clientInfo: host.clientInfo ?? { name: 'mcp-tasks-client', version: '0' },
      capabilities,
      answers,
      // Requests arrive only after `initialize` answered, by which time the backend exists.
      onRequest: (method, params, signal) =>
        (backend as LegacyBackend).#onServerRequest(method, params, signal),
      warning: host.warning ? (message) => host.warning?.(message) : undefined,
      timeoutMs: host.timeoutMs,
      url: target.kind === 'http' ? String(target.url) : undefined,
      traceContext: host.traceContext,
      spanOwner: host.spanOwner,
    });
    backend = new LegacyBackend(session, host);
    return backend;
  }

  /** A `DiscoverResult` built from what `initialize` returned. */
  async discover(): Promise<DiscoverResult> {
    const identity = this.#session.identity;
    return {
      resultType: 'complete',
      supportedVersions: [LEGACY_PROTOCOL_VERSION],
      capabilities: { ...identity.capabilities },
      serverInfo: identity.serverInfo,
      instructions: identity.instructions,
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
   *   {@link InvalidResponseError}, {@link StreamEndedError}, {@link RequestTimeoutError} from the session.
   */
  async startTool(
    params: Record<string, unknown>,
    options: LegacyRequestOptions = {},
  ): Promise<
    | { result: Record<string, unknown> }
    | { task: DetailedTask; reply: Record<string, unknown>; aborted: boolean; abortReason?: unknown }
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
      // `task: {}` asks for a task with the server's own ttl (2025-11-25 basic/utilities/tasks § Creating Tasks)
      (signal) =>
        this.#session.request(
          METHODS.callTool,
          { ...plain, task: {} },
          this.#options({ ...options, signal }),
        ),
      options.signal,
      this.#host.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS,
    );
    const task = parseCreatedTask(METHODS.callTool, sent.value);
    this.#tasks.set(task.taskId, this.#state(task.taskId));
    return { task, reply: sent.value, aborted: sent.aborted, abortReason: sent.abortReason };
  }

  /** A call in this era: tools may become tasks (followed by the engine); other methods answer inline. */
  async start(method: string, params: Record<string, unknown>, options: StartOptions): Promise<StartResult> {
    const o = { signal: options.signal, timeoutMs: options.timeoutMs, onProgress: options.onProgress };
    // `task: 'forbid'`: the call goes without its `task` field, so the server answers inline (or refuses).
    if (method !== METHODS.callTool || options.task === 'forbid')
      return { resultType: 'complete', result: await this.request(method, params, o) };
    const started = await this.startTool(params, o);
    if ('result' in started) return { resultType: 'complete', result: started.result };
    const created = { resultType: 'task', ...started.task };
    keepCreatingSpan(started.reply, created); // the task's span links to the span of the tools/call that created it
    return {
      resultType: 'task',
      created,
      aborted: started.aborted,
      abortReason: started.abortReason,
    };
  }

  /** Any request through the session; the raw result. */
  async request(
    method: string,
    params: Record<string, unknown>,
    options: LegacyRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const { _meta: _, ...plain } = params;
    return this.#session.request(method, plain, this.#options(options));
  }

  /** Routes a legacy server's elicitation for `handle`'s task to that handle. */
  track(handle: TaskHandle<unknown>): void {
    const state = this.#tasks.get(handle.taskId) ?? this.#state(handle.taskId);
    state.handle = handle;
    this.#tasks.set(handle.taskId, state);
    const forget = (): void => this.#forget(handle.taskId);
    handle.whenSettled(forget);
  }

  /** Ends the session. */
  async close(): Promise<void> {
    for (const state of this.#tasks.values()) state.abort.abort();
    this.#tasks.clear();
    await this.#session.close();
  }

  #state(taskId: string): LegacyTaskState {
    return this.#tasks.get(taskId) ?? { abort: new AbortController(), pending: new Map() };
  }

  #forget(taskId: string): void {
    this.#tasks.get(taskId)?.abort.abort();
    this.#tasks.delete(taskId);
  }

  #options(options: LegacyRequestOptions): SessionRequestOptions {
    const out: SessionRequestOptions = {};
    if (options.signal) out.signal = options.signal;
    const timeoutMs = options.timeoutMs ?? this.#host.timeoutMs;
    if (timeoutMs !== undefined) out.timeoutMs = timeoutMs;
    const onProgress = options.onProgress;
    if (onProgress) out.onProgress = (p) => onProgress({ progressToken: 'legacy', ...p });
    return out;
  }

  /** `tasks/get`, mapped to a modern `DetailedTask`; terminal results come from the memoised `tasks/result`. */
  async #getTask(taskId: string, writeCheck?: () => void): Promise<Record<string, unknown>> {
    writeCheck?.(); // the task's lease, checked right before the request goes to the session
    const task = await this.#session.request(METHODS.tasksGet, { taskId }, this.#options({}));
    const state = this.#tasks.get(taskId) ?? this.#state(taskId);
    this.#tasks.set(taskId, state);
    const status = task.status;
    if (status === 'input_required') {
      // The server delivers its questions on the tasks/result stream, read in the background; a failure of that
      // read (a broken stream, the session closing) is met again by the next poll, which reads it anew.
      this.#final(taskId, state).catch(() => undefined);
      return { ...task, inputRequests: {} };
    }
    if (status !== 'completed' && status !== 'failed') return task;
    const final = await this.#final(taskId, state);
    return 'result' in final
      ? { ...task, status: 'completed', result: final.result }
      : { ...task, status: 'failed', error: final.error };
  }

  #final(taskId: string, state: LegacyTaskState): NonNullable<LegacyTaskState['final']> {
    state.final ??= this.#session
      .request(LEGACY_TASKS_RESULT, { taskId }, { signal: state.abort.signal, timeoutMs: RESULT_TIMEOUT_MS })
      .then(
        (result) => ({ result }),
        (error: unknown) => {
          // The failed task's JSON-RPC error, as the server sent it (2025-11-25 tasks § Result Retrieval)
          if (error instanceof McpError)
            return { error: { code: error.code, message: error.serverMessage, data: error.data } };
          state.final = undefined; // a transport failure: try again on the next poll
          throw error;
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
   * @throws {@link InputRequiredError} when nobody can answer (the session turns it into the JSON-RPC error reply).
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

/**
 * The channel for `target`: our Streamable HTTP session channel, the stdio target's own channel (a new process with
 * the same command line, once the probe's process is released), or the caller's.
 *
 * @throws TypeError for a stdio target without `openChannel` (one not built by `StdioTransport`).
 */
async function openChannel(target: TransportTarget, release?: () => Promise<void>): Promise<JsonRpcChannel> {
  if (target.kind === 'custom') {
    try {
      return (await target.createSdkTransport()) as JsonRpcChannel;
    } catch (error) {
      throw error instanceof McpClientError ? error : new NetworkError('initialize', { cause: error });
    }
  }
  if (target.kind === 'http') return new HttpSessionChannel(target);
  if (!target.openChannel)
    throw new TypeError(
      `${METHODS.callTool}: a 2025-11-25 stdio server is reached through a StdioTransport (this target cannot start one)`,
    );
  release?.().catch(() => undefined);
  return target.openChannel();
}
