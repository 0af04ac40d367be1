/**
 * Sending one request: a fresh id, the full `_meta`, progress routing by token, and protocol version
 * renegotiation on -32022.
 *
 * @module
 * @internal
 */
import { McpError, UnsupportedProtocolVersionError } from '../errors.js';
import { ErrorCode, METHODS, PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/constants.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';
import { ProgressParamsSchema } from '../protocol/results.js';
import { abortRequested } from '../internal/abort.js';
import { endWhenSettled, loadTelemetry, startRequestSpan } from '../internal/telemetry.js';
import { type TransportRequestOptions, WRITE_CHECK, type WriteCheckCarrier } from '../transport/transport.js';
import { headersAfterMismatch, isParamHeaderMismatch, type RefreshParamHeaders } from './header-mismatch.js';
import { buildCapabilities, buildMeta, declaresTasks } from './meta.js';
import { checkTaskReplyResultType } from './task-replies.js';
import type { EngineConfig, RequestOptions } from '../tasks/config.js';

function withoutMeta(params: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _, ...rest } = params;
  return rest;
}

/** {@link RequestOptions} plus the engine's send-time check and the Tasks capability choice. */
export interface PipelineOptions extends RequestOptions, WriteCheckCarrier {
  /** `'forbid'`: the Tasks extension is left out of this request's capabilities. */
  task?: 'allow' | 'forbid';
}

/** Builds and sends requests for one client. */
export class RequestPipeline {
  readonly #options: EngineConfig;
  readonly #answersByEvent: () => boolean;
  readonly #onNotification: (notification: JsonRpcNotification) => void;
  readonly #refreshParamHeaders: RefreshParamHeaders | undefined;
  readonly #onViolation: ((detail: string) => void) | undefined;
  #nextId = 1;
  #nextProgressToken = 1;
  #protocolVersion = PROTOCOL_VERSION;
  /** The last `_meta` built without caller extras, reused while the version and capabilities stay the same. */
  #metaCache:
    | { version: string; answersByEvent: boolean; tasks: boolean; meta: Record<string, unknown> }
    | undefined;

  /**
   * @param refreshParamHeaders - on a -32020 to `tools/call`: refreshes `tools/list` and rebuilds the call's
   *   `Mcp-Param-*` headers for one re-send. Without it a -32020 is surfaced as it is.
   * @param onViolation - where a transport reports a malformed message it skipped (the `serverViolation` event).
   */
  constructor(
    options: EngineConfig,
    answersByEvent: () => boolean,
    onNotification: (notification: JsonRpcNotification) => void,
    refreshParamHeaders?: RefreshParamHeaders,
    onViolation?: (detail: string) => void,
  ) {
    this.#onViolation = onViolation;
    this.#options = options;
    void loadTelemetry(); // OpenTelemetry spans, when the optional peer is installed
    this.#answersByEvent = answersByEvent;
    this.#onNotification = onNotification;
    this.#refreshParamHeaders = refreshParamHeaders;
  }

  /** The version sent in `_meta` and the `MCP-Protocol-Version` header. */
  get protocolVersion(): string {
    return this.#protocolVersion;
  }

  /**
   * Sends `method` and resolves with its raw `result`. On -32022 it re-sends once per supported version that this
   * client speaks, with a new id. On a -32020 to `tools/call` it refreshes `tools/list` and re-sends once with
   * rebuilt `Mcp-Param-*` headers; a second -32020 is surfaced. Neither is re-sent once an abort of `signal` is
   * requested (held back during a creation's abort grace): the error is surfaced as it came.
   *
   * @throws {@link McpError}, {@link UnsupportedProtocolVersionError}, transport errors, `signal.reason`.
   */
  async send(
    method: string,
    params: Record<string, unknown>,
    options: PipelineOptions = {},
  ): Promise<Record<string, unknown>> {
    let resent: Set<string> | undefined; // built only on a -32022, not per request
    let headerRetried = false;
    for (;;) {
      const version = this.#protocolVersion;
      try {
        return checkTaskReplyResultType(method, await this.#sendOnce(method, params, options));
      } catch (error) {
        // The caller gave up (an abort held back while a creation's answer is read): nothing is sent again, so the
        // server's refusal stands and the abort ends the call.
        if (abortRequested(options.signal)) throw error;
        if (!headerRetried && this.#refreshParamHeaders && isParamHeaderMismatch(method, error)) {
          headerRetried = true;
          const headers = await headersAfterMismatch(this.#refreshParamHeaders, params, options.headers, {
            signal: options.signal,
            timeoutMs: options.timeoutMs,
          });
          if (headers === undefined) throw error;
          options = { ...options, headers };
          continue;
        }
        if (!(error instanceof McpError) || error.code !== ErrorCode.UnsupportedProtocolVersion) throw error;
        const data = (error.data ?? {}) as { supported?: unknown };
        const supported = Array.isArray(data.supported)
          ? data.supported.filter((v): v is string => typeof v === 'string')
          : [];
        const next = SUPPORTED_PROTOCOL_VERSIONS.find((v) => supported.includes(v) && !resent?.has(v));
        if (next === undefined)
          throw new UnsupportedProtocolVersionError(version, supported, { cause: error });
        (resent ??= new Set()).add(next);
        this.#protocolVersion = next;
      }
    }
  }

  /** One attempt. Not async: `send` awaits it inside its `try`, which also catches a synchronous throw. */
  #sendOnce(
    method: string,
    params: Record<string, unknown>,
    options: PipelineOptions,
  ): Promise<Record<string, unknown>> {
    const o = this.#options;
    const progressToken = options.onProgress ? `progress-${this.#nextProgressToken++}` : undefined;
    const callerMeta = (params as { _meta?: Record<string, unknown> })._meta;
    // The params without their own `_meta` (copied below either way; a rest pattern only when there is one to drop).
    const rest = Object.hasOwn(params, '_meta') ? withoutMeta(params) : params;
    const message: JsonRpcRequest = {
      jsonrpc: '2.0',
      id: this.#nextId++,
      method,
      params: { ...rest, _meta: this.#meta(method, callerMeta, options.meta, progressToken, options.task) },
    };
    const sent: TransportRequestOptions & WriteCheckCarrier = {
      signal: options.signal,
      timeoutMs: options.timeoutMs ?? o.timeoutMs,
      headers: options.headers,
      [WRITE_CHECK]: options[WRITE_CHECK], // the store's poll fence on the task's lease, run before the write
      onViolation: this.#onViolation, // a malformed event on the response stream, skipped
      onNotification: (notification) => {
        if (notification.method === METHODS.progress && progressToken !== undefined) {
          const progress = ProgressParamsSchema.safeParse(notification.params);
          if (progress.success && progress.data.progressToken === progressToken) {
            options.onProgress?.(progress.data);
            return;
          }
        }
        this.#onNotification(notification);
      },
    };
    const sentParams = message.params as Record<string, unknown>;
    const url = (o.transport as { url?: unknown }).url;
    const span = startRequestSpan(
      method,
      message.id,
      rest,
      sentParams._meta as Record<string, unknown>,
      {
        protocolVersion: this.#protocolVersion,
        url: url === undefined ? undefined : String(url),
        owner: o.transport,
      },
      o.traceContext,
    );
    if (span === undefined) return o.transport.request(message, sent);
    sentParams._meta = span.meta;
    return endWhenSettled(span, o.transport.request(message, sent));
  }

  /** The `_meta` a plain request carries now (protocol version, capabilities, client info). */
  currentMeta(method: string = METHODS.tasksGet): Record<string, unknown> {
    return this.#meta(method, undefined, undefined, undefined, undefined);
  }

  /**
   * `_meta` for one request. Without caller extras (every poll) the same frozen object is reused until the protocol
   * version or the capabilities change, so a poll does not rebuild it; it is only ever serialised.
   */
  #meta(
    method: string,
    callerMeta: Record<string, unknown> | undefined,
    optionMeta: Record<string, unknown> | undefined,
    progressToken: string | undefined,
    task: 'allow' | 'forbid' | undefined,
  ): Record<string, unknown> {
    const o = this.#options;
    const answersByEvent = this.#answersByEvent();
    const tasks = task !== 'forbid' && declaresTasks(method, o.taskMethods);
    const plain = callerMeta === undefined && optionMeta === undefined && progressToken === undefined;
    const cached = this.#metaCache;
    if (
      plain &&
      cached &&
      cached.version === this.#protocolVersion &&
      cached.answersByEvent === answersByEvent &&
      cached.tasks === tasks
    )
      return cached.meta;
    // The Tasks extension is declared only where a task result is accepted (taskMethods, tasks/*).
    const capabilities = buildCapabilities({
      declared: o.capabilities,
      handlers: o.handlers,
      answersByEvent,
      method,
      taskMethods: tasks ? o.taskMethods : [],
    });
    const extra: Record<string, unknown> = { ...callerMeta, ...optionMeta };
    if (progressToken !== undefined) extra.progressToken = progressToken;
    const meta = buildMeta(this.#protocolVersion, capabilities, o.clientInfo, extra);
    if (plain)
      this.#metaCache = { version: this.#protocolVersion, answersByEvent, tasks, meta: Object.freeze(meta) };
    return meta;
  }
}
