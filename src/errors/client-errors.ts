/**
 * Errors of the client itself: a creation whose outcome is unknown, a closed client, an exited stdio server, and
 * the `isMcpClientError` guard.
 *
 * @module
 */
import { kBrand, McpClientError, type McpClientErrorCode } from './base.js';

/**
 * A creation request whose outcome is unknown: no response arrived, or a reply arrived that could not be read as the
 * response to it (a JSON-RPC batch, a malformed envelope, a reply over the response size limit, whose
 * `ResponseTooLargeError` is then `cause`; `unreadableReply` says what arrived). The work may or may not have started
 * on the server.
 */
export class OutcomeUnknownError extends McpClientError {
  static override readonly [kBrand]: string = 'OutcomeUnknownError';
  override readonly code = 'OUTCOME_UNKNOWN' as const;
  /** What arrived instead of a readable response (e.g. `expected a JSON-RPC object, got an array`); `undefined` when nothing did. */
  readonly unreadableReply: string | undefined;
  constructor(
    readonly method: string,
    options?: ErrorOptions & { unreadableReply?: string },
  ) {
    super(
      options?.unreadableReply === undefined
        ? `${method}: no response arrived; the work may or may not have started on the server`
        : `${method}: a reply arrived but could not be read (${options.unreadableReply}); the work may or may not have started on the server`,
      options,
    );
    this.unreadableReply = options?.unreadableReply;
  }
}

/**
 * The client was closed while the call was pending. A call whose creation request was in flight at `close()` had its
 * answer read for at most `abortGraceMs`: a task the server created then was cancelled (or recorded, with
 * `onAbort: 'detach'`) and `taskId` names it; with no answer in that time `outcomeUnknown` is true and the message
 * says the server may have started work.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
 */
export class ClientClosedError extends McpClientError {
  static override readonly [kBrand]: string = 'ClientClosedError';
  override readonly code = 'CLIENT_CLOSED' as const;
  /** The task the call had started, once known (filled in when the server named one). */
  override taskId: string | undefined = undefined;
  /** The request that was in flight, when `outcomeUnknown`. */
  readonly method: string | undefined;
  /** True when the request was in flight at close and no answer came within `abortGraceMs`. */
  readonly outcomeUnknown: boolean;
  constructor(inFlight?: { method: string }, options?: ErrorOptions) {
    super(
      inFlight
        ? `the client was closed while ${inFlight.method} was in flight, and no answer came within the abort grace: the work may or may not have started on the server`
        : 'the client was closed',
      options,
    );
    this.method = inFlight?.method;
    this.outcomeUnknown = inFlight !== undefined;
  }
}

/**
 * True when `value` is an error of this package, optionally with the given `code`.
 *
 * @example
 * if (isMcpClientError(err, 'TASK_EXPIRED')) { … }
 */
export function isMcpClientError(
  value: unknown,
  code?: McpClientErrorCode | number,
): value is McpClientError {
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
