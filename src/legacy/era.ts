/**
 * Era detection for a client that speaks both 2026-07-28 and 2025-11-25: try the modern request; a 400 whose body
 * is a recognised modern JSON-RPC error (or 404 + -32601) means modern; any other 400/404/405 means legacy. Over
 * stdio a `server/discover` probe decides, and any non-modern error or a timeout means legacy. (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning)
 *
 * @module
 */
import { HttpError, McpError, RequestTimeoutError, UnsupportedProtocolVersionError } from '../errors.js';
import { ErrorCode, LEGACY_PROTOCOL_VERSION, MODERN_REJECTION_CODES } from '../protocol/constants.js';

export type { Era } from '../tasks/backend.js';
import type { Era } from '../tasks/backend.js';
import type { TransportTarget } from '../transport/transport.js';

/**
 * What one failed modern request says about the era; `undefined` when it says nothing (a network error, an exited
 * server, an abort): the caller then rethrows and decides nothing.
 */
export function eraFromError(error: unknown, probe: 'request' | 'discover'): Era | undefined {
  // -32022 that lists no modern version we speak but does list 2025-11-25: the server speaks the older revision,
  // which this client reaches through the legacy path (versioning.mdx § Protocol Version Negotiation: "The client
  // SHOULD select a mutually supported version from the supported list"). Never cached as modern.
  if (error instanceof UnsupportedProtocolVersionError && error.cause instanceof McpError) {
    if (error.supported.includes(LEGACY_PROTOCOL_VERSION)) return 'legacy';
    // -32022 that listed no version we speak at all: the server is modern (2025-11-25 servers do not know -32022).
    return eraFromError(error.cause, probe);
  }
  if (error instanceof McpError) {
    const status = error.httpStatus;
    if (status === undefined) {
      // stdio (or in-memory): a modern server answers discover; other errors mean the probe was not understood.
      if (probe === 'discover') return MODERN_REJECTION_CODES.includes(error.code) ? 'modern' : 'legacy';
      return undefined;
    }
    if (status === 400 && MODERN_REJECTION_CODES.includes(error.code)) return 'modern';
    if (status === 404 && error.code === ErrorCode.MethodNotFound) return 'modern';
    return status === 400 || status === 404 || status === 405 ? 'legacy' : undefined;
  }
  if (error instanceof HttpError)
    return error.status === 400 || error.status === 404 || error.status === 405 ? 'legacy' : undefined;
  if (error instanceof RequestTimeoutError && probe === 'discover') return 'legacy';
  return undefined;
}

/** Whether `error` (or its cause) is an HTTP 404 answer. */
function is404(error: unknown): boolean {
  if (error instanceof HttpError) return error.status === 404;
  if (error instanceof McpError) return error.httpStatus === 404;
  return error instanceof Error && error.cause !== undefined && is404(error.cause);
}

/**
 * The error for an HTTP URL where both eras' first requests got 404 (the modern request, then the 2025-11-25
 * `initialize` it fell back to): no MCP endpoint there, most often a URL missing its path (`/mcp`). `undefined` when
 * that is not what happened, so the legacy failure stands. The URL is shown without credentials or query.
 */
export function notAnEndpoint(
  modern: unknown,
  legacy: unknown,
  target: TransportTarget | undefined,
): HttpError | undefined {
  if (target?.kind !== 'http' || !is404(modern) || !is404(legacy)) return undefined;
  const at = `${target.url.protocol}//${target.url.host}${target.url.pathname}`;
  const example = target.url.pathname.endsWith('/mcp') ? '' : ` e.g. ${at.replace(/\/?$/, '/mcp')}`;
  const method = modern instanceof HttpError || modern instanceof McpError ? modern.method : 'request';
  const body =
    modern instanceof McpError ? modern.serverMessage : modern instanceof HttpError ? modern.bodyExcerpt : '';
  return new HttpError(method, 404, body, undefined, {
    cause: legacy,
    message: `HTTP 404 at ${at}: is this the MCP endpoint?${example}`,
  });
}
