/**
 * Errors of one request: the server's JSON-RPC error, HTTP and network failures, bad or oversized responses,
 * time budgets, version negotiation and MRTR rounds.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#error-codes)
 *
 * @module
 */
import type { JsonRpcErrorObject } from '../protocol/jsonrpc.js';
import { kBrand, McpClientError } from './base.js';

/**
 * A JSON-RPC error the server answered with (any HTTP status; the body outranks the status, 2.12, 7.1).
 * `code` is the JSON-RPC integer (e.g. -32602), `data` the server's optional data.
 */
export class McpError extends McpClientError {
  static override readonly [kBrand]: string = 'McpError';
  override readonly code: number;
  readonly data: unknown;
  /** The JSON-RPC method that failed. */
  readonly method: string;
  constructor(method: string, error: JsonRpcErrorObject, options?: ErrorOptions & { httpStatus?: number }) {
    super(`${method} failed: ${error.message} (JSON-RPC ${error.code})`, options);
    this.code = error.code;
    this.data = error.data;
    this.method = method;
    this.httpStatus = options?.httpStatus;
  }
  /** HTTP status of the response that carried the error, when the transport is HTTP. */
  readonly httpStatus: number | undefined;
}

/** A non-2xx HTTP response without a JSON-RPC error body. `bodyExcerpt` holds at most 200 characters. */
export class HttpError extends McpClientError {
  static override readonly [kBrand]: string = 'HttpError';
  override readonly code = 'HTTP_ERROR' as const;
  constructor(
    readonly method: string,
    readonly status: number,
    readonly bodyExcerpt: string,
    readonly retryAfterMs?: number,
    options?: ErrorOptions,
  ) {
    super(`${method} failed: HTTP ${status}${bodyExcerpt ? `: ${bodyExcerpt}` : ''}`, options);
  }
}

/** The request never got an HTTP response (DNS, connection refused or reset). The original error is `cause`. */
export class NetworkError extends McpClientError {
  static override readonly [kBrand]: string = 'NetworkError';
  override readonly code = 'NETWORK_ERROR' as const;
  constructor(
    readonly method: string,
    options?: ErrorOptions,
  ) {
    const why = options?.cause instanceof Error ? options.cause.message : String(options?.cause ?? 'unknown');
    super(`${method} failed: network error: ${why}`, options);
  }
}

/** An SSE response stream ended before the response to the request arrived: the request is lost (2.10). */
export class StreamEndedError extends McpClientError {
  static override readonly [kBrand]: string = 'StreamEndedError';
  override readonly code = 'STREAM_ENDED' as const;
  constructor(
    readonly method: string,
    options?: ErrorOptions,
  ) {
    super(`${method} failed: the response stream ended before the response arrived`, options);
  }
}

/**
 * The server answered with something that is not a valid response: bad JSON, wrong shape, wrong id, bad `resultType`.
 * `taskId` is set when a malformed `CreateTaskResult` still named a task (the client then cancelled or recorded it).
 */
export class InvalidResponseError extends McpClientError {
  static override readonly [kBrand]: string = 'InvalidResponseError';
  override readonly code = 'INVALID_RESPONSE' as const;
  /** The task a malformed creation result named, if any. */
  readonly taskId: string | undefined;
  constructor(
    readonly method: string,
    readonly detail: string,
    /** zod issues when a schema rejected the response, kept as they are. */
    readonly issues?: readonly unknown[],
    options?: ErrorOptions & { taskId?: string },
  ) {
    super(`${method} failed: invalid response: ${detail}`, options);
    this.taskId = options?.taskId;
  }
}

/** A response body or stream exceeded `maxResponseBytes`, or a stream outlived its time limit; the connection was closed. */
export class ResponseTooLargeError extends McpClientError {
  static override readonly [kBrand]: string = 'ResponseTooLargeError';
  override readonly code = 'RESPONSE_TOO_LARGE' as const;
  constructor(
    readonly method: string,
    readonly limitBytes: number,
  ) {
    super(`${method} failed: response exceeded ${limitBytes} bytes`);
  }
}

/** A request or wait exceeded its time budget (`timeoutMs` per request, `maxTotalTimeoutMs` per wait). */
export class RequestTimeoutError extends McpClientError {
  static override readonly [kBrand]: string = 'RequestTimeoutError';
  override readonly code = 'REQUEST_TIMEOUT' as const;
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(`${method} timed out after ${timeoutMs} ms`);
  }
}

/** The server supports none of the protocol versions this client speaks (1.8). */
export class UnsupportedProtocolVersionError extends McpClientError {
  static override readonly [kBrand]: string = 'UnsupportedProtocolVersionError';
  override readonly code = 'UNSUPPORTED_PROTOCOL_VERSION' as const;
  constructor(
    readonly requested: string,
    readonly supported: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`server does not support protocol ${requested}; it supports ${supported.join(', ') || 'nothing listed'}`, options);
  }
}

/** An MRTR round asked for input, and no handler or listener was registered to answer it (4.2). */
export class InputRequiredError extends McpClientError {
  static override readonly [kBrand]: string = 'InputRequiredError';
  override readonly code = 'INPUT_REQUIRED' as const;
  constructor(
    readonly method: string,
    /** The keys and kinds that went unanswered. */
    readonly requests: Readonly<Record<string, { method: string }>>,
  ) {
    const keys = Object.entries(requests).map(([k, r]) => `${k} (${r.method})`);
    super(`${method} needs input that no handler answers: ${keys.join(', ')}`);
  }
}

/** The server kept asking for input past `maxInputRounds` (4.5). */
export class TooManyRoundsError extends McpClientError {
  static override readonly [kBrand]: string = 'TooManyRoundsError';
  override readonly code = 'TOO_MANY_ROUNDS' as const;
  constructor(
    readonly method: string,
    readonly rounds: number,
  ) {
    super(`${method} failed: server asked for input ${rounds} times (maxInputRounds)`);
  }
}
