/**
 * Every error this client throws. Each class has a stable `code` (a string for local failures; the JSON-RPC
 * integer for {@link McpError}), keeps `cause`, and names the operation and the (redacted) task id in its message.
 * `instanceof` works across the ESM and CJS copies of this package (brands via `Symbol.for`).
 *
 * @module
 */

/** The brand key every error class sets, for cross-copy `instanceof`. */
export const kBrand = Symbol.for('mcp-tasks-client.errorBrand');

/**
 * Shortens a task id for messages and logs: the first 6 characters and the length, e.g. `t-4f9c…(36)`.
 * Full ids stay on the error's `taskId` property.
 */
export function redactTaskId(taskId: string): string {
  // Whole code points (never half an emoji), control characters made visible (never a raw newline in a log line).
  const chars = Array.from(taskId, (c) =>
    /[\p{Cc}]/u.test(c) ? `\\u${c.codePointAt(0)?.toString(16).padStart(4, '0')}` : c,
  );
  return chars.length <= 8 ? chars.join('') : `${chars.slice(0, 6).join('')}…(${chars.length})`;
}

/** Stable string codes of the local error classes. */
export type McpClientErrorCode =
  | 'HTTP_ERROR'
  | 'NETWORK_ERROR'
  | 'STREAM_ENDED'
  | 'INVALID_RESPONSE'
  | 'INVALID_OUTPUT'
  | 'RESPONSE_TOO_LARGE'
  | 'REQUEST_TIMEOUT'
  | 'UNSUPPORTED_PROTOCOL_VERSION'
  | 'INPUT_REQUIRED'
  | 'TOO_MANY_ROUNDS'
  | 'TOO_MANY_INPUT_REQUESTS'
  | 'TASK_FAILED'
  | 'TASK_CANCELLED'
  | 'TASK_EXPIRED'
  | 'TASK_NOT_FOUND'
  | 'TASK_FOLLOWED_ELSEWHERE'
  | 'TASK_DETACHED'
  | 'CANCEL_NOT_CONFIRMED'
  | 'CANCEL_NOT_DELIVERED'
  | 'INPUT_NOT_DELIVERED'
  | 'OUTCOME_UNKNOWN'
  | 'CLIENT_CLOSED'
  | 'SERVER_EXITED'
  | 'REDIRECT_BLOCKED'
  | 'INVALID_HEADER'
  | 'GET_HEADERS_FAILED'
  | 'PAGINATION_FAILED'
  | 'AUTHORIZATION_REQUIRED'
  | 'AUTHORIZATION_FAILED'
  // Fleet on Redis: src/store/redis/errors.ts
  | 'LEASE_LOST'
  | 'STORE_UNAVAILABLE';

/**
 * Base class of every error this package throws. `code` is a {@link McpClientErrorCode}, except on
 * {@link McpError} where it is the server's JSON-RPC integer code.
 */
export class McpClientError extends Error {
  static readonly [kBrand]: string = 'McpClientError';
  readonly code: McpClientErrorCode | number = 'NETWORK_ERROR';
  /**
   * The full id of the task this failure concerns, when there is one (messages show it redacted): always on the
   * task errors; on any other error (e.g. `ClientClosedError`, `NetworkError`, `RequestTimeoutError`) when the call
   * had already created its task, so the caller can continue (`client.task(id)`) or cancel it by id.
   * Tasks: https://github.com/modelcontextprotocol/ext-tasks
   */
  declare readonly taskId?: string | undefined;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }

  /** Cross-realm `instanceof`: matches any copy of the class with the same brand. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    const brand = (this as unknown as Record<symbol, string>)[kBrand];
    for (let p: unknown = value; p !== null && typeof p === 'object'; p = Object.getPrototypeOf(p)) {
      const ctor = (p as { constructor?: unknown }).constructor as Record<symbol, unknown> | undefined;
      if (ctor && Object.hasOwn(ctor, kBrand) && ctor[kBrand] === brand) return true;
    }
    return false;
  }
}
