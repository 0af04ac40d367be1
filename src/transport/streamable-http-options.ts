/**
 * The options of the Streamable HTTP transport, and its default size limit.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#streamable-http)
 *
 * @module
 */
import type { HttpAuthOptions } from './auth.js';
import type { HttpSender } from './http-sender.js';

/** Default cap on one JSON-RPC message from the server (one JSON body, or one SSE event), in bytes (16 MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** Options of {@link StreamableHttpTransport}. */
export interface StreamableHttpTransportOptions {
  /** Static headers sent on every POST (e.g. `Authorization`). Protocol headers always win. */
  headers?: Record<string, string>;
  /**
   * Called before every POST for headers that change (short-lived bearer tokens). When given, a 401 is retried once
   * with freshly fetched headers.
   */
  getHeaders?: () => Promise<Record<string, string>> | Record<string, string>;
  /** The fetch implementation. When given, every POST goes through it. @default globalThis.fetch (undici in Node) */
  fetch?: typeof fetch;
  /**
   * Carries each POST (status, headers and a body stream back). Overrides `fetch`. @default undici's dispatcher API
   * when loaded through the Node entry point, otherwise a sender over `fetch`
   */
  sender?: HttpSender;
  /** Cap on concurrent connections to the server's origin (the undici sender's pool size). @default 16 */
  maxConnectionsPerOrigin?: number;
  /**
   * Cap on one JSON-RPC message from the server, in bytes: one JSON response body, or one SSE event as sent (its
   * `data:` lines with field names and line ends). It does not bound a whole SSE stream: any number of small progress
   * notifications may come before the response, and the stream's duration is bounded by the request's `timeoutMs`.
   * Past the cap the read fails with `ResponseTooLargeError` and the connection is closed.
   * @default DEFAULT_MAX_RESPONSE_BYTES
   */
  maxResponseBytes?: number;
  /**
   * Origins (`https://host[:port]`) besides the endpoint's own that a redirected POST may be re-sent to, with its
   * body and headers. A redirect anywhere else fails with `RedirectBlockedError` naming the target origin; a 303
   * is never followed (it would turn the POST into a GET). @default [] (same origin only)
   */
  allowRedirectOrigins?: readonly string[];
  /**
   * MCP authorization (OAuth 2.1) through the official SDK's `OAuthClientProvider`; needs the optional peer
   * dependency `@modelcontextprotocol/client`, loaded only when a server asks. See {@link HttpAuthOptions}.
   * (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization)
   */
  auth?: HttpAuthOptions;
  /**
   * The identity of the server this transport reaches, as stored in task records (`TaskRecord.server`) and used to
   * group polls and `Retry-After` pauses. Give one when the default does not tell servers apart well enough for you,
   * or when an application needs to find the server again from a record (the CLI stores how it reached the server).
   * A non-empty string of at most 8192 characters without control characters; it must not hold secrets (records are
   * plain files). Two transports with the same key are treated as the same server.
   * (https://github.com/modelcontextprotocol/ext-tasks, task records resumed on the same server)
   * @default the endpoint's origin and path, e.g. `https://example.com/mcp`
   */
  serverKey?: string;
}
