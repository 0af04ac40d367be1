/**
 * Streamable HTTP transport for MCP 2026-07-28: one POST per message to one endpoint, JSON or SSE replies, the
 * standard request headers, no sessions, no GET stream, no resumption.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http)
 *
 * @module
 */
import {
  GetHeadersError,
  HttpError,
  InvalidResponseError,
  McpClientError,
  NetworkError,
  RequestTimeoutError,
  StreamEndedError,
} from '../errors.js';
import {
  abortRequested,
  holdableLink,
  linkAbort,
  markUnwritten,
  type LinkedAbort,
} from '../internal/abort.js';
import { raceAbort } from '../internal/race-abort.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';
import { createAuthSession, type AuthSession } from './auth.js';
import { checkHeaderRecord } from './header-values.js';
import {
  fetchFollowingRedirects,
  fetchWithRedirectPolicy,
  redirectPolicy,
  type RedirectPolicy,
} from './redirects.js';
import { buildHeaders, protocolHeaderValues, staticHeaders } from './request-headers.js';
import {
  defaultHttpSender,
  fetchSender,
  isJsonMediaType,
  mediaTypeOf,
  type HttpReply,
  type HttpSender,
} from './http-sender.js';
import { classifyMessage, parseJson, responseBeforeBreak, settleResponse } from './messages.js';
import { excerpt, readText } from './read-body.js';
import { parseRetryAfter } from './retry-after.js';
import { readSseReply } from './sse-reply.js';
import {
  checkServerKey,
  type HttpTarget,
  type Transport,
  type TransportRequestOptions,
  WRITE_CHECK,
  type WriteCheckCarrier,
} from './transport.js';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  type StreamableHttpTransportOptions,
} from './streamable-http-options.js';

export {
  DEFAULT_MAX_RESPONSE_BYTES,
  type StreamableHttpTransportOptions,
} from './streamable-http-options.js';

function isRequest(message: JsonRpcRequest | JsonRpcNotification): message is JsonRpcRequest {
  return typeof message.id === 'string' || typeof message.id === 'number';
}

/**
 * A {@link Transport} over MCP Streamable HTTP.
 *
 * @example
 * const transport = new StreamableHttpTransport('http://127.0.0.1:3000/mcp', { headers: { Authorization: `Bearer ${token}` } });
 */
export class StreamableHttpTransport implements Transport {
  readonly serverKey: string;
  readonly url: URL;
  readonly #options: StreamableHttpTransportOptions;
  // The HTTP exchange goes through a sender: undici in Node, fetch elsewhere
  #sender: HttpSender | undefined;
  readonly #ownsSender: boolean;
  readonly #staticHeaders: Record<string, string>;
  /** An invalid static header, reported (typed) by every request rather than by the constructor. */
  readonly #headerError: unknown;
  /** The `fetch` a 2025-11-25 session uses: the OAuth wrapper when `auth` is set. */
  readonly #legacyFetch: typeof fetch;
  readonly #maxBytes: number;
  readonly #inflight = new Set<LinkedAbort>();
  readonly #redirects: RedirectPolicy;
  readonly #auth: AuthSession | undefined;

  /**
   * @throws TypeError when `url` is not an absolute http(s) URL, `maxResponseBytes` is not a positive number, or
   * `serverKey` is not a valid key (see {@link StreamableHttpTransportOptions.serverKey}).
   */
  constructor(url: string | URL, options: StreamableHttpTransportOptions = {}) {
    try {
      this.url = new URL(url);
    } catch (error) {
      throw new TypeError(
        `StreamableHttpTransport: url must be an absolute http(s) URL, got ${JSON.stringify(String(url))}`,
        { cause: error },
      );
    }
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') {
      // `localhost:3000/mcp` parses as the scheme "localhost:": offer the URL that was meant.
      const text = String(url);
      const meant = /^[A-Za-z0-9.-]+:\d{1,5}(?:[/?#]|$)/.test(text)
        ? ` (did you mean ${JSON.stringify(`http://${text}`)}?)`
        : '';
      throw new TypeError(`StreamableHttpTransport: url must be http(s), got ${this.url.protocol}${meant}`);
    }
    const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    if (!(maxBytes > 0))
      throw new TypeError(`StreamableHttpTransport: maxResponseBytes must be > 0, got ${maxBytes}`);
    this.serverKey =
      checkServerKey('StreamableHttpTransport', options.serverKey) ??
      `${this.url.origin}${this.url.pathname}`;
    this.#options = options;
    const baseFetch: typeof fetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
    if (options.auth && options.sender)
      throw new TypeError(
        'StreamableHttpTransport: give `auth` or `sender`, not both (authorization wraps `fetch`)',
      );
    // With `auth`, every POST goes through the OAuth wrapper (./auth.ts), carried by a fetch sender
    this.#auth = options.auth ? createAuthSession(this.url, options.auth, baseFetch) : undefined;
    this.#ownsSender = !options.sender && !options.fetch && !this.#auth;
    this.#sender =
      options.sender ??
      (this.#auth ? fetchSender(this.#auth.fetch) : options.fetch ? fetchSender(options.fetch) : undefined);
    this.#legacyFetch = this.#auth?.fetch ?? baseFetch;
    try {
      // checkHeaderRecord: a bad value fails typed and is never quoted; reported per request
      this.#staticHeaders = staticHeaders(checkHeaderRecord('headers', options.headers));
    } catch (error) {
      this.#staticHeaders = {};
      this.#headerError = error;
    }
    this.#maxBytes = maxBytes;
    this.#redirects = redirectPolicy(this.url, options.allowRedirectOrigins);
  }

  /** The endpoint as data (URL, static headers, header source, `fetch`), for reaching a 2025-11-25 server. */
  get target(): HttpTarget {
    const o = this.#options;
    // The 2025-11-25 path's requests follow the same redirect policy (and go through the same OAuth wrapper when
    // `auth` is set)
    const fetch = fetchWithRedirectPolicy(this.#legacyFetch, this.#redirects);
    return { kind: 'http', url: this.url, headers: o.headers, getHeaders: o.getHeaders, fetch };
  }

  request(message: JsonRpcRequest, options: TransportRequestOptions = {}): Promise<Record<string, unknown>> {
    return this.#post(message, options, async (res, signal) => {
      const contentType = res.headers.get('content-type');
      const mediaType = mediaTypeOf(contentType);
      if (mediaType === 'text/event-stream') {
        return readSseReply(res, message, options, signal, this.#maxBytes);
      }
      const text = await readText(res.body, this.#maxBytes, message.method).catch((error: unknown) =>
        responseBeforeBreak(error, message.id, message.method, options.onViolation),
      );
      if (!isJsonMediaType(mediaType)) {
        throw new InvalidResponseError(
          message.method,
          `unexpected content-type "${contentType ? excerpt(contentType, 80) : 'none'}": ${excerpt(text, 80)}`,
        );
      }
      return settleResponse(
        classifyMessage(parseJson(text, message.method)),
        message.id,
        message.method,
        res.status,
      );
    });
  }

  async notify(message: JsonRpcNotification, options: TransportRequestOptions = {}): Promise<void> {
    await this.#post(message, options, async (res) => {
      await res.body?.cancel().catch(() => undefined);
    });
  }

  async close(): Promise<void> {
    for (const link of this.#inflight) link.abort(new StreamEndedError('close'));
    this.#inflight.clear();
    this.#auth?.close();
    if (this.#ownsSender && this.#sender) {
      // Pooled connections are released; a later request builds a fresh sender.
      const sender = this.#sender;
      this.#sender = undefined;
      await sender.close?.();
    }
  }

  /** The POST's headers; a promise only when `getHeaders` is set (a poll without it builds them synchronously). */
  #headers(
    message: JsonRpcRequest | JsonRpcNotification,
    extra: Record<string, string> | undefined,
  ): Record<string, string> | Promise<Record<string, string>> {
    if (this.#headerError !== undefined) throw this.#headerError;
    const getHeaders = this.#options.getHeaders;
    if (!getHeaders) return this.#buildHeaders(message, undefined, extra);
    return (async () => {
      let dynamic: Record<string, string>;
      try {
        dynamic = await getHeaders();
      } catch (error) {
        throw new GetHeadersError(message.method, { cause: error }); // typed, notSent: the request was not written
      }
      return this.#buildHeaders(message, checkHeaderRecord('getHeaders()', dynamic), extra);
    })();
  }

  #buildHeaders(
    message: JsonRpcRequest | JsonRpcNotification,
    dynamic: Record<string, string> | undefined,
    extra: Record<string, string> | undefined,
  ): Record<string, string> {
    // checkHeaderRecord: a bad value fails typed, and is never quoted
    extra = checkHeaderRecord('request headers', extra);
    return buildHeaders(this.#staticHeaders, dynamic, extra, protocolHeaderValues(message));
  }

  async #post<T>(
    message: JsonRpcRequest | JsonRpcNotification,
    options: TransportRequestOptions,
    read: (res: HttpReply, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const method = message.method;
    // One signal for the caller's signal, the time budget and close(), the first reason winning. A client's
    // request() hands a link made for this one request: the budget runs on it, with no second link.
    const onTimeout = (): RequestTimeoutError => new RequestTimeoutError(method, options.timeoutMs ?? 0);
    const caller = options.signal && holdableLink(options.signal);
    const lent = caller?.lend(options.timeoutMs, onTimeout) ? caller : undefined;
    // Holdable: findable from its signal, the auth wrapper asks it whether the caller gave up (abortRequested).
    const link = lent ?? linkAbort(options.signal, options.timeoutMs, onTimeout).holdable();
    const signal = link.signal;
    this.#inflight.add(link);
    try {
      if (signal.aborted) throw signal.reason; // never POST for an aborted request
      const body = JSON.stringify(message);
      // getHeaders() is raced against the abort/timeout: one that never resolves cannot hang the request
      let res = await this.#fetchOnce(
        method,
        body,
        await this.#headersBeforeWrite(message, options, link),
        signal,
        options.signal,
        (options as WriteCheckCarrier)[WRITE_CHECK],
      );
      // A 401 gets one re-send with fresh headers, unless the caller gave up meanwhile (an abort held back while a
      // creation's answer is read): then the 401 stands, and nothing is written again.
      if (res.status === 401 && this.#options.getHeaders && !abortRequested(options.signal)) {
        await res.body?.cancel().catch(() => undefined);
        res = await this.#fetchOnce(
          method,
          body,
          await this.#headersBeforeWrite(message, options, link),
          signal,
          options.signal,
          (options as WriteCheckCarrier)[WRITE_CHECK],
        );
      }
      if (res.status === 202 || res.status === 204) {
        await res.body?.cancel().catch(() => undefined);
        if (isRequest(message))
          throw new InvalidResponseError(method, `HTTP ${res.status} without a response body`);
        return undefined as T;
      }
      if (!res.ok) await this.#throwHttp(res, message);
      return await read(res, signal);
    } catch (error) {
      if (signal.aborted && !(error instanceof RequestTimeoutError && error.notSent)) throw signal.reason;
      throw error;
    } finally {
      if (lent) lent.endLoan();
      else link.dispose();
      this.#inflight.delete(link);
    }
  }

  /**
   * The POST's headers, raced against the request's abort. The time budget running out first means nothing was
   * written: {@link RequestTimeoutError} with `notSent`, so the request is never taken for lost (and re-sent). While
   * they are pending the caller's signal is marked unwritten (`markUnwritten`), so the owner of that signal (a
   * creation's abort grace) lets an abort then end the request at once with its reason (no grace spent reading a
   * response that cannot come, no `OutcomeUnknownError`, no re-send).
   */
  async #headersBeforeWrite(
    message: JsonRpcRequest | JsonRpcNotification,
    options: TransportRequestOptions,
    link: LinkedAbort,
  ): Promise<Record<string, string>> {
    const headers = this.#headers(message, options.headers);
    if (!(headers instanceof Promise)) return headers;
    markUnwritten(options.signal, true);
    try {
      return await raceAbort(headers, link.signal);
    } catch (error) {
      if (link.timedOut && error === link.signal.reason)
        throw new RequestTimeoutError(message.method, options.timeoutMs ?? 0, { notSent: true });
      throw error;
    } finally {
      markUnwritten(options.signal, false);
    }
  }

  /**
   * One POST, following the redirects the policy allows. `caller` is the request's own signal: a redirect is not
   * followed once an abort of it is requested (held back while a creation's answer is read), since a redirected
   * request has not been acted on and following it would start the work the caller gave up on; the call ends with
   * the abort's reason.
   */
  async #fetchOnce(
    method: string,
    body: string,
    headers: Record<string, string>,
    signal: AbortSignal,
    caller: AbortSignal | undefined,
    beforeWrite?: () => void,
  ): Promise<HttpReply> {
    this.#sender ??= defaultHttpSender({ maxConnectionsPerOrigin: this.#options.maxConnectionsPerOrigin });
    const sender = this.#sender;
    // Every hop is `redirect: 'manual'`; redirects.ts decides which to follow
    return fetchFollowingRedirects(method, this.url, this.#redirects, async (url) => {
      const requested = url === this.url ? undefined : abortRequested(caller);
      if (requested) throw requested.reason;
      try {
        return await sender.send({
          url,
          method: 'POST',
          headers,
          body,
          signal,
          redirect: 'manual',
          stream: method === 'subscriptions/listen',
          beforeWrite,
        });
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (error instanceof McpClientError) throw error; // authorization errors from the auth wrapper stay typed
        throw new NetworkError(method, { cause: error });
      }
    });
  }

  /** A non-2xx: a JSON-RPC error body outranks the status; otherwise `HttpError`. */
  async #throwHttp(res: HttpReply, message: JsonRpcRequest | JsonRpcNotification): Promise<never> {
    const method = message.method;
    let text = '';
    try {
      text = await readText(res.body, Math.min(this.#maxBytes, 1024 * 1024), method);
    } catch (error) {
      if (!(error instanceof McpClientError)) throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const incoming = classifyMessage(parsed);
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), Date.now()); // kept whatever the body (429/503 + JSON-RPC error)
    if (incoming.kind === 'error' && isRequest(message))
      settleResponse(incoming, message.id, method, res.status, retryAfterMs);
    throw new HttpError(method, res.status, excerpt(text), retryAfterMs);
  }
}
