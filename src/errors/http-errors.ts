/**
 * Errors of the HTTP transport's own safety checks: a redirect that would carry the request elsewhere, and a header
 * value that cannot be sent. Both are local refusals: nothing reached the other origin, and no value is echoed.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http)
 *
 * @module
 */
import { kBrand, McpClientError } from './base.js';

/**
 * The server answered a POST with a redirect this client will not follow: to another origin not named in
 * `allowRedirectOrigins`, a `303 See Other` (following it would turn the POST into a GET), a redirect without a
 * usable `Location`, or more than 5 hops. Nothing was sent to the target.
 * `targetOrigin` is the origin the server pointed at (`undefined` when it gave none that parses, or the runtime hid it).
 * See https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#sending-messages
 * (every message is a POST to the MCP endpoint) and RFC 9110 § 15.4.
 */
export class RedirectBlockedError extends McpClientError {
  static override readonly [kBrand]: string = 'RedirectBlockedError';
  override readonly code = 'REDIRECT_BLOCKED' as const;
  constructor(
    readonly method: string,
    /** The redirect's HTTP status (301, 302, 303, 307, 308; 0 for a browser's opaque redirect). */
    readonly status: number,
    readonly targetOrigin: string | undefined,
    readonly reason: 'cross-origin' | 'see-other' | 'no-location' | 'too-many' | 'opaque',
  ) {
    const to = targetOrigin === undefined ? 'an unknown target' : targetOrigin;
    const why = {
      'cross-origin': `a redirect to another origin (${to}); allow it with the allowRedirectOrigins option`,
      'see-other': `a 303 redirect to ${to}, which would turn the POST into a GET`,
      'no-location': 'a redirect without a usable Location header',
      'too-many': `too many redirects (last to ${to})`,
      opaque: 'a redirect the runtime does not let us inspect',
    }[reason];
    super(`${method} failed: HTTP ${status}: not followed: ${why}`);
  }
}

/**
 * A header from the `headers` option, `getHeaders()` or per-request `headers` cannot be sent: its name is not an
 * RFC 9110 token, or its value has CR, LF, another control character, or a character outside Latin-1. The message
 * names the source and (for a valid name) the header, never the value: header values are often credentials.
 * Also thrown for an `x-mcp-header` number that is not an integer within ±(2^53−1)
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#schema-extension).
 */
export class InvalidHeaderError extends McpClientError {
  static override readonly [kBrand]: string = 'InvalidHeaderError';
  override readonly code = 'INVALID_HEADER' as const;
  constructor(
    /** Where the header came from: `headers`, `getHeaders()` or `request headers`. */
    readonly source: string,
    /** The header's name when it is a valid token; `undefined` when the name itself is invalid. */
    readonly headerName: string | undefined,
    readonly reason: string,
  ) {
    super(
      `invalid header from ${source}${headerName === undefined ? '' : ` "${headerName}"`}: ${reason} (the value is not shown)`,
    );
  }
}

/**
 * The transport's `getHeaders()` threw or rejected (e.g. a token refresh failed): nothing was sent (`notSent` is
 * always true), so no work was started and the request is not re-sent. The original failure is `cause` (a thrown
 * non-Error too); the message names the request only, never a header value.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports)
 */
export class GetHeadersError extends McpClientError {
  static override readonly [kBrand]: string = 'GetHeadersError';
  override readonly code = 'GET_HEADERS_FAILED' as const;
  /** Always true: the request was not written. */
  readonly notSent = true as const;
  constructor(
    readonly method: string,
    options: ErrorOptions,
  ) {
    const why =
      options.cause instanceof Error
        ? options.cause.message
        : typeof options.cause === 'string'
          ? options.cause
          : 'a non-Error value';
    super(`${method} failed: getHeaders() failed: ${why.slice(0, 200)}; nothing was sent`, options);
  }
}
