/**
 * The transport contract: move one JSON-RPC request and return its result, or one notification.
 * Transports know nothing of tasks or retries of work.
 *
 * @module
 */
import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { JsonRpcChannel } from './channel.js';

/** Per-request options a transport honours. */
export interface TransportRequestOptions {
  /** Aborting closes the request (HTTP: aborts the POST); the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Called for each notification that arrives for this request before its response (e.g. `notifications/progress`). */
  onNotification?: (notification: JsonRpcNotification) => void;
  /**
   * Called for a message on this request's response stream that was skipped because it is malformed (SSE data that
   * is not JSON, a notification that does not parse): a server violation, reported, never the end of the request.
   */
  onViolation?: (detail: string) => void;
  /** Extra transport headers for this request (HTTP only), e.g. `Mcp-Param-*`. */
  headers?: Record<string, string>;
  /** Per-request time budget in milliseconds; past it the request fails with `RequestTimeoutError`. */
  timeoutMs?: number;
}

/**
 * The key under which the engine's request options carry a check the HTTP transport runs right before the POST is
 * written (a throw fails the request with that error, unsent): the store's poll fence confirms there that the lease
 * of the polled task is still this process's. Not part of {@link TransportRequestOptions}: only the engine sets it.
 * @internal
 */
export const WRITE_CHECK: unique symbol = Symbol('mcp-tasks-client.writeCheck');

/** Request options that may carry a {@link WRITE_CHECK}. @internal */
export interface WriteCheckCarrier {
  readonly [WRITE_CHECK]?: () => void;
}

/** Longest accepted `serverKey` option, in characters. */
const MAX_SERVER_KEY_CHARS = 8192;

/**
 * Checks a transport's `serverKey` option: `undefined` stays `undefined` (the transport's default applies).
 *
 * @throws TypeError naming `owner` when the key is not a string, is empty, is longer than 8192 characters, or holds
 * a control character.
 * @internal
 */
export function checkServerKey(owner: string, key: unknown): string | undefined {
  if (key === undefined) return undefined;
  if (
    typeof key !== 'string' ||
    key === '' ||
    key.length > MAX_SERVER_KEY_CHARS ||
    /[\u0000-\u001f\u007f]/.test(key)
  ) {
    const shown = typeof key === 'string' ? JSON.stringify(key.slice(0, 80)) : typeof key;
    throw new TypeError(
      `${owner}: serverKey must be a non-empty string of at most ${MAX_SERVER_KEY_CHARS} characters without control characters, got ${shown}`,
    );
  }
  return key;
}

/**
 * Moves JSON-RPC messages to one server.
 *
 * `request` resolves with the response's `result` object, or rejects with `McpError` (JSON-RPC error body),
 * `HttpError`, `NetworkError`, `StreamEndedError`, `InvalidResponseError`, `ResponseTooLargeError`,
 * `RequestTimeoutError`, or the abort signal's reason.
 */
export interface Transport {
  /**
   * A stable identity of the server this transport reaches (HTTP: the endpoint's origin and path; stdio: `stdio:` and
   * the command line; both can be set with a `serverKey` option). Task records store it; polls are grouped by it.
   */
  readonly serverKey: string;
  /** Sends one request and resolves with its `result`. */
  request(message: JsonRpcRequest, options?: TransportRequestOptions): Promise<Record<string, unknown>>;
  /** Sends one notification (no response expected). */
  notify(message: JsonRpcNotification, options?: TransportRequestOptions): Promise<void>;
  /** Releases resources; pending requests reject. */
  close(): Promise<void>;
  /** What this transport reaches, when a 2025-11-25 server there could be reached another way. */
  readonly target?: TransportTarget;
}

/**
 * What a transport reaches, described as data, so that another era's client can reach the same server: only
 * `src/legacy/` turns a target into a 2025-11-25 session (its own Streamable HTTP channel, or the target's stdio
 * channel).
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports)
 */
export type TransportTarget = HttpTarget | StdioTarget | CustomTarget;

/** A Streamable HTTP endpoint: static headers, a per-request header source, and the `fetch` to use. */
export interface HttpTarget {
  readonly kind: 'http';
  readonly url: URL;
  readonly headers?: Record<string, string>;
  readonly getHeaders?: () => Record<string, string> | Promise<Record<string, string>>;
  readonly fetch?: typeof fetch;
}

/** A server started as a child process speaking stdio. */
export interface StdioTarget {
  readonly kind: 'stdio';
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: Record<string, string | undefined>;
  readonly inheritEnv?: boolean;
  readonly cwd?: string;
  readonly onStderr?: (text: string) => void;
  /**
   * Starts another process with the same command line as a raw message channel, for a 2025-11-25 session (set by
   * `StdioTransport`, which keeps the Node-only process code out of the main entry). Without it, a legacy stdio
   * server cannot be reached.
   */
  readonly openChannel?: () => JsonRpcChannel;
}

/**
 * A caller-built way to reach a 2025-11-25 server (an embedder's own SDK transport, or a test's in-memory pair).
 * `probe` says how the era is told: `request` (the first modern request decides) or `discover`.
 */
export interface CustomTarget {
  readonly kind: 'custom';
  readonly probe: 'request' | 'discover';
  /**
   * Returns a {@link JsonRpcChannel}: any object of that shape, such as an official SDK 1.x `Transport` (typed
   * loosely so this package does not depend on the SDK's types).
   */
  createSdkTransport(): Promise<unknown>;
}

/** How the era of `target` is told: on HTTP the first modern request decides; stdio probes `server/discover`. */
export function probeOf(target: TransportTarget): 'request' | 'discover' {
  return target.kind === 'http' ? 'request' : target.kind === 'stdio' ? 'discover' : target.probe;
}
