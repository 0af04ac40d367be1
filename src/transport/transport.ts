/**
 * The transport contract: move one JSON-RPC request and return its result, or one notification.
 * Transports know nothing of tasks or retries of work. (DESIGN.md § Layers)
 *
 * @module
 */
import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';

/** Per-request options a transport honours. */
export interface TransportRequestOptions {
  /** Aborting closes the request (HTTP: aborts the POST, 2.11); the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Called for each notification that arrives for this request before its response (e.g. `notifications/progress`). */
  onNotification?: (notification: JsonRpcNotification) => void;
  /** Extra transport headers for this request (HTTP only), e.g. `Mcp-Param-*` (2.7). */
  headers?: Record<string, string>;
  /** Per-request time budget in milliseconds; past it the request fails with `RequestTimeoutError`. */
  timeoutMs?: number;
}

/**
 * Moves JSON-RPC messages to one server.
 *
 * `request` resolves with the response's `result` object, or rejects with `McpError` (JSON-RPC error body),
 * `HttpError`, `NetworkError`, `StreamEndedError`, `InvalidResponseError`, `ResponseTooLargeError`,
 * `RequestTimeoutError`, or the abort signal's reason.
 */
export interface Transport {
  /** A stable identity of the server this transport reaches (HTTP: the endpoint's origin). Used to group polls. */
  readonly serverKey: string;
  /** Sends one request and resolves with its `result`. */
  request(message: JsonRpcRequest, options?: TransportRequestOptions): Promise<Record<string, unknown>>;
  /** Sends one notification (no response expected). */
  notify(message: JsonRpcNotification, options?: TransportRequestOptions): Promise<void>;
  /** Releases resources; pending requests reject. */
  close(): Promise<void>;
}
