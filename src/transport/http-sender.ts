/**
 * The one HTTP exchange the Streamable HTTP transport needs: POST a body, get back the status, the headers and the
 * body as a stream of bytes. Two implementations: {@link fetchSender} (the global `fetch`, any runtime) and the
 * Node-only undici sender (`src/transport/undici-sender.ts`), which the Node entry point installs as the default.
 * Redirect handling, header checks, auth retries and body limits sit on top of this, in the transport, so they
 * behave the same whichever sender carries the request.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#streamable-http)
 *
 * @module
 */
/** One POST. Header names are lower-case; the transport has already decided every value. */
export interface HttpSendRequest {
  readonly url: URL;
  readonly method: 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Aborts the exchange: before the reply, the send rejects; after it, reading the body fails. */
  readonly signal: AbortSignal;
  /** `manual` leaves 3xx replies to the caller (fetch's `redirect: 'manual'`). @default 'follow' for fetch, never followed by undici */
  readonly redirect?: 'follow' | 'manual';
  /**
   * True for a long-lived stream (`subscriptions/listen`): a sender with a connection pool carries it on a connection
   * of its own, so that its reply never waits behind other requests queued on the pool. The fetch sender cannot
   * choose a connection and ignores this.
   */
  readonly stream?: boolean;
  /** Called right before the request is written (undici: once it has a connection); a throw fails the send unsent. */
  readonly beforeWrite?: () => void; // fleet: a poll's lease is checked when it is sent
}

/** A reply body: its bytes in order, once. `cancel()` releases the connection (or closes it when unfinished). */
export interface HttpReplyBody {
  [Symbol.asyncIterator](): AsyncIterator<Uint8Array>;
  cancel(): Promise<void>;
  /**
   * Optional, instead of iterating: every chunk of the body, in order, once it ended; `null` as soon as more than
   * `limitBytes` bytes arrived (the body is then destroyed). Rejects with the stream's error when it breaks or is
   * destroyed before its end; the chunks that arrived before are then in `received` when given (each chunk is pushed
   * there as it arrives). For a sender whose body has a cheaper way to be read whole than async iteration.
   */
  collect?(limitBytes: number, received?: Uint8Array[]): Promise<Uint8Array[] | null>;
}

/** What came back: the status, the headers (case-insensitive `get`, `null` when absent) and the body. */
export interface HttpReply {
  readonly status: number;
  /** True for 200–299. */
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  /** `null` when the reply has no body (fetch gives `null` for 204, for example). */
  readonly body: HttpReplyBody | null;
  /** True for a redirect that a browser's `fetch` hides with `redirect: 'manual'` (`type: 'opaqueredirect'`). */
  readonly opaque?: boolean;
}

/**
 * Carries one POST. Rejects only when no reply arrived (the transport maps that to `NetworkError`, or to the abort
 * reason when `signal` fired); any status is a reply.
 */
export interface HttpSender {
  send(request: HttpSendRequest): Promise<HttpReply>;
  /** Releases pooled connections. Optional: the fetch sender holds none. */
  close?(): Promise<void>;
}

/** Options a sender factory receives from the transport. */
export interface HttpSenderOptions {
  /** Cap on concurrent connections per origin (undici's `connections`); the fetch sender leaves this to the runtime. */
  maxConnectionsPerOrigin?: number;
}

/** Builds a sender; the Node entry point registers the undici one with {@link setDefaultHttpSender}. */
export type HttpSenderFactory = (options: HttpSenderOptions) => HttpSender;

let defaultFactory: HttpSenderFactory | undefined;

/**
 * Sets the sender factory used by transports built without `fetch` or `sender`. Called once by the Node entry point
 * (`mcp-tasks-client` under the `node` export condition) to install undici; elsewhere the global `fetch` is used.
 */
export function setDefaultHttpSender(factory: HttpSenderFactory | undefined): void {
  defaultFactory = factory;
}

/** The registered default sender (undici in Node), or a {@link fetchSender} over the global `fetch`. */
export function defaultHttpSender(options: HttpSenderOptions): HttpSender {
  return defaultFactory ? defaultFactory(options) : fetchSender((...args) => globalThis.fetch(...args));
}

/** Reads a Web stream with a reader (not async iteration, which some browsers lack), releasing it on early exit. */
export function webBody(stream: ReadableStream<Uint8Array>): HttpReplyBody {
  return {
    async *[Symbol.asyncIterator]() {
      const reader = stream.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          yield value;
        }
      } finally {
        // Cancelling an unfinished stream closes the connection; on a finished one it is a no-op.
        await reader.cancel().catch(() => undefined);
      }
    },
    cancel: () => stream.cancel().catch(() => undefined),
  };
}

/** A sender over a `fetch` implementation (the global one, or one the caller supplies). */
export function fetchSender(fetchImpl: typeof fetch): HttpSender {
  return {
    async send(request) {
      request.beforeWrite?.(); // fetch gives no later point
      const init: RequestInit = {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: request.signal,
      };
      if (request.redirect) init.redirect = request.redirect;
      const res = await fetchImpl(request.url, init);
      return {
        status: res.status,
        ok: res.ok,
        headers: res.headers,
        body: res.body ? webBody(res.body) : null,
        opaque: res.type === 'opaqueredirect',
      };
    },
  };
}

/**
 * The media type of a `Content-Type` value: its `type/subtype` in lower case, parameters dropped
 * (`Application/JSON; charset=utf-8` → `application/json`). Media types are case-insensitive (RFC 9110 §8.3.1).
 */
export function mediaTypeOf(contentType: string | null): string {
  if (contentType === null) return '';
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

/** True for `application/json` and any `+json` structured syntax suffix (RFC 6839), given {@link mediaTypeOf}'s result. */
export function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}
