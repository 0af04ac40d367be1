/**
 * The transport-independent reply of {@link TaskServerCore.handle}: an HTTP status, the JSON-RPC response (none for
 * notifications) and the notifications sent before it.
 *
 * @module
 */
import {
  ErrorCode,
  type JsonRpcErrorObject,
  type JsonRpcNotification,
  type JsonRpcResponse,
  type RequestId,
} from '../protocol/index.js';

/**
 * What the core answers to one incoming message.
 *
 * - `status`: the HTTP status a Streamable HTTP transport should use: 200 for results and method-level errors,
 *   202 for an accepted notification, 400 for -32700, -32600, -32602, -32020, -32021, -32022, 404 for -32601, 500
 *   for -32603. Other transports ignore it.
 * - `response`: the JSON-RPC response; absent for notifications.
 * - `notifications`: the notifications produced while handling (e.g. `notifications/progress`), in order; an SSE
 *   transport sends them before `response`.
 */
export interface CoreReply {
  status: number;
  response?: JsonRpcResponse;
  notifications: JsonRpcNotification[];
}

/** The HTTP status for a JSON-RPC error code (see {@link CoreReply}). */
export function httpStatusForError(code: number): number {
  switch (code) {
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.InvalidParams:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400;
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.InternalError:
      return 500;
    default:
      return 200;
  }
}

/** A 200 reply carrying `result`. */
export function resultReply(
  id: RequestId,
  result: Record<string, unknown>,
  notifications: JsonRpcNotification[],
): CoreReply {
  return { status: 200, response: { jsonrpc: '2.0', id, result }, notifications };
}

/** An error reply; `id` is `null` when the request's id could not be read. */
export function errorReply(
  id: RequestId | null,
  error: JsonRpcErrorObject,
  notifications: JsonRpcNotification[],
): CoreReply {
  return { status: httpStatusForError(error.code), response: { jsonrpc: '2.0', id, error }, notifications };
}
