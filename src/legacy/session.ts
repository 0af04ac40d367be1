/**
 * One MCP 2025-11-25 session over a {@link JsonRpcChannel}: the `initialize` handshake (version negotiation, then
 * `notifications/initialized`), requests paired with their responses (ids, time budgets, `notifications/cancelled`
 * on an abort, `notifications/progress` to the request's `onProgress`), and the server's own requests answered on the
 * same channel (`ping`, and the methods the client declared: `elicitation/create`, `sampling/createMessage`,
 * `roots/list`). When the server forgets an HTTP session (404), a new one is started with `initialize` and the
 * request is sent again there once; the client is warned, since the tasks of the old session are gone with it.
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle;
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management;
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation)
 *
 * @module
 * @internal
 */
import {
  ClientClosedError,
  HttpError,
  InvalidResponseError,
  McpClientError,
  McpError,
  NetworkError,
  RequestTimeoutError,
  ServerExitedError,
  StreamEndedError,
  UnsupportedProtocolVersionError,
} from '../errors.js';
import { linkAbort } from '../internal/abort.js';
import {
  endWhenSettled,
  loadTelemetry,
  startRequestSpan,
  type TraceContextMode,
} from '../internal/telemetry.js';
import { ErrorCode, LEGACY_PROTOCOL_VERSION } from '../protocol/constants.js';
import { JsonRpcErrorObjectSchema, type RequestId } from '../protocol/jsonrpc.js';
import type { ChannelMessage, JsonRpcChannel } from '../transport/channel.js';

/**
 * Versions a legacy server may answer `initialize` with, newest first: 2025-11-25 (with experimental tasks) and the
 * earlier initialize-based revisions, whose servers answer plain calls the same way.
 */
export const LEGACY_VERSIONS: readonly string[] = [
  LEGACY_PROTOCOL_VERSION,
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

/** A request's time budget when neither the call nor the client gives one, ms. */
export const DEFAULT_LEGACY_TIMEOUT_MS = 60_000;

/** Progress of one request, as `notifications/progress` reported it. */
export interface SessionProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** Per-request options. */
export interface SessionRequestOptions {
  signal?: AbortSignal;
  /** @default the session's `timeoutMs`, else {@link DEFAULT_LEGACY_TIMEOUT_MS} */
  timeoutMs?: number;
  onProgress?: (progress: SessionProgress) => void;
}

/** What the session needs of its client. */
export interface SessionOptions {
  clientInfo: { name: string; version: string };
  /** The client's capabilities, sent in `initialize`. */
  capabilities: Record<string, unknown>;
  /** The server-to-client methods answered through `onRequest`; any other (but `ping`) gets -32601. */
  answers: ReadonlySet<string>;
  /**
   * Answers a server's request; the value is the result. A throw becomes a JSON-RPC error reply: the error's integer
   * `code` when it has one, else -32603, with its message. `signal` aborts when the server cancels the request.
   */
  onRequest(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** Reports what went wrong outside any one request (a dropped message, a lost session, a broken stream). */
  warning?(message: string): void;
  /** Per-request time budget, ms. @default DEFAULT_LEGACY_TIMEOUT_MS */
  timeoutMs?: number;
  /** The server's URL (HTTP), for the spans' `server.address` and `server.port`. */
  url?: string;
  /** What trace context each request carries in `params._meta` when its span records. @default true */
  traceContext?: TraceContextMode;
  /** The client's transport: the key under which its tasks' spans are found (see `registerTaskSpan`). */
  spanOwner?: object;
}

/** What the server said of itself in `initialize`. */
export interface ServerIdentity {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo: { name: string; version: string } | undefined;
  instructions: string | undefined;
}

interface Pending {
  method: string;
  resolve(result: Record<string, unknown>): void;
  reject(error: unknown): void;
  onProgress?: (progress: SessionProgress) => void;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A channel's failure as this package's class: our own errors as they are, anything else as {@link NetworkError}. */
function typed(method: string, error: unknown): unknown {
  return error instanceof McpClientError ? error : new NetworkError(method, { cause: error });
}

/** A 404 to a request that carried the session id: the server no longer knows the session. */
function sessionGone(error: unknown): boolean {
  return error instanceof HttpError && error.status === 404;
}

/** See the module. */
export class LegacySession {
  readonly #channel: JsonRpcChannel;
  readonly #options: SessionOptions;
  readonly #pending = new Map<RequestId, Pending>();
  /** The server's requests being answered, by id, so that its `notifications/cancelled` can stop one. */
  readonly #serving = new Map<RequestId, AbortController>();
  #seq = 0;
  #identity: ServerIdentity | undefined;
  /** The handshake under way (the first, or a new session's), if any. */
  #ready: Promise<void> | undefined;
  /** A new session must be started before the next request (the last attempt failed). */
  #needsHandshake = false;
  /** Counts handshakes, so that requests failing on the same lost session start one new session, not one each. */
  #generation = 0;
  /** Why the channel ended, once it did: every later request fails with it. */
  #ended: unknown;
  /** Why the channel's process exited, reported before the channel's end. */
  #exit: ServerExitedError | undefined;

  private constructor(channel: JsonRpcChannel, options: SessionOptions) {
    this.#channel = channel;
    this.#options = options;
    void loadTelemetry(); // OpenTelemetry spans, when the optional peer is installed
  }

  /**
   * Starts the channel and runs the handshake.
   *
   * @throws {@link UnsupportedProtocolVersionError} when the server answers with a version not in
   *   {@link LEGACY_VERSIONS}; the channel's errors ({@link HttpError}, {@link NetworkError}, {@link McpError},
   *   {@link ServerExitedError}, …) otherwise. The channel is closed on failure.
   */
  static async open(channel: JsonRpcChannel, options: SessionOptions): Promise<LegacySession> {
    const session = new LegacySession(channel, options);
    channel.onmessage = (message) => session.#onMessage(message);
    channel.onerror = (error) => session.#onError(error);
    channel.onclose = () => session.#onClose();
    try {
      await channel.start().catch((error: unknown) => {
        throw typed('initialize', error);
      });
      session.#startHandshake();
      await session.#ready;
    } catch (error) {
      session.#ended ??= error;
      await channel.close().catch(() => undefined);
      throw error;
    }
    return session;
  }

  /** What the server said of itself in its latest `initialize` answer. */
  get identity(): ServerIdentity {
    return this.#identity as ServerIdentity;
  }

  /**
   * Sends a request and resolves with its result. A request that met a lost HTTP session is sent once more in a new
   * one (the server had not run it: it did not know the session).
   *
   * @throws {@link McpError} for a JSON-RPC error; {@link RequestTimeoutError} past the time budget (the server is
   *   sent `notifications/cancelled`); the abort reason; the channel's errors; {@link ClientClosedError} after
   *   `close()`.
   */
  async request(
    method: string,
    params: Record<string, unknown>,
    options: SessionRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    for (let resent = false; ; resent = true) {
      if (this.#needsHandshake && this.#ready === undefined) this.#startHandshake();
      if (this.#ready) await this.#ready;
      const generation = this.#generation;
      const withSession = this.#channel.sessionId !== undefined;
      try {
        return await this.#send(method, params, options);
      } catch (error) {
        if (resent || !withSession || !sessionGone(error) || this.#ended !== undefined) throw error;
        if (generation === this.#generation && this.#ready === undefined) {
          this.#options.warning?.(
            `the server no longer knows this session (HTTP 404 to ${method}); a new session was started: tasks of the old one are unknown to it`,
          );
          this.#startHandshake();
        }
      }
    }
  }

  /** Ends the session: requests in flight reject with {@link ClientClosedError}, then the channel closes. */
  async close(): Promise<void> {
    this.#ended ??= new ClientClosedError();
    this.#failAll(this.#ended);
    await this.#channel.close().catch(() => undefined);
  }

  #startHandshake(): void {
    this.#generation++;
    const ready: Promise<void> = this.#handshake().then(
      () => {
        this.#needsHandshake = false;
      },
      (error: unknown) => {
        this.#needsHandshake = true;
        throw error;
      },
    );
    this.#ready = ready;
    ready
      .catch(() => undefined)
      .finally(() => {
        if (this.#ready === ready) this.#ready = undefined;
      });
  }

  async #handshake(): Promise<void> {
    const o = this.#options;
    const result = await this.#send('initialize', {
      protocolVersion: LEGACY_PROTOCOL_VERSION,
      capabilities: o.capabilities,
      clientInfo: o.clientInfo,
    });
    const version = result.protocolVersion;
    if (typeof version !== 'string' || !LEGACY_VERSIONS.includes(version))
      throw new UnsupportedProtocolVersionError(LEGACY_PROTOCOL_VERSION, [String(version)]);
    const info = result.serverInfo;
    this.#identity = {
      protocolVersion: version,
      capabilities: isObject(result.capabilities) ? result.capabilities : {},
      serverInfo:
        isObject(info) && typeof info.name === 'string'
          ? { ...info, name: info.name, version: String(info.version ?? '') }
          : undefined,
      instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
    };
    this.#channel.setProtocolVersion?.(version);
    await this.#channel.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  #send(
    method: string,
    params: Record<string, unknown>,
    options: SessionRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    if (this.#ended !== undefined) return Promise.reject(this.#ended);
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    const id = ++this.#seq;
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? DEFAULT_LEGACY_TIMEOUT_MS;
    const link = linkAbort(options.signal, timeoutMs, () => new RequestTimeoutError(method, timeoutMs));
    const onProgress = options.onProgress;
    let sent = onProgress
      ? { ...params, _meta: { ...(isObject(params._meta) ? params._meta : {}), progressToken: id } }
      : params;
    const meta = isObject(sent._meta) ? sent._meta : {};
    const span = startRequestSpan(
      method,
      id,
      params,
      meta,
      {
        protocolVersion: this.#identity?.protocolVersion ?? LEGACY_PROTOCOL_VERSION,
        url: this.#options.url,
        owner: this.#options.spanOwner,
      },
      this.#options.traceContext ?? true,
    );
    if (span !== undefined && span.meta !== meta && Object.keys(span.meta).length > 0)
      sent = { ...sent, _meta: span.meta };
    const answer = this.#exchange(id, method, sent, link, onProgress);
    return span === undefined ? answer : endWhenSettled(span, answer);
  }

  /** Sends one request on the channel and settles with its response, its time budget or its abort. */
  #exchange(
    id: number,
    method: string,
    sent: Record<string, unknown>,
    link: ReturnType<typeof linkAbort>,
    onProgress: SessionRequestOptions['onProgress'],
  ): Promise<Record<string, unknown>> {
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const finish = (): void => {
        this.#pending.delete(id);
        link.signal.removeEventListener('abort', onAbort);
        link.dispose();
      };
      const onAbort = (): void => {
        if (this.#pending.get(id) !== pending) return;
        finish();
        if (method !== 'initialize') this.#cancelled(id, link.signal.reason);
        reject(link.signal.reason);
      };
      const pending: Pending = {
        method,
        onProgress,
        resolve: (result) => (finish(), resolve(result)),
        reject: (error) => (finish(), reject(error)),
      };
      this.#pending.set(id, pending);
      link.signal.addEventListener('abort', onAbort, { once: true });
      this.#channel
        .send({ jsonrpc: '2.0', id, method, params: sent }, { signal: link.signal })
        .catch((error: unknown) => {
          if (this.#pending.get(id) === pending) pending.reject(typed(method, error));
        });
    });
  }

  /** `notifications/cancelled` for a request we stopped waiting for; best effort. */
  #cancelled(requestId: RequestId, reason: unknown): void {
    if (this.#ended !== undefined) return;
    const text = reason instanceof Error ? reason.message : String(reason ?? 'aborted');
    this.#channel
      .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: text } })
      .catch(() => undefined);
  }

  #onMessage(message: ChannelMessage): void {
    if (typeof message.method === 'string') {
      if (message.id !== undefined && message.id !== null) {
        void this.#serve(message.id as RequestId, message.method, message.params);
        return;
      }
      return this.#onNotification(message.method, isObject(message.params) ? message.params : {});
    }
    const id = message.id;
    const pending = typeof id === 'string' || typeof id === 'number' ? this.#pending.get(id) : undefined;
    if (pending === undefined) {
      this.#options.warning?.(
        `a response for id ${JSON.stringify(id ?? null)} matches no request in flight; ignored`,
      );
      return;
    }
    if ('error' in message) {
      const error = JsonRpcErrorObjectSchema.safeParse(message.error);
      pending.reject(
        error.success
          ? new McpError(pending.method, error.data)
          : new InvalidResponseError(pending.method, 'malformed JSON-RPC error response'),
      );
    } else if (isObject(message.result)) pending.resolve(message.result);
    else pending.reject(new InvalidResponseError(pending.method, 'the response has no result object'));
  }

  #onNotification(method: string, params: Record<string, unknown>): void {
    if (method === 'notifications/progress') {
      const token = params.progressToken;
      const pending = typeof token === 'number' ? this.#pending.get(token) : undefined;
      if (pending?.onProgress && typeof params.progress === 'number') {
        const progress: SessionProgress = { progress: params.progress };
        if (typeof params.total === 'number') progress.total = params.total;
        if (typeof params.message === 'string') progress.message = params.message;
        try {
          pending.onProgress(progress);
        } catch {
          // the caller's callback; its bug does not end the request
        }
      }
      return;
    }
    if (method === 'notifications/cancelled') {
      const id = params.requestId;
      if (typeof id === 'string' || typeof id === 'number')
        this.#serving.get(id)?.abort(new Error(String(params.reason ?? 'cancelled by the server')));
    }
    // Other notifications (logging, list changes, task status) are not surfaced in this era.
  }

  /** Answers one of the server's requests on the channel. */
  async #serve(id: RequestId, method: string, rawParams: unknown): Promise<void> {
    if (method === 'ping') return this.#reply(method, { jsonrpc: '2.0', id, result: {} });
    if (!this.#options.answers.has(method))
      return this.#reply(method, {
        jsonrpc: '2.0',
        id,
        error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${method}` },
      });
    const controller = new AbortController();
    this.#serving.set(id, controller);
    try {
      const params = isObject(rawParams) ? rawParams : {};
      const result = await this.#options.onRequest(method, params, controller.signal);
      if (controller.signal.aborted) return; // the server cancelled it: no answer is expected
      await this.#reply(method, { jsonrpc: '2.0', id, result: isObject(result) ? result : {} });
    } catch (error) {
      if (controller.signal.aborted) return;
      const code = (error as { code?: unknown } | null)?.code;
      const invalid = (error as { name?: unknown } | null)?.name === 'ZodError';
      await this.#reply(method, {
        jsonrpc: '2.0',
        id,
        error: {
          code: Number.isInteger(code) ? (code as number) : invalid ? ErrorCode.InvalidParams : -32603,
          message: error instanceof Error ? error.message : String(error),
        },
      });
    } finally {
      this.#serving.delete(id);
    }
  }

  async #reply(method: string, message: ChannelMessage): Promise<void> {
    if (this.#ended !== undefined) return;
    try {
      await this.#channel.send(message);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.#options.warning?.(`the answer to the server's ${method} could not be sent: ${why}`);
    }
  }

  #onError(error: Error): void {
    if (error instanceof ServerExitedError) {
      this.#exit = error;
      return;
    }
    this.#options.warning?.(error.message);
  }

  #onClose(): void {
    this.#ended ??= this.#exit ?? new StreamEndedError('session', { cause: new Error('the channel closed') });
    this.#failAll(this.#ended);
  }

  #failAll(error: unknown): void {
    const all = [...this.#pending.values()];
    this.#pending.clear();
    for (const pending of all) pending.reject(error);
    for (const serving of this.#serving.values()) serving.abort(error);
    this.#serving.clear();
  }
}
