/**
 * Errors of one request: the server's JSON-RPC error, HTTP and network failures, bad or oversized responses,
 * time budgets, version negotiation and MRTR rounds.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#error-codes)
 *
 * @module
 */
import type { JsonRpcErrorObject } from '../protocol/jsonrpc.js';
import { printableExcerpt } from '../protocol/printable.js';
import { kBrand, McpClientError, redactTaskId } from './base.js';

/**
 * A JSON-RPC error the server answered with (any HTTP status; the body outranks the status).
 * `code` is the JSON-RPC integer (e.g. -32602), `data` the server's optional data.
 */
export class McpError extends McpClientError {
  static override readonly [kBrand]: string = 'McpError';
  override readonly code: number;
  readonly data: unknown;
  /** The JSON-RPC method that failed. */
  readonly method: string;
  /** The server's `error.message` exactly as received (the `message` of this error shows it escaped and cut at 1,000 characters). */
  readonly serverMessage: string;
  constructor(
    method: string,
    error: JsonRpcErrorObject,
    options?: ErrorOptions & { httpStatus?: number; retryAfterMs?: number },
  ) {
    super(
      `${method} failed: ${printableExcerpt(String(error.message), 1_000)} (JSON-RPC ${error.code})`,
      options,
    );
    this.serverMessage = error.message;
    this.code = error.code;
    this.data = error.data;
    this.method = method;
    this.httpStatus = options?.httpStatus;
    this.retryAfterMs = options?.retryAfterMs;
  }
  /** HTTP status of the response that carried the error, when the transport is HTTP. */
  readonly httpStatus: number | undefined;
  /**
   * The `Retry-After` of the HTTP response that carried the error (ms), when it had a valid one (RFC 9110 § 10.2.3):
   * a 429 or 503 with a JSON-RPC body still asks the client to wait.
   */
  readonly retryAfterMs: number | undefined;
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
    /** `message`: a message that says more than the status and body (e.g. that the URL is no MCP endpoint). */
    options?: ErrorOptions & { message?: string },
  ) {
    super(
      options?.message ?? `${method} failed: HTTP ${status}${bodyExcerpt ? `: ${bodyExcerpt}` : ''}`,
      options,
    );
  }
}

/** Options of {@link NetworkError}. */
export interface NetworkErrorOptions extends ErrorOptions {
  /**
   * Set when the failure proves the request never reached the server (e.g. `ECONNREFUSED`, `ENOTFOUND`): `code` is
   * the socket error code, `attempts` how many times it was tried. Such a request started nothing.
   */
  notSent?: { code: string; attempts: number };
}

/**
 * The request never got an HTTP response (DNS, connection refused or reset). The original error is `cause`. When
 * `notSent` is true, nothing reached the server, so no work was started, even after `attempts` tries.
 */
export class NetworkError extends McpClientError {
  static override readonly [kBrand]: string = 'NetworkError';
  override readonly code = 'NETWORK_ERROR' as const;
  /** True when the request provably never reached the server (the connection was refused, the host not found). */
  readonly notSent: boolean;
  /** How many times the request was tried, when known (with `notSent`). */
  readonly attempts: number | undefined;
  constructor(
    readonly method: string,
    options?: NetworkErrorOptions,
  ) {
    const why = options?.cause instanceof Error ? options.cause.message : String(options?.cause ?? 'unknown');
    const notSent = options?.notSent;
    const tail = notSent
      ? ` (${notSent.code}); nothing was sent: the server could not be reached in ${notSent.attempts} ${notSent.attempts === 1 ? 'attempt' : 'attempts'}`
      : '';
    super(`${method} failed: network error: ${why}${tail}`, options);
    this.notSent = notSent !== undefined;
    this.attempts = notSent?.attempts;
  }
}

/** An SSE response stream ended before the response to the request arrived: the request is lost. */
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
 * What this client did about the task a malformed `CreateTaskResult` named ({@link InvalidResponseError.taskCancel}):
 * the work may be running on the server, so it is cancelled (`onAbort: 'cancel'`) or left running and reported.
 * An acknowledgement of `tasks/cancel` only records the request: the task is cancelled only if the server later
 * reports status `cancelled`.
 *
 * - `cancel-requested`: the server acknowledged `tasks/cancel`.
 * - `cancel-not-confirmed`: `tasks/cancel` reached the server, but its reply was not the acknowledgement (e.g.
 *   `resultType: "task"`); `cause` is the {@link InvalidResponseError} about that reply.
 * - `cancel-not-delivered`: `tasks/cancel` failed; `cause` is the last failure. `refused` is true when the server
 *   answered with an error (e.g. -32602: it does not know the task), false when transient failures (network,
 *   timeouts, 429, 5xx) outlasted the retries or the client closed; the task may still be running.
 * - `not-sent`: no `tasks/cancel` was sent. `'detached'`: the call's `onAbort` is `'detach'` (a usable id is
 *   recorded in the store when there is one); `'id-too-long'`: the id, encoded for the `Mcp-Name` header, is over
 *   `MAX_CANCEL_NAME_HEADER_BYTES`; `'id-in-use'`: the server gave this call the id of a task another call of this
 *   client created with a different request (cancelling it would cancel that call's work; a `serverViolation`
 *   event names it). A `warning` event names the task (escaped), except for `'id-in-use'`.
 *
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
 */
export type TaskCancelOutcome =
  | { readonly kind: 'cancel-requested' }
  | { readonly kind: 'cancel-not-confirmed'; readonly cause: unknown }
  | { readonly kind: 'cancel-not-delivered'; readonly refused: boolean; readonly cause: unknown }
  | { readonly kind: 'not-sent'; readonly reason: 'detached' | 'id-too-long' | 'id-in-use' };

/**
 * The server answered with something that is not a valid response: bad JSON, wrong shape, wrong id, bad `resultType`.
 * When a malformed `CreateTaskResult` still named a task, `taskIdEscaped` reports it, `taskId` holds it when usable,
 * and `taskCancel` says whether it was cancelled, recorded or left running.
 */
export class InvalidResponseError extends McpClientError {
  static override readonly [kBrand]: string = 'InvalidResponseError';
  override readonly code = 'INVALID_RESPONSE' as const;
  /** The task a malformed creation result named, if any, when its id is usable (safe to store, print, send back). */
  override readonly taskId: string | undefined;
  /**
   * The `taskId` a creation result named, usable or not, in a printable form to report it by: control characters,
   * bidi controls and lone surrogates written as `\uXXXX`, cut after 256 UTF-16 units with `…(N chars)`. Never
   * the raw id (which may be hostile); equal to `taskId` for a usable short id. A `taskId` that was no string
   * (a number, an object: the spec makes it a string) is given as its JSON text, e.g. `12345` or `{"a":1}`.
   */
  readonly taskIdEscaped: string | undefined;
  /**
   * What was done about the task a malformed creation result named: `tasks/cancel` acknowledged, not confirmed or
   * not delivered, or not sent (see {@link TaskCancelOutcome}). `undefined` when no task was named.
   */
  readonly taskCancel: TaskCancelOutcome | undefined;
  /**
   * True when the reply to the request could not be read as a JSON-RPC response to it (not JSON, a malformed or
   * foreign envelope, a notification or request where the response belongs): the request reached the server, but
   * what it did is unknown. A creation request failing so is reported as `OutcomeUnknownError` with this as `cause`.
   */
  readonly unreadableReply: boolean;
  constructor(
    readonly method: string,
    readonly detail: string,
    /** zod issues when a schema rejected the response, kept as they are. */
    readonly issues?: readonly unknown[],
    options?: ErrorOptions & {
      taskId?: string;
      taskIdEscaped?: string;
      taskCancel?: TaskCancelOutcome;
      unreadableReply?: boolean;
    },
  ) {
    super(`${method} failed: invalid response: ${detail}`, options);
    this.unreadableReply = options?.unreadableReply === true;
    this.taskId = options?.taskId;
    this.taskIdEscaped = options?.taskIdEscaped;
    this.taskCancel = options?.taskCancel;
  }
}

/**
 * One message from the server passed the size limit (`limitBytes`): a JSON body or one SSE event over
 * `maxResponseBytes`, or one stdio line over `maxLineBytes`. The connection was closed. A stream of many small
 * messages is bounded by the request's `timeoutMs` instead (`RequestTimeoutError`).
 */
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

/**
 * A request or wait exceeded its time budget (`timeoutMs` per request, `maxTotalTimeoutMs` per wait). `notSent` is
 * true when the budget ran out before the request was written (a transport's `getHeaders()` had not resolved):
 * nothing reached the server, so no work was started, and the request is not re-sent.
 */
export class RequestTimeoutError extends McpClientError {
  static override readonly [kBrand]: string = 'RequestTimeoutError';
  override readonly code = 'REQUEST_TIMEOUT' as const;
  /** True when nothing was sent: the budget ran out while the request's headers were being obtained. */
  readonly notSent: boolean;
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
    options?: ErrorOptions & { notSent?: boolean },
  ) {
    super(
      `${method} timed out after ${timeoutMs} ms${options?.notSent ? '; nothing was sent (getHeaders() did not resolve in time)' : ''}`,
      options,
    );
    this.notSent = options?.notSent === true;
  }
}

/** The server supports none of the protocol versions this client speaks. */
export class UnsupportedProtocolVersionError extends McpClientError {
  static override readonly [kBrand]: string = 'UnsupportedProtocolVersionError';
  override readonly code = 'UNSUPPORTED_PROTOCOL_VERSION' as const;
  constructor(
    readonly requested: string,
    /** The versions the server listed, exactly as sent (the message shows them escaped and cut). */
    readonly supported: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`server does not support protocol ${requested}; it supports ${shownVersions(supported)}`, options);
  }
}

/** The versions a server listed, as a message shows them: at most 20, each escaped and cut at 100 characters. */
function shownVersions(supported: readonly string[]): string {
  if (supported.length === 0) return 'nothing listed';
  const shown = supported.slice(0, 20).map((v) => printableExcerpt(v, 100));
  return shown.join(', ') + (supported.length > 20 ? `, …(${supported.length - 20} more)` : '');
}

/**
 * A question no handler or `inputRequired` listener was registered to answer: an MRTR round's, or a 2025-11-25
 * server's request (`elicitation/create`, `sampling/createMessage`, `roots/list`), which is answered with an error.
 */
export class InputRequiredError extends McpClientError {
  static override readonly [kBrand]: string = 'InputRequiredError';
  override readonly code = 'INPUT_REQUIRED' as const;
  constructor(
    readonly method: string,
    /** The keys and kinds that went unanswered. */
    readonly requests: Readonly<Record<string, { method: string }>>,
  ) {
    const keys = Object.entries(requests).map(
      ([k, r]) => `${printableExcerpt(k, 200)} (${printableExcerpt(String(r.method), 100)})`,
    );
    super(`${method} needs input that no handler answers: ${keys.join(', ')}`);
  }
}

/**
 * The server asked for input again after the call had answered `maxInputRounds` MRTR rounds: `rounds` is the number
 * of rounds answered (= `maxInputRounds`); the request was sent `rounds + 1` times; the last questions were not asked.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr)
 */
export class TooManyRoundsError extends McpClientError {
  static override readonly [kBrand]: string = 'TooManyRoundsError';
  override readonly code = 'TOO_MANY_ROUNDS' as const;
  constructor(
    readonly method: string,
    readonly rounds: number,
  ) {
    super(
      `${method} failed: the server asked for input again after ${rounds} answered rounds (limits.maxInputRounds: ${rounds})`,
    );
  }
}

/**
 * The server asked more questions than this client takes: one `inputRequests` object with more than
 * `MAX_INPUT_REQUESTS_PER_REPLY` (1,000) keys (`per: 'reply'`), or a task whose distinct question keys would pass
 * `MAX_INPUT_KEYS_PER_TASK` (10,000) (`per: 'task'`). None of the questions of the reply that broke the limit were
 * asked; questions asked before stay asked once. For a task (`taskId` set) the client sent `tasks/cancel` before
 * the call rejected; `taskCancel` says what became of it. An MRTR round (`taskId` undefined) is simply not retried.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#input-required)
 */
export class TooManyInputRequestsError extends McpClientError {
  static override readonly [kBrand]: string = 'TooManyInputRequestsError';
  override readonly code = 'TOO_MANY_INPUT_REQUESTS' as const;
  /** The task that asked, or `undefined` for an MRTR round. */
  override readonly taskId: string | undefined;
  /** What was done about the task: `tasks/cancel` acknowledged, not confirmed or not delivered; `undefined` for MRTR. */
  taskCancel: TaskCancelOutcome | undefined;
  constructor(
    readonly method: string,
    /** Which limit: the keys of one `inputRequests` object, or the distinct keys over the task's life. */
    readonly per: 'reply' | 'task',
    /** The limit passed. */
    readonly limit: number,
    /** How many keys the reply held (`'reply'`), or how many distinct keys the task would have asked (`'task'`). */
    readonly count: number,
    taskId?: string,
    options?: ErrorOptions,
  ) {
    const where = taskId === undefined ? method : `task ${redactTaskId(taskId)} (${method})`;
    super(
      per === 'reply'
        ? `${where}: the server asked ${count} questions in one inputRequests, over this client's limit of ${limit}`
        : `${where}: the server asked ${count} distinct questions, over this client's limit of ${limit} per task`,
      options,
    );
    this.taskId = taskId;
  }
}

/**
 * The most pages a listing (`tools/list`) follows; past it the call fails with {@link PaginationError}.
 * (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/pagination)
 */
export const MAX_LIST_PAGES = 100;

/**
 * A paginated listing could not be completed: the server sent a `nextCursor` it had already sent (a loop), or
 * there were more than `MAX_LIST_PAGES` (100) pages. Nothing is returned rather than a silently shortened list.
 * `pages` is how many pages were read.
 * (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/pagination)
 */
export class PaginationError extends McpClientError {
  static override readonly [kBrand]: string = 'PaginationError';
  override readonly code = 'PAGINATION_FAILED' as const;
  constructor(
    readonly method: string,
    readonly reason: 'repeated-cursor' | 'too-many-pages',
    readonly pages: number,
  ) {
    super(
      reason === 'repeated-cursor'
        ? `${method} failed: the server repeated a nextCursor after ${pages} pages (a pagination loop)`
        : `${method} failed: more than ${MAX_LIST_PAGES} pages; the list is incomplete, so none is returned`,
    );
  }
}

/** One reason a tool's `structuredContent` was refused: where in it (a JSON Pointer, `""` for the whole) and why. */
export interface OutputIssue {
  /** JSON Pointer into `structuredContent` (e.g. `"/temperature"`); `""` for the value itself. */
  readonly path: string;
  readonly message: string;
}

/**
 * A tool's result whose `structuredContent` does not match what was expected: the `outputSchema` the server declared
 * for the tool in `tools/list`, or the `schema` given to the call. `result` is the server's result exactly as
 * received; `issues` say where and why. The tool did run (and a task it ran is over): this is about its answer.
 * (https://modelcontextprotocol.io/specification/2026-07-28/server/tools#output-schema)
 */
export class OutputValidationError extends McpClientError {
  static override readonly [kBrand]: string = 'OutputValidationError';
  override readonly code = 'INVALID_OUTPUT' as const;
  constructor(
    /** The tool that answered. */
    readonly toolName: string,
    /** The server's result, as received. */
    readonly result: Record<string, unknown>,
    readonly issues: readonly OutputIssue[],
    /** `outputSchema`: the tool's declared schema; `schema`: the validator given to the call. */
    readonly against: 'outputSchema' | 'schema',
    options?: ErrorOptions,
  ) {
    const first = issues[0];
    const where = first === undefined ? '' : ` at "${first.path}": ${printableExcerpt(first.message, 200)}`;
    super(
      `tools/call ${printableExcerpt(toolName, 100)}: structuredContent does not match the ${against === 'schema' ? 'schema given to the call' : "tool's outputSchema"}${where}`,
      options,
    );
  }
}
