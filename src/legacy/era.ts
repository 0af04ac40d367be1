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
