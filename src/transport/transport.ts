/**
 * The transport contract: move one JSON-RPC request and return its result, or one notification.
 * Transports know nothing of tasks or retries of work.
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

/**
 * How to reach the same server in the 2025-11-25 era (`initialize`, sessions) through the official SDK 1.x client,
 * should era detection find a legacy server. The factory returns an SDK `Transport` (typed loosely so that this
 * package does not depend on the SDK's types).
 */
export interface LegacyTarget {
  /** `request`: on HTTP the first modern request tells the era; `discover`: probe with `server/discover` (stdio). */
  readonly probe: 'request' | 'discover';
  /** Creates the SDK transport; called once, lazily, when a legacy server was detected. */
  createSdkTransport(): Promise<unknown>;
}

/** A transport that can also reach a legacy (2025-11-25) server through the official SDK. */
export interface LegacyCapableTransport extends Transport {
  readonly legacyTarget: LegacyTarget;
}

/** True when `transport` can fall back to the legacy era. */
export function hasLegacyTarget(transport: Transport): transport is LegacyCapableTransport {
  return typeof (transport as Partial<LegacyCapableTransport>).legacyTarget?.createSdkTransport === 'function';
}
