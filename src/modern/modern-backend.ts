/**
 * The 2026-07-28 backend: our own request pipeline (`_meta`, headers, -32022 renegotiation), MRTR rounds, idempotent
 * creation retry, and reading a creation response past a caller's abort. Returns new tasks to the engine raw.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr;
 * https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-creation)
 *
 * @module
 * @internal
 */
import { InvalidResponseError, MAX_LIST_PAGES, PaginationError, TooManyRoundsError } from '../errors.js';
import { METHODS, MRTR_METHODS } from '../protocol/constants.js';
import { printableExcerpt } from '../protocol/printable.js';
import type { InputResponses } from '../protocol/input.js';
import {
  DiscoverResultSchema,
  InputRequiredResultSchema,
  ListToolsResultSchema,
  ToolSchema,
  type DiscoverResult,
  type Tool,
} from '../protocol/results.js';
import type {
  BackendRequestOptions,
  EraBackend,
  EraHost,
  StartOptions,
  StartResult,
} from '../tasks/backend.js';
import { answerRound } from '../tasks/input-round.js';
import type { TaskOps } from '../tasks/task-handle.js';
import { withAbortGrace } from '../tasks/abort-grace.js';
import { abortRequested } from '../internal/abort.js';
import { sendCreation } from './creation-retry.js';
import type { EngineConfig } from '../tasks/config.js';
import { invalidHeaderReason, paramHeaders } from './param-headers.js';
import type { RequestPipeline } from './request-pipeline.js';
import { WRITE_CHECK } from '../transport/transport.js';

type Schema<T> = {
  safeParse(
    v: unknown,
  ): { success: true; data: T } | { success: false; error: { issues: unknown[]; message: string } };
};

/** Checks a result of a method without MRTR or tasks: only `complete` (or no `resultType`) is valid there. */
function validate<T>(method: string, schema: Schema<T>, value: unknown): T {
  const resultType = (value as { resultType?: unknown } | null)?.resultType;
  if (resultType !== undefined && resultType !== 'complete')
    throw new InvalidResponseError(method, `unexpected resultType ${shownType(resultType)} for ${method}`);
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new InvalidResponseError(
    method,
    `result does not match the schema: ${parsed.error.message.slice(0, 300)}`,
    parsed.error.issues,
  );
}

/** A server's `resultType` as an error message shows it: JSON, cut at 40 characters, unprintable characters escaped. */
function shownType(resultType: unknown): string {
  return printableExcerpt(JSON.stringify(resultType) ?? String(resultType), 40);
}

/** The 2026-07-28 era. */
export class ModernBackend implements EraBackend {
  readonly era = 'modern' as const;
  readonly questionsOutOfBand = false;
  readonly ops: TaskOps;
  readonly #options: EngineConfig;
  readonly #pipeline: RequestPipeline;
  readonly #host: EraHost;
  readonly #tools = new Map<string, Tool>();

  constructor(options: EngineConfig, pipeline: RequestPipeline, host: EraHost) {
    this.#options = options;
    this.#pipeline = pipeline;
    this.#host = host;
    this.ops = {
      getTask: (taskId, writeCheck) =>
        pipeline.send(METHODS.tasksGet, { taskId }, writeCheck ? { [WRITE_CHECK]: writeCheck } : {}),
      updateTask: async (taskId, inputResponses) => {
        await pipeline.send(METHODS.tasksUpdate, { taskId, inputResponses });
      },
      cancelTask: async (taskId) => {
        await pipeline.send(METHODS.tasksCancel, { taskId });
      },
    };
  }

  get protocolVersion(): string {
    return this.#pipeline.protocolVersion;
  }

  async discover(options: BackendRequestOptions): Promise<DiscoverResult> {
    return validate(
      METHODS.discover,
      DiscoverResultSchema,
      await this.#pipeline.send(METHODS.discover, {}, options),
    );
  }

  request(
    method: string,
    params: Record<string, unknown>,
    options: BackendRequestOptions,
  ): Promise<Record<string, unknown>> {
    return this.#pipeline.send(method, params, options);
  }

  /**
   * `tools/list`, following `nextCursor`; invalid `x-mcp-header` tools dropped with a warning.
   * @throws {@link PaginationError} when a `nextCursor` repeats (at once) or past {@link MAX_LIST_PAGES} pages.
   */
  async listTools(options: BackendRequestOptions): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    const seen = new Set<string>();
    for (let page = 1; ; page++) {
      if (page > MAX_LIST_PAGES) throw new PaginationError(METHODS.listTools, 'too-many-pages', page - 1);
      const result = validate(
        METHODS.listTools,
        ListToolsResultSchema,
        await this.#pipeline.send(METHODS.listTools, cursor ? { cursor } : {}, options),
      );
      for (const entry of result.tools) {
        const parsed = ToolSchema.safeParse(entry);
        const reason = parsed.success ? invalidHeaderReason(parsed.data) : 'not a valid tool definition';
        if (!parsed.success || reason) {
          this.#host.warning(
            `tools/list: dropped tool ${JSON.stringify((entry as { name?: unknown })?.name)}: ${reason}`,
          );
          continue;
        }
        tools.push(parsed.data);
      }
      cursor = result.nextCursor;
      if (!cursor) break;
      if (seen.has(cursor)) throw new PaginationError(METHODS.listTools, 'repeated-cursor', page);
      seen.add(cursor);
    }
    this.#tools.clear();
    for (const tool of tools) this.#tools.set(tool.name, tool);
    return tools;
  }

  /** Sends the request and runs MRTR rounds until the final result or a task. */
  async start(method: string, params: Record<string, unknown>, options: StartOptions): Promise<StartResult> {
    const o = this.#options;
    const call = params.arguments as Record<string, unknown> | undefined;
    const headers =
      method === METHODS.callTool
        ? { ...paramHeaders(this.#tools.get(String(params.name)), call), ...options.headers }
        : options.headers;
    const caller = options.signal;
    let retry: { inputResponses?: InputResponses; requestState?: string } = {};
    let inFlight = false;
    for (let round = 0; ; round++) {
      const sent = await withAbortGrace(
        method,
        (own) =>
          sendCreation(
            async () => {
              const requested = abortRequested(caller); // held back during the abort grace, or landed
              if (requested) throw requested.reason; // never send a new attempt after the caller gave up
              inFlight = true;
              try {
                return await this.#pipeline.send(method, round === 0 ? params : { ...params, ...retry }, {
                  ...options,
                  headers,
                  signal: own,
                });
              } finally {
                inFlight = false;
              }
            },
            {
              method,
              mayResend: () => this.#mayResend(method, params, options, own),
              retry: o.creationRetry,
              signal: own,
            },
          ),
        caller,
        o.limits.abortGraceMs,
        () => inFlight,
      );
      const result = sent.value;
      const resultType = result.resultType ?? 'complete';
      if (resultType === 'task' && o.taskMethods.includes(method))
        return { resultType: 'task', created: result, aborted: sent.aborted, abortReason: sent.abortReason };
      if (sent.aborted) {
        // Nothing was left running on the server; but a complete answer means the work ran: never silent.
        if (resultType === 'complete') {
          const name = typeof params.name === 'string' ? ` ${printableExcerpt(params.name, 100)}` : '';
          this.#host.warning(
            `${method}${name}: the server answered after the call was aborted: the work ran to completion; the call rejects with the abort reason and the result is dropped`,
          );
        }
        throw sent.abortReason;
      }
      if (resultType === 'complete') return { resultType: 'complete', result };
      if (resultType !== 'input_required' || !MRTR_METHODS.includes(method))
        throw new InvalidResponseError(
          method,
          `unexpected resultType ${shownType(resultType)} for ${method}`,
        );
      if (round >= o.limits.maxInputRounds) throw new TooManyRoundsError(method, round);
      const parsed = InputRequiredResultSchema.safeParse(result);
      if (!parsed.success)
        throw new InvalidResponseError(method, 'malformed input_required result', parsed.error.issues);
      const { inputRequests = {}, requestState } = parsed.data;
      const inputResponses = await answerRound({
        method,
        inputRequests,
        handlers: o.handlers,
        emit: (event) => this.#host.emitInput(event),
        listenerCount: () => this.#host.listenerCount(),
        signal: caller,
      });
      // Only the latest answers and state, echoed byte-exact; none when none came.
      retry = {};
      if (Object.keys(inputResponses).length > 0) retry.inputResponses = inputResponses;
      if (requestState !== undefined) retry.requestState = requestState;
    }
  }

  /** Nothing to track: questions arrive in `tasks/get`. */
  track(): void {}

  async close(): Promise<void> {}

  /**
   * Whether a lost creation request may be re-sent: reads always; a tool call with a key, or a tool hinted safe. The
   * `tools/list` it may need runs within the call's budget: its `timeoutMs` and its signal (caller and total budget).
   */
  async #mayResend(
    method: string,
    params: Record<string, unknown>,
    options: StartOptions,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    if (method !== METHODS.callTool || options.idempotencyKey !== undefined) return true;
    if (this.#tools.size === 0)
      await this.listTools({ signal, timeoutMs: options.timeoutMs }).catch(() => undefined);
    const hints = this.#tools.get(String(params.name))?.annotations;
    return hints?.idempotentHint === true || hints?.readOnlyHint === true;
  }
}
