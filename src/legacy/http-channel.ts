/**
 * Streamable HTTP as MCP 2025-11-25 defines it, as a {@link JsonRpcChannel} for the legacy session:
 * - every message is one POST (`Accept: application/json, text/event-stream`); a request's reply is JSON or an SSE
 *   stream that may carry the server's own requests and notifications before the response;
 * - the `Mcp-Session-Id` the server assigns in its `initialize` reply goes on every later request, with
 *   `MCP-Protocol-Version` (the negotiated version);
 * - a 404 to a request that carried the session id means the session is gone: the id is forgotten and the 404 thrown
 *   as {@link HttpError}, so the session above can start a new one with `initialize`;
 * - once `notifications/initialized` is accepted, a GET opens the server's own stream (405: the server offers none);
 * - a stream (POST or GET) that ends before its end is resumed with a GET carrying `Last-Event-ID`, after the
 *   server's `retry` (or a growing backoff), a few times at most; a request whose response never comes fails with
 *   {@link StreamEndedError};
 * - `close()` sends DELETE with the session id (405 is fine: the server keeps sessions itself).
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http)
 *
 * @module
 * @internal
 */
import { createParser } from 'eventsource-parser';
import {
  ClientClosedError,
  GetHeadersError,
  HttpError,
  InvalidResponseError,
  McpClientError,
  McpError,
  NetworkError,
  StreamEndedError,
} from '../errors.js';
import { delay } from '../internal/abort.js';
import { HEADERS } from '../protocol/constants.js';
import { JsonRpcErrorResponseSchema } from '../protocol/jsonrpc.js';
import type { ChannelMessage, ChannelSendOptions, JsonRpcChannel } from '../transport/channel.js';
import { checkHeaderRecord } from '../transport/header-values.js';
import { isJsonMediaType, mediaTypeOf, webBody } from '../transport/http-sender.js';
import { excerpt, readText, readTextChunks } from '../transport/read-body.js';
import { parseRetryAfter } from '../transport/retry-after.js';
import { sseEventMeter } from '../transport/sse-event-limit.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../transport/streamable-http-options.js';
import type { HttpTarget } from '../transport/transport.js';

/** How many reconnections in a row, with no event received, before a stream is given up. */
export const MAX_RECONNECTS = 3;
/** First wait before a reconnection when the server gave no `retry`, ms; it grows 1.5 times per attempt. */
export const RECONNECT_DELAY_MS = 1_000;
/** Longest wait before a reconnection without a `retry`, ms. */
export const MAX_RECONNECT_DELAY_MS = 30_000;
/** How long `close()` waits for the answer to its DELETE, ms. */
export const DELETE_TIMEOUT_MS = 5_000;

const ACCEPT_BOTH = 'application/json, text/event-stream';
const SESSION_ID = HEADERS.sessionId.toLowerCase();
const PROTOCOL_VERSION = HEADERS.protocolVersion.toLowerCase();
/** Visible ASCII only (0x21–0x7E), as the spec requires of a session id. */
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** What one SSE connection gave. */
interface StreamRead {
  /** The response to the request the stream belongs to was delivered. */
  answered: boolean;
  /** Events (with data or an id) received. */
  events: number;
  lastEventId: string | undefined;
  retryMs: number | undefined;
}

/** A signal that aborts when either input does; `dispose()` removes both listeners. */
function anySignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onA = (): void => controller.abort(a.reason);
  const onB = (): void => controller.abort(b.reason);
  if (a.aborted) onA();
  else if (b.aborted) onB();
  a.addEventListener('abort', onA, { once: true });
  b.addEventListener('abort', onB, { once: true });
  return {
    signal: controller.signal,
    dispose() {
      a.removeEventListener('abort', onA);
      b.removeEventListener('abort', onB);
    },
  };
}

/** The wait before reconnection `attempt` (0-based): the server's `retry` when it gave one. */
function reconnectDelay(attempt: number, retryMs: number | undefined): number {
  if (retryMs !== undefined) return retryMs;
  return Math.min(RECONNECT_DELAY_MS * 1.5 ** attempt, MAX_RECONNECT_DELAY_MS);
}

/** See the module. */
export class HttpSessionChannel implements JsonRpcChannel {
  onmessage?: (message: ChannelMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #target: HttpTarget;
  readonly #fetch: typeof fetch;
  readonly #maxBytes: number;
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  /** Aborted by `close()`: every POST, GET and wait of this channel. */
  readonly #closing = new AbortController();
  /** Aborts the current listening GET stream (a lost session ends it). */
  #listening: AbortController | undefined;

  constructor(target: HttpTarget, maxBytes = DEFAULT_MAX_RESPONSE_BYTES) {
    this.#target = target;
    this.#fetch = target.fetch ?? ((...args) => globalThis.fetch(...args));
    this.#maxBytes = maxBytes;
  }

  /** The session id the server assigned, once it did. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  async start(): Promise<void> {}

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  /**
   * POSTs one message; for a request, reads its reply until the response was delivered through `onmessage`.
   *
   * @throws {@link HttpError} for a non-2xx reply (404 after a lost session), {@link McpError} for a JSON-RPC error
   *   body, {@link NetworkError}, {@link GetHeadersError}, {@link InvalidResponseError}, {@link StreamEndedError}
   *   when a request's response never came (its stream could not be resumed), or the abort reason.
   */
  async send(message: ChannelMessage, options: ChannelSendOptions = {}): Promise<void> {
    const link = options.signal ? anySignal(options.signal, this.#closing.signal) : undefined;
    try {
      await this.#post(message, link?.signal ?? this.#closing.signal);
    } finally {
      link?.dispose();
    }
  }

  /** Ends every stream, then DELETEs the session (bounded by {@link DELETE_TIMEOUT_MS}; any answer is fine). */
  async close(): Promise<void> {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort(new ClientClosedError());
    const sessionId = this.#sessionId;
    this.#sessionId = undefined;
    if (sessionId !== undefined) {
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), DELETE_TIMEOUT_MS);
      try {
        const headers = await this.#headers('DELETE', { [SESSION_ID]: sessionId });
        const res = await this.#fetch(this.#target.url, {
          method: 'DELETE',
          headers,
          signal: timeout.signal,
        });
        await res.body?.cancel().catch(() => undefined);
      } catch {
        // the session ends on the server's side in its own time
      } finally {
        clearTimeout(timer);
      }
    }
    this.onclose?.();
  }

  async #post(message: ChannelMessage, signal: AbortSignal): Promise<void> {
    const method = typeof message.method === 'string' ? message.method : 'response';
    const isRequest = typeof message.method === 'string' && message.id !== undefined;
    const sentSession = this.#sessionId;
    const headers = await this.#headers(method, { accept: ACCEPT_BOTH, 'content-type': 'application/json' });
    const res = await this.#exchange(method, 'POST', headers, JSON.stringify(message), signal);
    if (method === 'initialize') this.#takeSessionId(res.headers.get(SESSION_ID));
    if (res.status === 404 && sentSession !== undefined) {
      await res.body?.cancel().catch(() => undefined);
      this.#forgetSession(sentSession);
      throw new HttpError(method, 404, 'the session is gone (Mcp-Session-Id not found)');
    }
    if (res.status === 202 || res.status === 204) {
      await res.body?.cancel().catch(() => undefined);
      if (isRequest) throw new InvalidResponseError(method, `HTTP ${res.status} without a response body`);
      if (method === 'notifications/initialized') this.#listen();
      return;
    }
    if (!res.ok) return this.#throwHttp(res, method, isRequest);
    if (method === 'notifications/initialized') this.#listen();
    const contentType = res.headers.get('content-type');
    const mediaType = mediaTypeOf(contentType);
    if (!isRequest) {
      await res.body?.cancel().catch(() => undefined);
      return;
    }
    if (mediaType === 'text/event-stream') return this.#readUntilAnswered(res, method, message.id, signal);
    const text = await readText(res.body ? webBody(res.body) : null, this.#maxBytes, method);
    if (!isJsonMediaType(mediaType))
      throw new InvalidResponseError(
        method,
        `unexpected content-type "${contentType ? excerpt(contentType, 80) : 'none'}": ${excerpt(text, 80)}`,
      );
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new InvalidResponseError(
        method,
        `body is not JSON: ${excerpt(text, 80) || '(empty)'}`,
        undefined,
        {
          cause: error,
        },
      );
    }
    let answered = false;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (!isObject(item)) continue;
      if (item.id === message.id && !('method' in item)) answered = true;
      this.#deliver(item);
    }
    if (!answered)
      throw new InvalidResponseError(method, `the reply holds no response: ${excerpt(text, 80)}`);
  }

  /** The caller's headers (static, then `getHeaders()`), then `extra`, then the session's. */
  async #headers(method: string, extra: Record<string, string>): Promise<Record<string, string>> {
    // Without a prototype, so a `__proto__` header name is just a name.
    const out = Object.create(null) as Record<string, string>;
    const add = (headers: Record<string, string> | undefined): void => {
      for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
    };
    add(checkHeaderRecord('headers', this.#target.headers));
    if (this.#target.getHeaders) {
      let dynamic: Record<string, string>;
      try {
        dynamic = await this.#target.getHeaders();
      } catch (error) {
        throw new GetHeadersError(method, { cause: error });
      }
      add(checkHeaderRecord('getHeaders()', dynamic));
    }
    add(extra);
    // The session's own headers always win over the caller's.
    const sessionId = extra[SESSION_ID] ?? this.#sessionId;
    delete out[SESSION_ID];
    delete out[PROTOCOL_VERSION];
    if (sessionId !== undefined) out[SESSION_ID] = sessionId;
    if (this.#protocolVersion !== undefined) out[PROTOCOL_VERSION] = this.#protocolVersion;
    return out;
  }

  async #exchange(
    method: string,
    verb: 'POST' | 'GET',
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal,
  ): Promise<Response> {
    if (signal.aborted) throw signal.reason;
    try {
      return await this.#fetch(this.#target.url, { method: verb, headers, body, signal });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof McpClientError) throw error; // the OAuth wrapper's errors stay typed
      throw new NetworkError(method, { cause: error });
    }
  }

  #takeSessionId(value: string | null): void {
    if (value === null) return;
    if (!VISIBLE_ASCII.test(value))
      throw new InvalidResponseError(
        'initialize',
        'Mcp-Session-Id holds characters other than visible ASCII',
      );
    this.#sessionId = value;
  }

  /** The server no longer knows `sessionId`: forget it and stop listening on it. */
  #forgetSession(sessionId: string): void {
    if (this.#sessionId !== sessionId) return;
    this.#sessionId = undefined;
    this.#listening?.abort();
    this.#listening = undefined;
  }

  /** A non-2xx reply: a JSON-RPC error body becomes {@link McpError}, anything else {@link HttpError}. */
  async #throwHttp(res: Response, method: string, isRequest: boolean): Promise<never> {
    let text = '';
    try {
      text = await readText(
        res.body ? webBody(res.body) : null,
        Math.min(this.#maxBytes, 1024 * 1024),
        method,
      );
    } catch (error) {
      if (!(error instanceof McpClientError)) throw error;
    }
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), Date.now());
    if (isRequest) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const error = JsonRpcErrorResponseSchema.safeParse(parsed);
      if (error.success)
        throw new McpError(method, error.data.error, { httpStatus: res.status, retryAfterMs });
    }
    throw new HttpError(method, res.status, excerpt(text), retryAfterMs);
  }

  /**
   * Reads a request's SSE reply to its response, resuming it with `Last-Event-ID` when it ends first.
   *
   * @throws {@link StreamEndedError} when the stream ended without a response and could not be resumed.
   */
  async #readUntilAnswered(
    first: Response,
    method: string,
    requestId: unknown,
    signal: AbortSignal,
  ): Promise<void> {
    let read = await this.#readStream(first, method, requestId, signal);
    let lastEventId = read.lastEventId;
    let retryMs = read.retryMs;
    let lastFailure: unknown;
    for (let attempt = 0; !read.answered; ) {
      // Without an event id the stream cannot be resumed: the server made it so.
      if (lastEventId === undefined || attempt >= MAX_RECONNECTS)
        throw new StreamEndedError(method, lastFailure !== undefined ? { cause: lastFailure } : undefined);
      await delay(reconnectDelay(attempt, retryMs), signal);
      attempt++;
      const res = await this.#resume(method, lastEventId, signal).catch((error: unknown) => {
        if (signal.aborted) throw error;
        lastFailure = error;
        return undefined;
      });
      if (res === undefined) continue;
      read = await this.#readStream(res, method, requestId, signal);
      if (read.events > 0) attempt = 0;
      lastEventId = read.lastEventId ?? lastEventId;
      retryMs = read.retryMs ?? retryMs;
    }
  }

  /**
   * GET with `Last-Event-ID`: the server replays what it sent after that event on the stream that broke.
   *
   * @throws {@link HttpError} when the server does not resume it (any non-2xx, or not an event stream).
   */
  async #resume(method: string, lastEventId: string, signal: AbortSignal): Promise<Response> {
    const headers = await this.#headers(method, {
      accept: 'text/event-stream',
      'last-event-id': lastEventId,
    });
    const res = await this.#exchange(method, 'GET', headers, undefined, signal);
    if (res.ok && mediaTypeOf(res.headers.get('content-type')) === 'text/event-stream') return res;
    const text = await readText(res.body ? webBody(res.body) : null, 64 * 1024, method).catch(() => '');
    throw new HttpError(method, res.status, excerpt(text));
  }

  /**
   * Delivers the events of one SSE connection until it ends, or until the response to `requestId` went out (a
   * server that keeps the stream open after it is not waited on). A connection that breaks is an end like any other:
   * the caller resumes it.
   */
  async #readStream(
    res: Response,
    method: string,
    requestId: unknown,
    signal: AbortSignal,
  ): Promise<StreamRead> {
    const read: StreamRead = { answered: false, events: 0, lastEventId: undefined, retryMs: undefined };
    if (!res.body) return read;
    const parser = createParser({
      onRetry: (retryMs) => (read.retryMs = retryMs),
      onEvent: (event) => {
        if (event.id !== undefined) read.lastEventId = event.id;
        if (event.id !== undefined || event.data !== '') read.events++;
        if (event.data === '' || (event.event && event.event !== 'message')) return; // a priming event
        let value: unknown;
        try {
          value = JSON.parse(event.data);
        } catch {
          return this.#violation(method, `SSE data is not JSON: ${excerpt(event.data, 80)}`);
        }
        if (!isObject(value)) return this.#violation(method, `SSE data is not a JSON-RPC object`);
        if (requestId !== undefined && value.id === requestId && !('method' in value)) read.answered = true;
        this.#deliver(value);
      },
    });
    let endsWithCr = false;
    try {
      for await (const chunk of readTextChunks(
        webBody(res.body),
        Number.POSITIVE_INFINITY,
        method,
        sseEventMeter(this.#maxBytes, method),
      )) {
        parser.feed(chunk);
        if (chunk.length > 0) endsWithCr = chunk.endsWith('\r');
        if (read.answered || signal.aborted) break; // leaving the loop cancels the stream
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (!(error instanceof StreamEndedError)) throw error; // too large: not a break to resume from
    }
    if (signal.aborted) throw signal.reason;
    // A stream that ended (or broke) right after a bare CR has finished its last line, but the parser holds the CR
    // back in case an LF follows: the LF (CR LF is one line end) dispatches an event whose blank line was that CR.
    // An event without its blank line stays undispatched, as the SSE spec requires.
    if (!read.answered && endsWithCr) parser.feed('\n');
    return read;
  }

  /** Opens the server's own stream (GET) and keeps it open; see the module. */
  #listen(): void {
    if (this.#listening || this.#closing.signal.aborted) return;
    const listening = new AbortController();
    this.#listening = listening;
    const link = anySignal(listening.signal, this.#closing.signal);
    void this.#keepListening(link.signal).finally(() => {
      link.dispose();
      if (this.#listening === listening) this.#listening = undefined;
    });
  }

  async #keepListening(signal: AbortSignal): Promise<void> {
    const method = 'GET stream';
    let lastEventId: string | undefined;
    let retryMs: number | undefined;
    let lastFailure: unknown;
    for (let attempt = 0; !signal.aborted; ) {
      try {
        const extra: Record<string, string> = { accept: 'text/event-stream' };
        if (lastEventId !== undefined) extra['last-event-id'] = lastEventId;
        const res = await this.#exchange(
          method,
          'GET',
          await this.#headers(method, extra),
          undefined,
          signal,
        );
        if (res.status === 405) {
          await res.body?.cancel().catch(() => undefined);
          return; // the server offers no stream of its own
        }
        if (!res.ok || mediaTypeOf(res.headers.get('content-type')) !== 'text/event-stream') {
          const text = await readText(res.body ? webBody(res.body) : null, 64 * 1024, method).catch(() => '');
          throw new HttpError(method, res.status, excerpt(text));
        }
        const read = await this.#readStream(res, method, undefined, signal);
        lastEventId = read.lastEventId ?? lastEventId;
        retryMs = read.retryMs ?? retryMs;
        attempt = read.events > 0 ? 0 : attempt + 1;
      } catch (error) {
        if (signal.aborted) return;
        lastFailure = error;
        attempt++;
      }
      if (attempt > MAX_RECONNECTS) {
        const why = lastFailure instanceof Error ? `: ${lastFailure.message}` : '';
        this.onerror?.(
          new StreamEndedError(method, {
            cause: new Error(`the server's stream was given up after ${attempt} reconnections${why}`, {
              cause: lastFailure,
            }),
          }),
        );
        return;
      }
      await delay(reconnectDelay(attempt, retryMs), signal).catch(() => undefined);
    }
  }

  #deliver(message: Record<string, unknown>): void {
    try {
      this.onmessage?.(message);
    } catch {
      // the session's handler does not throw; a bug there must not end the stream
    }
  }

  #violation(method: string, detail: string): void {
    this.onerror?.(new InvalidResponseError(method, `skipped an SSE event: ${detail}`));
  }
}
