/**
 * Errors of the client itself: a creation whose outcome is unknown, a closed client, an exited stdio server, and
 * the `isMcpClientError` guard.
 *
 * @module
 */
import { kBrand, McpClientError, type McpClientErrorCode } from './base.js';

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
