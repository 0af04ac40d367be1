/**
 * What a failed request says about the server: it may have acted on it (sent, no response), or it provably never
 * reached it (nothing listened, the host could not be found or reached).
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#streamable-http)
 *
 * @module
 * @internal
 */
import { HttpError, NetworkError, RequestTimeoutError, StreamEndedError } from '../errors.js';

/**
 * True when a request failed before any response arrived, so the server may or may not have acted on it: network
 * errors, a stream cut before its response, a per-request timeout (not one that ran out before anything was
 * written), and 502/503/504 from an intermediary.
 */
export function isLostBeforeResponse(error: unknown): boolean {
  if (error instanceof HttpError) return error.status === 502 || error.status === 503 || error.status === 504;
  if (error instanceof NetworkError) return !neverSent(error);
  return error instanceof StreamEndedError || (error instanceof RequestTimeoutError && !error.notSent);
}

/** Socket errors that prove the request never left: nothing listened, or the host could not be found or reached. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/** True when a network error's cause chain shows the request was never delivered (e.g. `ECONNREFUSED`). */
export function neverSent(error: unknown): boolean {
  return notSentCode(error) !== undefined;
}

/** The socket error code (e.g. `ECONNREFUSED`) that proves `error`'s request was never delivered, if any. */
export function notSentCode(error: unknown): string | undefined {
  for (
    let e: unknown = error, depth = 0;
    e !== null && typeof e === 'object' && depth < 6;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_SENT_CODES.has(code)) return code;
    const errors = (e as { errors?: unknown }).errors; // AggregateError (happy eyeballs: one error per address)
    if (Array.isArray(errors) && errors.length > 0) {
      const codes = errors.map((x) => notSentCode(x));
      if (codes.every((c) => c !== undefined)) return codes[0];
    }
  }
  return undefined;
}
