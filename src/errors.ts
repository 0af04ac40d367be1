/**
 * Every error this client throws. Each class has a stable `code` (a string for local failures; the JSON-RPC
 * integer for {@link McpError}), keeps `cause`, and names the operation and the (redacted) task id in its message.
 * `instanceof` works across the ESM and CJS copies of this package (brands via `Symbol.for`).
 * (CLIENT-REQUIREMENTS §7, 7.3; STYLE 12–16)
 *
 * @module
 */
import type { JsonRpcErrorObject } from './protocol/jsonrpc.js';
import type { DetailedTask } from './protocol/tasks.js';

const kBrand = Symbol.for('mcp-tasks-client.errorBrand');

/**
 * Shortens a task id for messages and logs: the first 6 characters and the length, e.g. `t-4f9c…(36)`.
 * Full ids stay on the error's `taskId` property.
 */
export function redactTaskId(taskId: string): string {
  // Whole code points (never half an emoji), control characters made visible (never a raw newline in a log line).
  const chars = Array.from(taskId, (c) => (/[\p{Cc}]/u.test(c) ? `\\u${c.codePointAt(0)?.toString(16).padStart(4, '0')}` : c));
  return chars.length <= 8 ? chars.join('') : `${chars.slice(0, 6).join('')}…(${chars.length})`;
}

/** Stable string codes of the local error classes. */
export type McpClientErrorCode =
  | 'HTTP_ERROR'
  | 'NETWORK_ERROR'
  | 'STREAM_ENDED'
  | 'INVALID_RESPONSE'
  | 'RESPONSE_TOO_LARGE'
  | 'REQUEST_TIMEOUT'
  | 'UNSUPPORTED_PROTOCOL_VERSION'
  | 'INPUT_REQUIRED'
  | 'TOO_MANY_ROUNDS'
  | 'TASK_FAILED'
  | 'TASK_CANCELLED'
  | 'TASK_EXPIRED'
  | 'TASK_NOT_FOUND'
  | 'OUTCOME_UNKNOWN'
  | 'CLIENT_CLOSED'
  | 'SERVER_EXITED'
  // hook: issue-16 (fleet on Redis: src/store/redis/errors.ts)
  | 'LEASE_LOST'
  | 'STORE_UNAVAILABLE';

/**
 * Base class of every error this package throws. `code` is a {@link McpClientErrorCode}, except on
 * {@link McpError} where it is the server's JSON-RPC integer code.
 */
export class McpClientError extends Error {
  static readonly [kBrand]: string = 'McpClientError';
  readonly code: McpClientErrorCode | number = 'NETWORK_ERROR';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }

  /** Cross-realm `instanceof`: matches any copy of the class with the same brand. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    const brand = (this as unknown as Record<symbol, string>)[kBrand];
    for (let p: unknown = value; p !== null && typeof p === 'object'; p = Object.getPrototypeOf(p)) {
      const ctor = (p as { constructor?: unknown }).constructor as Record<symbol, unknown> | undefined;
      if (ctor && Object.prototype.hasOwnProperty.call(ctor, kBrand) && ctor[kBrand] === brand) return true;
    }
    return false;
  }
}

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

/** The server answered with something that is not a valid response: bad JSON, wrong shape, wrong id, bad `resultType`. */
export class InvalidResponseError extends McpClientError {
  static override readonly [kBrand]: string = 'InvalidResponseError';
  override readonly code = 'INVALID_RESPONSE' as const;
  constructor(
    readonly method: string,
    readonly detail: string,
    /** zod issues when a schema rejected the response, kept as they are. */
    readonly issues?: readonly unknown[],
    options?: ErrorOptions,
  ) {
    super(`${method} failed: invalid response: ${detail}`, options);
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

/** Base of the errors that concern one task; carries the full `taskId` and the last known task. */
export class TaskError extends McpClientError {
  static override readonly [kBrand]: string = 'TaskError';
  constructor(
    message: string,
    readonly taskId: string,
    readonly task: DetailedTask | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The task ended `failed`. `error` is the server's JSON-RPC error (5.9); `undefined` if the server sent none. */
export class TaskFailedError extends TaskError {
  static override readonly [kBrand]: string = 'TaskFailedError';
  override readonly code = 'TASK_FAILED' as const;
  readonly error: JsonRpcErrorObject | undefined;
  constructor(task: DetailedTask & { status: 'failed' }, options?: ErrorOptions) {
    const why = task.error ? `${task.error.message} (JSON-RPC ${task.error.code})` : (task.statusMessage ?? 'no reason given');
    super(`task ${redactTaskId(task.taskId)} failed: ${why}`, task.taskId, task, options);
    this.error = task.error;
  }
}

/** The task ended `cancelled`, or the caller cancelled it. `task` is absent when no status was seen after the cancel. */
export class TaskCancelledError extends TaskError {
  static override readonly [kBrand]: string = 'TaskCancelledError';
  override readonly code = 'TASK_CANCELLED' as const;
  constructor(taskId: string, task?: DetailedTask, options?: ErrorOptions) {
    super(`task ${redactTaskId(taskId)} was cancelled${task?.statusMessage ? `: ${task.statusMessage}` : ''}`, taskId, task, options);
  }
}

/**
 * The server no longer knows the task (-32602) and the local clock is past creation + `ttlMs` (5.10, 5.16).
 * `expiredAt` is epoch milliseconds.
 */
export class TaskExpiredError extends TaskError {
  static override readonly [kBrand]: string = 'TaskExpiredError';
  override readonly code = 'TASK_EXPIRED' as const;
  constructor(
    taskId: string,
    readonly expiredAt: number,
    task?: DetailedTask,
    options?: ErrorOptions,
  ) {
    super(`task ${redactTaskId(taskId)} expired at ${new Date(expiredAt).toISOString()}`, taskId, task, options);
  }
}

/** Why a task is reported unknown. */
export type TaskNotFoundReason = 'unknown' | 'not-yet-visible';

/** The server does not know the task (-32602) and its TTL has not passed, or was never known here (5.16). */
export class TaskNotFoundError extends TaskError {
  static override readonly [kBrand]: string = 'TaskNotFoundError';
  override readonly code = 'TASK_NOT_FOUND' as const;
  constructor(
    taskId: string,
    readonly reason: TaskNotFoundReason = 'unknown',
    task?: DetailedTask,
    options?: ErrorOptions,
  ) {
    super(`task ${redactTaskId(taskId)} is unknown to the server${reason === 'not-yet-visible' ? ' (not yet visible after creation)' : ''}`, taskId, task, options);
  }
}

/** A creation request failed before any response arrived: the work may or may not have started. */
export class OutcomeUnknownError extends McpClientError {
  static override readonly [kBrand]: string = 'OutcomeUnknownError';
  override readonly code = 'OUTCOME_UNKNOWN' as const;
  constructor(
    readonly method: string,
    options?: ErrorOptions,
  ) {
    super(`${method}: no response arrived; the work may or may not have started on the server`, options);
  }
}

/** The client was closed while the call was pending. */
export class ClientClosedError extends McpClientError {
  static override readonly [kBrand]: string = 'ClientClosedError';
  override readonly code = 'CLIENT_CLOSED' as const;
  constructor() {
    super('the client was closed');
  }
}

/**
 * True when `value` is an error of this package, optionally with the given `code`.
 *
 * @example
 * if (isMcpClientError(err, 'TASK_EXPIRED')) { … }
 */
export function isMcpClientError(value: unknown, code?: McpClientErrorCode | number): value is McpClientError {
  return value instanceof McpClientError && (code === undefined || value.code === code);
}

/**
 * A stdio server process exited, was killed, or could not be started, while calls were pending (or before a
 * call could be sent). `exitCode` and `signal` come from the child process; both are `null` when it never started
 * (the spawn error is `cause`). `stderrTail` holds the last few hundred characters the server wrote to stderr.
 */
export class ServerExitedError extends McpClientError {
  static override readonly [kBrand]: string = 'ServerExitedError';
  override readonly code = 'SERVER_EXITED' as const;
  constructor(
    /** The command line, e.g. `node server.js --stdio`. */
    readonly command: string,
    readonly exitCode: number | null,
    readonly signal: string | null,
    readonly stderrTail = '',
    options?: ErrorOptions,
  ) {
    const how =
      exitCode === null && signal === null
        ? `could not be started${options?.cause instanceof Error ? `: ${options.cause.message}` : ''}`
        : signal !== null
          ? `was killed by ${signal}`
          : `exited with code ${exitCode}`;
    super(`stdio server "${command}" ${how}`, options);
  }
}
