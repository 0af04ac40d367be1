/**
 * The bridge: an MCP server (the official SDK's `Server`, so a host sees an exact 2025-06-18 / 2025-11-25 server)
 * whose tools, resources and prompts are an upstream task server's, reached through a `TaskClient`. A call that
 * becomes an upstream task is followed here: progress for hosts that asked for it, questions to the host's person
 * (elicitation, sampling, roots) or declined with a note for the model, and past `maxWaitMs` a "pending" result
 * with the task tools (`task_status`, `task_result`, `task_cancel`, `task_answer`) to come back to it. Hosts that
 * speak 2025-11-25 tasks get the bridge's own task at once instead (see {@link BridgeTaskStore}).
 *
 * Spec: https://modelcontextprotocol.io/specification/2025-11-25/server/tools,
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks and
 * https://github.com/modelcontextprotocol/ext-tasks.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { isMcpClientError, type CallToolResult, type InputResponse, type TaskClient } from 'mcp-tasks-client';
import {
  hostLine,
  hostQuoted,
  TASK_TOOL_NAMES,
  TaskToolRuntime,
  type AdaptedTool,
  type TaskToolInputContext,
  type ToolOutcome,
} from 'mcp-tasks-client/tool-runtime';
import type { InputRequiredEvent } from 'mcp-tasks-client';
import {
  composedResult,
  hostResult,
  openQuestions,
  TASK_ANSWER_SCHEMA,
  TASK_ANSWER_TOOL,
  withQuestions,
} from './host-results.js';
import { HostPrompts, hostFacingTools, hostPrompt, hostResources, printableQuestion } from './host-names.js';
import { BridgeTaskStore } from './native-tasks.js';
import { ProgressPump } from './progress-pump.js';

/** Options of {@link Bridge}; the command line's flags in milliseconds. */
export interface BridgeOptions {
  /** Prepended to every tool name the host sees (upstream tools and the task tools). */
  prefix: string;
  /** How long a call without a `progressToken` waits for its task before the "pending" result, in ms. */
  maxWaitMs: number;
  /** How long a call with a `progressToken` waits (progress keeps such hosts waiting), in ms. */
  progressMaxWaitMs: number;
  /** A progress notification at least this often while nothing changes, in ms. */
  keepAliveMs: number;
  /** What the host's `notifications/cancelled` (or a disconnect) does to an upstream task. */
  onAbort: 'cancel' | 'detach';
  /** `ttl` of the bridge's own 2025-11-25 tasks when the host asks for none, in ms. */
  nativeTtlMs: number;
  /** `pollInterval` the bridge suggests for its own tasks, in ms. */
  nativePollIntervalMs: number;
  /** A line for the operator (stderr): never to the host. */
  log: (line: string) => void;
  /** How the upstream is named in errors the host sees (a URL without credentials, a config name). */
  upstream?: string;
  /** Words for an upstream failure that is not a JSON-RPC error (a refused connection…). @default its message */
  explain?: (error: unknown) => string;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** One host call in flight (or handed off as pending). */
interface CallState {
  toolName: string;
  /** The upstream task, once the call became one. */
  taskId?: string;
  /** The host's own task (2025-11-25 task-augmented call). */
  hostTaskId?: string;
  /** The call returned "pending": later questions wait for `task_answer` when the host cannot be asked. */
  pending: boolean;
  /** The host's request, while it is open (questions go out related to it). */
  requestId?: Extra['requestId'];
  /** The host cancelled its own task: cancel the upstream one as soon as it is known. */
  cancelWhenKnown?: boolean;
}

/** A question held for `task_answer`. */
interface HeldQuestion {
  resolve(response: InputResponse | undefined): void;
}

/** Upper bound for one question to the host's person (the upstream's deadline usually ends it sooner), in ms. */
const QUESTION_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** First wait before the bridge asks an unreachable upstream for its tools again, in ms (doubled each time). */
const RECOVERY_FIRST_MS = 1_000;
/** Longest wait between two such attempts, in ms. */
const RECOVERY_MAX_MS = 30_000;

/** Codes of the library's errors that say the upstream did not answer a call at all. */
const UNREACHABLE_CODES = new Set(['NETWORK_ERROR', 'OUTCOME_UNKNOWN', 'REQUEST_TIMEOUT', 'SERVER_EXITED']);

/** Upstream notifications the host gets as they come (the bridge advertises `listChanged` for all three lists). */
const RELAYED_LIST_CHANGES = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
]);

/** The bridge between one host connection and the upstream. */
export class Bridge {
  readonly server: Server;
  readonly runtime: TaskToolRuntime;
  readonly store: BridgeTaskStore;
  readonly #client: TaskClient;
  readonly #options: BridgeOptions;
  readonly #calls = new Map<string, CallState>();
  readonly #held = new Map<string, Map<string, HeldQuestion>>();
  readonly #aborts = new Set<AbortController>();
  readonly #running = new Set<Promise<unknown>>();
  readonly #prompts = new HostPrompts();
  #tools: AdaptedTool[] | undefined;
  #listed: string | undefined;
  #closed = false;
  /** The upstream did not answer a listing (down, refused, timed out): the bridge asks again until it does. */
  #down = false;
  #recoveryTimer: ReturnType<typeof setTimeout> | undefined;
  #recoveryDelayMs = RECOVERY_FIRST_MS;

  constructor(client: TaskClient, info: { name: string; version: string }, options: BridgeOptions) {
    this.#client = client;
    this.#options = options;
    this.runtime = new TaskToolRuntime(client, {
      prefix: options.prefix,
      maxWaitMs: options.maxWaitMs,
      taskTools: true,
      onAbort: options.onAbort,
      onInput: (event, context) => this.#onInput(event, context),
    });
    this.store = new BridgeTaskStore((taskId) => this.#hostCancelled(taskId));
    this.server = new Server(info, {
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true },
        prompts: { listChanged: true },
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      taskStore: this.store,
      taskMessageQueue: new InMemoryTaskMessageQueue(),
    });
    this.#handlers();
    client.on('notification', this.#onNotification);
  }

  /**
   * The upstream's `notifications/tools/list_changed`: list again, and tell the host when the list changed. Its
   * prompts and resources `list_changed` are passed to the host as they are (the host lists those through the bridge).
   */
  readonly #onNotification = (notification: { method: string }): void => {
    if (!RELAYED_LIST_CHANGES.has(notification.method) || this.#closed) return;
    if (notification.method === 'notifications/prompts/list_changed')
      void this.server.sendPromptListChanged().catch(() => undefined);
    else if (notification.method === 'notifications/resources/list_changed')
      void this.server.sendResourceListChanged().catch(() => undefined);
    else
      this.#relist().catch((error: unknown) => this.#options.log(`tools/list failed: ${reasonText(error)}`));
  };

  /**
   * A listing (or a call) failed. When the upstream did not answer at all (not a JSON-RPC error of its own), the host
   * may now hold an empty or stale list and nothing would tell it when the upstream is back: the bridge asks the
   * upstream for its tools again after 1 s, 2 s, 4 s… (at most 30 s apart) until it answers.
   */
  #listingFailed(error: unknown): void {
    if (this.#closed || (isMcpClientError(error) && typeof error.code === 'number')) return;
    this.#down = true;
    if (this.#recoveryTimer !== undefined) return;
    const delayMs = this.#recoveryDelayMs;
    this.#recoveryDelayMs = Math.min(delayMs * 2, RECOVERY_MAX_MS);
    this.#recoveryTimer = setTimeout(() => {
      this.#recoveryTimer = undefined;
      // A failure schedules the next attempt (#relist reports it here); a success ends the wait.
      this.#relist().catch(() => undefined);
    }, delayMs);
    this.#recoveryTimer.unref?.();
  }

  /**
   * A listing succeeded. After the upstream was unreachable, the host is told that its tools, prompts and resources
   * lists changed (it may have kept an empty one, or one from before the upstream restarted) so it lists again.
   */
  #listingAnswered(): void {
    if (!this.#down || this.#closed) return;
    this.#down = false;
    this.#recoveryDelayMs = RECOVERY_FIRST_MS;
    if (this.#recoveryTimer !== undefined) clearTimeout(this.#recoveryTimer);
    this.#recoveryTimer = undefined;
    this.#options.log(
      `upstream ${this.#options.upstream !== undefined ? `${hostLine(this.#options.upstream)} ` : ''}answers again: the host was told to list its tools, prompts and resources again`,
    );
    void this.server.sendToolListChanged().catch(() => undefined);
    void this.server.sendPromptListChanged().catch(() => undefined);
    void this.server.sendResourceListChanged().catch(() => undefined);
  }

  /**
   * Ends the host side: calls still waiting are aborted (their upstream tasks cancelled, or left recorded with
   * `detach`), and the bridge waits for that before it returns.
   */
  async close(reason = 'the host disconnected'): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#client.off('notification', this.#onNotification);
    if (this.#recoveryTimer !== undefined) clearTimeout(this.#recoveryTimer);
    for (const controller of this.#aborts) controller.abort(new Error(reason));
    for (const held of this.#held.values()) for (const q of held.values()) q.resolve(undefined);
    await Promise.allSettled([...this.#running]);
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#running.add(work);
    const forget = (): void => void this.#running.delete(work);
    work.then(forget, forget);
    return work;
  }

  #handlers(): void {
    const s = this.server;
    s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await this.#listForHost() }));
    s.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.#track(this.#call(request.params, extra)),
    );
    s.setRequestHandler(ListResourcesRequestSchema, (r, extra) =>
      this.#forward('resources/list', r.params, extra, hostResources),
    );
    s.setRequestHandler(ListResourceTemplatesRequestSchema, (r, extra) =>
      this.#forward('resources/templates/list', r.params, extra, hostResources),
    );
    s.setRequestHandler(ReadResourceRequestSchema, async (r, extra) => {
      try {
        return await this.#client.readResource(r.params.uri, { signal: extra.signal });
      } catch (error) {
        throw extra.signal.aborted ? jsonRpcError(error) : this.#unreachable(error, 'resources/read');
      }
    });
    s.setRequestHandler(ListPromptsRequestSchema, (r, extra) =>
      this.#forward('prompts/list', r.params, extra, (listed) => this.#prompts.list(listed)),
    );
    s.setRequestHandler(GetPromptRequestSchema, async (r, extra) => {
      try {
        const { name, arguments: args } = this.#prompts.upstream(r.params.name, r.params.arguments);
        return hostPrompt(await this.#client.getPrompt(name, args, { signal: extra.signal }));
      } catch (error) {
        throw extra.signal.aborted ? jsonRpcError(error) : this.#unreachable(error, 'prompts/get');
      }
    });
  }

  /**
   * A list request passed to the upstream as it is (its cursor included), the answer passed back with its texts and
   * names as the host may see them (`shape`).
   */
  async #forward(
    method: string,
    params: unknown,
    extra: Extra,
    shape: (listed: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const { _meta, ...rest } = (params ?? {}) as Record<string, unknown>;
    let listed: Record<string, unknown>;
    try {
      listed = await this.#client.request(method, rest, { signal: extra.signal });
    } catch (error) {
      if (extra.signal.aborted) throw jsonRpcError(error);
      this.#listingFailed(error);
      throw this.#unreachable(error, method);
    }
    this.#listingAnswered();
    // Titles, descriptions and names reach the host's model and UI escaped, as the tools' do.
    return shape(listed);
  }

  async #adapted(): Promise<AdaptedTool[]> {
    if (this.#tools) return this.#tools;
    return this.#relist();
  }

  /** Lists the upstream's tools again; tells the host when they differ from the last listing. */
  async #relist(): Promise<AdaptedTool[]> {
    let listed;
    try {
      listed = await this.#client.listTools();
    } catch (error) {
      this.#listingFailed(error);
      throw this.#unreachable(error);
    }
    // After the upstream was unreachable the host is told once, by #listingAnswered.
    const recovered = this.#down;
    this.#listingAnswered();
    const key = JSON.stringify(listed);
    const changed = this.#listed !== undefined && this.#listed !== key;
    this.#listed = key;
    // Names and texts the host can show and call; each tool still calls upstream under its own name.
    this.#tools = hostFacingTools(this.#adapt(listed), [this.#options.prefix + TASK_ANSWER_TOOL]);
    if (changed && !recovered) await this.server.sendToolListChanged().catch(() => undefined);
    return this.#tools;
  }

  /**
   * The runtime's tools for `listed`. @throws the host's error when two would have one name: an upstream tool named
   * like a task tool (`--prefix` goes before both, so it cannot separate them) or two upstream tools of one name.
   */
  #adapt(listed: Parameters<TaskToolRuntime['adapt']>[0]): AdaptedTool[] {
    try {
      return this.runtime.adapt(listed);
    } catch (error) {
      const taskTools = new Set<string>(Object.values(TASK_TOOL_NAMES));
      const seen = new Set<string>();
      const clash = listed.find((t) => taskTools.has(t.name));
      const twice = listed.find((t) => seen.has(t.name) || !seen.add(t.name));
      const why = clash
        ? `it lists a tool named ${hostQuoted(clash.name)}, the name of one of the bridge's task tools (--prefix goes before both)`
        : twice
          ? `it lists two tools named ${hostQuoted(twice.name)}`
          : hostLine(reasonText(error));
      throw hostError(
        ErrorCode.InternalError,
        `the tools of the upstream server ${this.#options.upstream !== undefined ? `${hostLine(this.#options.upstream)} ` : ''}cannot be shown here: ${why}, so a call under that name could not be told apart. Rename the tool on the server.`,
      );
    }
  }

  /**
   * A failed upstream `method` (`tools/list`, or a prompts or resources request passed on) as the host's error: the
   * upstream's own JSON-RPC error as it is; otherwise (it is down, refused the connection, timed out) a message naming
   * the upstream, the request and why, and saying the bridge runs on.
   */
  #unreachable(error: unknown, method = 'tools/list'): Error {
    if (isMcpClientError(error) && typeof error.code === 'number') return jsonRpcError(error);
    const why = (this.#options.explain ?? reasonText)(error);
    const again = method === 'tools/list' ? 'list the tools again' : `send ${method} again`;
    return hostError(
      ErrorCode.InternalError,
      `the upstream server ${this.#options.upstream !== undefined ? `${hostLine(this.#options.upstream)} ` : ''}did not answer ${method}: ${hostLine(why)} The bridge keeps running: ${again} once the upstream is up.`,
    );
  }

  /** The tools as the host sees them: the upstream's definitions as listed (renamed with `--prefix`). */
  async #listForHost(): Promise<Record<string, unknown>[]> {
    const tools = await this.#relist();
    const listed: Record<string, unknown>[] = tools.map((t) => {
      if (!t.serverTool) return { name: t.name, description: t.description, inputSchema: t.inputSchema };
      // The host-facing task is the bridge's, whatever the upstream declares: any call may become one here.
      return { ...t.serverTool, name: t.name, execution: { taskSupport: 'optional' } };
    });
    listed.push({
      name: this.#options.prefix + TASK_ANSWER_TOOL,
      description:
        'Answers a question a task asked after its tool returned a pending result (the key, message and fields come from task_status or task_result).',
      inputSchema: TASK_ANSWER_SCHEMA,
    });
    return listed;
  }

  async #call(
    params: { name: string; arguments?: Record<string, unknown>; task?: { ttl?: number } },
    extra: Extra,
  ): Promise<Record<string, unknown>> {
    if (this.#closed) throw hostError(ErrorCode.ConnectionClosed, 'the bridge is closing');
    const name = params.name;
    if (name === this.#options.prefix + TASK_ANSWER_TOOL) return this.#answer(params.arguments);
    // Registered before anything is sent upstream, so a host that goes away now still stops this call.
    const abort = new AbortController();
    this.#aborts.add(abort);
    let handedOver = false;
    try {
      let tool = (await this.#adapted()).find((t) => t.name === name);
      if (!tool) tool = (await this.#relist()).find((t) => t.name === name);
      if (!tool) throw hostError(ErrorCode.InvalidParams, `Unknown tool: ${hostLine(name)}`);
      if (abort.signal.aborted) throw jsonRpcError(abort.signal.reason);
      if (!tool.serverTool) return await this.#taskTool(tool, params.arguments, extra);
      handedOver = true;
      if (params.task) return await this.#startHostTask(tool, params.arguments, params.task, abort);
      return await this.#runForHost(tool, params.arguments, extra, abort);
    } finally {
      if (!handedOver) this.#aborts.delete(abort);
    }
  }

  /** A plain `tools/call`: followed here, with progress, until its outcome or a pending hand-off. */
  async #runForHost(
    tool: AdaptedTool,
    args: Record<string, unknown> | undefined,
    extra: Extra,
    abort: AbortController,
  ): Promise<CallToolResult> {
    const token = extra._meta?.progressToken;
    const pump =
      token !== undefined
        ? new ProgressPump(token, (n) => extra.sendNotification(n), this.#options.keepAliveMs)
        : undefined;
    const callId = randomUUID();
    const state: CallState = { toolName: tool.sourceName, pending: false, requestId: extra.requestId };
    this.#calls.set(callId, state);
    const onHostAbort = (): void =>
      abort.abort(extra.signal.reason ?? new Error('the host cancelled the call'));
    extra.signal.addEventListener('abort', onHostAbort, { once: true });
    const started = Date.now();
    try {
      let outcome = await tool.run(args, {
        signal: abort.signal,
        toolCallId: callId,
        onUpdate: (update) => {
          if (update.taskId !== undefined && state.taskId === undefined) state.taskId = update.taskId;
          pump?.status(update.statusMessage ?? update.status ?? update.progress?.message);
        },
      });
      // A call the upstream did not answer: it may come back with other tools, and the host should hear of it.
      const cause = outcome.kind === 'error' ? outcome.error.cause : undefined;
      if (isMcpClientError(cause) && UNREACHABLE_CODES.has(String(cause.code))) this.#listingFailed(cause);
      const budget = token !== undefined ? this.#options.progressMaxWaitMs : this.#options.maxWaitMs;
      outcome = await this.#waitLonger(outcome, budget - (Date.now() - started), abort.signal, pump);
      if (outcome.kind === 'pending') {
        // Later questions of a handed-off task are held for task_answer until it ends
        state.pending = true;
        const forget = (): void => void this.#calls.delete(callId);
        const entry = await this.runtime.registry
          .find(this.#client, outcome.pending.taskId)
          .catch(() => undefined);
        if (entry) entry.handle.result().then(forget, forget);
        else forget();
      } else this.#calls.delete(callId);
      return hostResult(outcome, tool.serverTool?.outputSchema !== undefined, state.taskId);
    } catch (error) {
      this.#calls.delete(callId);
      if (abort.signal.aborted) {
        this.#options.log(
          `call of ${hostLine(tool.sourceName)} stopped (${reasonText(abort.signal.reason)})${state.taskId ? `; task ${state.taskId} ${this.#options.onAbort === 'cancel' ? 'cancelled' : 'left running and recorded'}` : ''}`,
        );
      }
      throw jsonRpcError(error);
    } finally {
      pump?.stop();
      state.requestId = undefined;
      extra.signal.removeEventListener('abort', onHostAbort);
      this.#aborts.delete(abort);
    }
  }

  /**
   * Keeps waiting for a pending task while `budgetMs` lasts (in steps of `maxWaitMs`), sending its status to
   * `pump`. An abort cancels the task (unless `detach`), as the first wait does.
   */
  async #waitLonger(
    first: ToolOutcome,
    budgetMs: number,
    signal: AbortSignal,
    pump: ProgressPump | undefined,
  ): Promise<ToolOutcome> {
    let outcome = first;
    if (outcome.kind !== 'pending') return outcome;
    const entry = await this.runtime.registry.find(this.#client, outcome.pending.taskId);
    const handle = entry?.handle;
    const onStatus = (): void => pump?.status(handle?.task.statusMessage ?? handle?.status);
    handle?.on('status', onStatus);
    const resultTool = this.#tools?.find((t) => t.sourceName === TASK_TOOL_NAMES.result && !t.serverTool);
    const until = Date.now() + budgetMs;
    try {
      while (outcome.kind === 'pending' && resultTool && Date.now() < until) {
        try {
          outcome = await resultTool.run({ taskId: outcome.pending.taskId }, { signal });
        } catch (reason) {
          if (this.#options.onAbort === 'cancel') await handle?.cancel().catch(() => undefined);
          throw reason;
        }
      }
    } finally {
      handle?.off('status', onStatus);
    }
    return outcome;
  }

  /** `task_status`, `task_result`, `task_cancel`: the runtime's tools, with the task's open questions shown. */
  async #taskTool(
    tool: AdaptedTool,
    args: Record<string, unknown> | undefined,
    extra: Extra,
  ): Promise<CallToolResult> {
    const outcome = await tool.run(args, { signal: extra.signal });
    // task_result's outcome is the upstream's result; task_status and task_cancel answer with the runtime's words.
    const result =
      tool.sourceName === TASK_TOOL_NAMES.result ? hostResult(outcome, false) : composedResult(outcome);
    const taskId = typeof args?.taskId === 'string' ? args.taskId : undefined;
    if (taskId === undefined || outcome.kind === 'error') return result;
    const entry = await this.runtime.registry.find(this.#client, taskId).catch(() => undefined);
    if (!entry) return result;
    return withQuestions(
      result,
      taskId,
      openQuestions(entry.handle),
      this.#options.prefix + TASK_ANSWER_TOOL,
    );
  }

  /** `task_answer {taskId, key, action, content}`: the answer goes upstream once. */
  async #answer(args: Record<string, unknown> | undefined): Promise<CallToolResult> {
    const taskId = typeof args?.taskId === 'string' ? args.taskId : '';
    const key = typeof args?.key === 'string' ? args.key : '';
    const action = args?.action;
    if (taskId === '' || key === '' || (action !== 'accept' && action !== 'decline' && action !== 'cancel'))
      return toolError(
        `${TASK_ANSWER_TOOL} needs {"taskId", "key", "action": "accept" | "decline" | "cancel", "content"?}; got ${hostLine(JSON.stringify(args ?? null))}.`,
      );
    const response: InputResponse = { action };
    if (action === 'accept' && args?.content && typeof args.content === 'object')
      response.content = args.content as Record<string, string | number | boolean | string[]>;
    const held = this.#held.get(taskId)?.get(key);
    if (held) {
      this.#held.get(taskId)?.delete(key);
      held.resolve(response);
      return okText(
        `The answer (${action}) to question ${hostQuoted(key)} of task ${hostQuoted(taskId)} was sent to the server.`,
      );
    }
    const entry = await this.runtime.registry.find(this.#client, taskId).catch(() => undefined);
    if (!entry)
      return toolError(`No task ${hostQuoted(taskId)} is known here, so nothing was answered.`, taskId);
    const open = openQuestions(entry.handle).some((q) => q.key === key);
    if (!open)
      return toolError(
        `Task ${hostQuoted(taskId)} has no open question ${hostQuoted(key)} (it is ${hostLine(entry.handle.status)}); nothing was sent.`,
        taskId,
      );
    try {
      const accepted = await entry.handle.respond({ [key]: response });
      if (!accepted.includes(key))
        return toolError(
          `The answer to ${hostQuoted(key)} of task ${hostQuoted(taskId)} was already given; nothing was sent.`,
          taskId,
        );
    } catch (error) {
      return toolError(
        `The answer to ${hostQuoted(key)} of task ${hostQuoted(taskId)} could not be delivered: ${hostLine(reasonText(error))}`,
        taskId,
      );
    }
    return okText(
      `The answer (${action}) to question ${hostQuoted(key)} of task ${hostQuoted(taskId)} was sent to the server.`,
    );
  }

  /**
   * A task-augmented `tools/call` (2025-11-25): the bridge's own task is created and returned at once; the call is
   * followed in the background and its record carries the upstream's status, questions and outcome.
   */
  async #startHostTask(
    tool: AdaptedTool,
    args: Record<string, unknown> | undefined,
    task: { ttl?: number },
    abort: AbortController,
  ): Promise<Record<string, unknown>> {
    const created = await this.store.createTask(
      {
        ttl: task.ttl ?? this.#options.nativeTtlMs,
        pollInterval: this.#options.nativePollIntervalMs,
      },
      randomUUID(),
      { method: 'tools/call' },
    );
    const hostTaskId = created.taskId;
    const callId = randomUUID();
    const state: CallState = { toolName: tool.sourceName, pending: false, hostTaskId };
    this.#calls.set(callId, state);
    const follow = async (): Promise<void> => {
      let outcome: ToolOutcome;
      try {
        outcome = await tool.run(args, {
          signal: abort.signal,
          toolCallId: callId,
          onUpdate: (update) => {
            if (update.taskId !== undefined && state.taskId === undefined) {
              state.taskId = update.taskId;
              if (state.cancelWhenKnown) void this.#cancelUpstream(state.taskId);
            }
            // The upstream's words, as one line the host's UI shows (and its model may read).
            const message = update.statusMessage !== undefined ? hostLine(update.statusMessage) : undefined;
            if (message !== undefined && !this.store.hostCancelled(hostTaskId))
              void this.store.updateTaskStatus(hostTaskId, 'working', message).catch(() => undefined);
          },
        });
        outcome = await this.#waitLonger(outcome, Number.POSITIVE_INFINITY, abort.signal, undefined);
      } catch (error) {
        const text = `The call to the tool "${hostLine(tool.sourceName)}" stopped: ${hostLine(reasonText(error))}`;
        await this.store.settle(hostTaskId, 'failed', toolError(text, state.taskId)).catch(() => undefined);
        return;
      } finally {
        this.#calls.delete(callId);
        this.#aborts.delete(abort);
      }
      const result = hostResult(outcome, false, state.taskId);
      const status = result.isError === true ? 'failed' : 'completed';
      const stored = await this.store.settle(hostTaskId, status, result).catch(() => false);
      if (!stored)
        this.#options.log(
          `task ${hostTaskId} (upstream ${state.taskId ?? 'none'}) was cancelled by the host; the upstream ended: ${outcome.kind === 'ok' ? 'completed' : outcome.kind === 'error' ? outcome.error.code : 'still running'}`,
        );
    };
    void this.#track(follow());
    return { task: created };
  }

  /** The host cancelled its own task: cancel the upstream one (unless `detach`) and keep following it. */
  #hostCancelled(hostTaskId: string): void {
    if (this.#options.onAbort === 'detach') return;
    for (const state of this.#calls.values()) {
      if (state.hostTaskId !== hostTaskId) continue;
      if (state.taskId !== undefined) void this.#cancelUpstream(state.taskId);
      else state.cancelWhenKnown = true;
    }
  }

  async #cancelUpstream(taskId: string): Promise<void> {
    const entry = await this.runtime.registry.find(this.#client, taskId).catch(() => undefined);
    await entry?.handle.cancel().catch((error: unknown) => {
      this.#options.log(`tasks/cancel for ${taskId} was not delivered: ${reasonText(error)}`);
    });
  }

  /**
   * An upstream question: to the host's person when the host declared the capability (elicitation, sampling,
   * roots); held for `task_answer` when its call already returned "pending".
   *
   * @throws when nobody here can answer: the runtime then declines the question (or stops the call for a request
   *   that cannot be declined) and the model reads the adapters' note.
   */
  async #onInput(
    event: InputRequiredEvent,
    context: TaskToolInputContext,
  ): Promise<InputResponse | undefined> {
    const state = context.toolCallId !== undefined ? this.#calls.get(context.toolCallId) : undefined;
    const caps = this.server.getClientCapabilities() ?? {};
    const { method } = event.request;
    const params = (event.request.params ?? {}) as Record<string, unknown>;
    const related = state?.hostTaskId
      ? { relatedTask: { taskId: state.hostTaskId } }
      : state?.requestId !== undefined
        ? { relatedRequestId: state.requestId }
        : {};
    if (!this.#closed && method === 'elicitation/create') {
      const elicitation = caps.elicitation as { form?: object; url?: object } | undefined;
      const mode = params.mode === 'url' ? 'url' : 'form';
      const declared =
        elicitation !== undefined &&
        (mode === 'url'
          ? elicitation.url !== undefined
          : elicitation.url === undefined ||
            elicitation.form !== undefined ||
            Object.keys(elicitation).length === 0);
      if (declared)
        return this.#askHost(state, () =>
          this.server.elicitInput(printableQuestion(params) as never, {
            ...related,
            timeout: QUESTION_TIMEOUT_MS,
          }),
        );
    }
    if (!this.#closed && method === 'sampling/createMessage' && caps.sampling !== undefined)
      return this.#askHost(state, () =>
        this.server.createMessage(params as never, { ...related, timeout: QUESTION_TIMEOUT_MS }),
      );
    if (method === 'roots/list')
      return caps.roots !== undefined && !this.#closed
        ? this.server.listRoots(undefined, related)
        : { roots: [] };
    if (state?.pending && state.taskId !== undefined && !this.#closed) return this.#hold(state.taskId, event);
    // Nobody here can answer: the runtime declines the question and the model reads the note.
    throw new Error(`the host cannot answer ${method}`);
  }

  async #askHost(
    state: CallState | undefined,
    ask: () => Promise<unknown>,
  ): Promise<InputResponse | undefined> {
    const hostTaskId = state?.hostTaskId;
    if (hostTaskId) await this.store.updateTaskStatus(hostTaskId, 'input_required').catch(() => undefined);
    try {
      return (await ask()) as InputResponse;
    } catch (error) {
      this.#options.log(`the host did not answer the question: ${reasonText(error)}`);
      return undefined;
    } finally {
      if (hostTaskId) await this.store.updateTaskStatus(hostTaskId, 'working').catch(() => undefined);
    }
  }

  /** Holds a question until `task_answer` (or the task's end, or the bridge's close: then it is declined). */
  #hold(taskId: string, event: InputRequiredEvent): Promise<InputResponse | undefined> {
    return new Promise((resolve) => {
      let questions = this.#held.get(taskId);
      if (!questions) this.#held.set(taskId, (questions = new Map()));
      questions.set(event.key, { resolve });
      const release = (): void => {
        if (this.#held.get(taskId)?.get(event.key)?.resolve !== resolve) return;
        this.#held.get(taskId)?.delete(event.key);
        resolve(undefined);
      };
      void this.runtime.registry
        .find(this.#client, taskId)
        .then((entry) => entry?.handle.result().then(release, release), release);
    });
  }
}

/** A tool error the host's model reads. */
function toolError(text: string, taskId?: string): CallToolResult {
  return {
    content: [{ type: 'text', text }],
    isError: true,
    ...(taskId !== undefined ? { structuredContent: { taskId } } : {}),
  };
}

function okText(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

function reasonText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

/**
 * A JSON-RPC error for the host, with the message as it is: the official SDK's `McpError` puts "MCP error <code>: " in
 * front of its message, and the host's SDK adds it again when it reads the reply, so the host would show it twice.
 * The server side of the SDK sends any thrown error's `code`, `message` and `data`.
 */
class HostRpcError extends Error {
  override readonly name = 'HostRpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

function hostError(code: number, message: string, data?: unknown): HostRpcError {
  return new HostRpcError(code, message, data);
}

/**
 * An upstream failure as the host's JSON-RPC error: the upstream's own code and message, else an internal error naming
 * the cause. The message is one escaped line (control, bidi and invisible characters and line breaks written as
 * `\x1b`, `\u202e`, `\x0a`): hosts show it after "MCP error <code>: ", where a line break would start a line that
 * seems to be the host's own.
 */
export function jsonRpcError(error: unknown): Error {
  if (error instanceof HostRpcError) return error;
  if (isMcpClientError(error) && typeof (error as { code: unknown }).code === 'number') {
    const e = error as Error & { code: number; data?: unknown };
    return hostError(e.code, hostLine(e.message), e.data);
  }
  return hostError(ErrorCode.InternalError, `upstream: ${hostLine(reasonText(error))}`);
}
