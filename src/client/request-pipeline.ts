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
import { ProgressParamsSchema, type Progress } from '../protocol/results.js';
import { buildCapabilities, buildMeta } from './meta.js';
import type { ResolvedOptions } from './options.js';

/** Per-request options. */
export interface RequestOptions {
  /** Aborts the request (HTTP: the POST is aborted, 2.11); rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** This request's time budget in ms. @default the client's `timeoutMs` */
  timeoutMs?: number;
  /** Opts into progress: a unique `progressToken` is sent and each `notifications/progress` is passed here (1.5, 6.4). */
  onProgress?: (progress: Progress) => void;
  /** Extra transport headers (HTTP). */
  headers?: Record<string, string>;
  /** Extra `_meta` entries; the reserved `io.modelcontextprotocol/*` keys cannot be overridden. */
  meta?: Record<string, unknown>;
}

/** Builds and sends requests for one client. */
export class RequestPipeline {
  readonly #options: ResolvedOptions;
  readonly #answersByEvent: () => boolean;
  readonly #onNotification: (notification: JsonRpcNotification) => void;
  #nextId = 1;
  #nextProgressToken = 1;
  #protocolVersion = PROTOCOL_VERSION;

  constructor(options: ResolvedOptions, answersByEvent: () => boolean, onNotification: (notification: JsonRpcNotification) => void) {
    this.#options = options;
    this.#answersByEvent = answersByEvent;
    this.#onNotification = onNotification;
  }

  /** The version sent in `_meta` and the `MCP-Protocol-Version` header. */
  get protocolVersion(): string {
    return this.#protocolVersion;
  }

  /**
   * Sends `method` and resolves with its raw `result`. On -32022 it re-sends once per supported version that this
   * client speaks, with a new id (1.8).
   *
   * @throws {@link McpError}, {@link UnsupportedProtocolVersionError}, transport errors, `signal.reason`.
   */
  async send(method: string, params: Record<string, unknown>, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    const resent = new Set<string>();
    for (;;) {
      const version = this.#protocolVersion;
      try {
        return await this.#sendOnce(method, params, options);
      } catch (error) {
        if (!(error instanceof McpError) || error.code !== ErrorCode.UnsupportedProtocolVersion) throw error;
        const data = (error.data ?? {}) as { supported?: unknown };
        const supported = Array.isArray(data.supported) ? data.supported.filter((v): v is string => typeof v === 'string') : [];
        const next = SUPPORTED_PROTOCOL_VERSIONS.find((v) => supported.includes(v) && !resent.has(v));
        if (next === undefined) throw new UnsupportedProtocolVersionError(version, supported, { cause: error });
        resent.add(next);
        this.#protocolVersion = next;
      }
    }
  }

  async #sendOnce(method: string, params: Record<string, unknown>, options: RequestOptions): Promise<Record<string, unknown>> {
    const o = this.#options;
    const progressToken = options.onProgress ? `progress-${this.#nextProgressToken++}` : undefined;
    const { _meta: callerMeta, ...rest } = params as { _meta?: Record<string, unknown> };
    const extra: Record<string, unknown> = { ...callerMeta, ...options.meta };
    if (progressToken !== undefined) extra.progressToken = progressToken;
    const capabilities = buildCapabilities({ declared: o.capabilities, handlers: o.handlers, answersByEvent: this.#answersByEvent() });
    const message: JsonRpcRequest = {
      jsonrpc: '2.0',
      id: this.#nextId++,
      method,
      params: { ...rest, _meta: buildMeta(this.#protocolVersion, capabilities, o.clientInfo, extra) },
    };
    return o.transport.request(message, {
      signal: options.signal,
      timeoutMs: options.timeoutMs ?? o.timeoutMs,
      headers: options.headers,
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
    });
  }
}
