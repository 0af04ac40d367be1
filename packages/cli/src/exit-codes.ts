/**
 * The exit codes of `mcp-tasks`, the CLI's own errors, and the mapping from any error to a code.
 *
 * @module
 */
import { isMcpClientError, type InputRequest } from 'mcp-tasks-client';
import { UntrustedConfigError } from './server/config-trust.js';

/** Every exit code of `mcp-tasks`. Each names the outcome, so scripts can branch on it. */
export const ExitCode = {
  /** The tool call completed (or the command did what it was asked). */
  Completed: 0,
  /** The tool returned a result with `isError: true`. */
  ToolError: 1,
  /** Bad command line: unknown option, missing argument, bad `key=value`, bad JSON, bad URL or answers file. */
  Usage: 2,
  /** The task ended `failed` (the server's JSON-RPC error is printed). */
  Failed: 3,
  /** The task ended `cancelled`. */
  Cancelled: 4,
  /** The server forgot the task after its TTL passed. */
  Expired: 5,
  /** The server does not know the task (and its TTL has not passed), or no local record and no `--server`. */
  UnknownTask: 6,
  /**
   * The server asked a question that could not be answered here (no TTY or `--no-input`, no `--answers` entry,
   * sampling without `--sampling-command`). A task stays resumable (`watch --answers`); a 2025-11-25 server's task is
   * cancelled (it belongs to this run's connection); a question before any task leaves nothing running.
   */
  InputRequired: 7,
  /** Transport or server error: connection refused, HTTP error, JSON-RPC error, invalid response. */
  Transport: 8,
  /**
   * A cancel was delivered, but the server reported no end before the wait ran out (`cancel --wait`, or Ctrl-C's
   * `--cancel-wait`): `CANCEL_NOT_CONFIRMED`. The task may still run, complete or fail; its record stays resumable.
   */
  StillRunning: 9,
  /**
   * The server comes from a project config file (`.mcp.json`, `.vscode/mcp.json`, `.cursor/mcp.json`) nobody trusted
   * yet, and this run cannot ask (no terminal, `--json`), or the person said no. Nothing was started or contacted.
   */
  UntrustedConfig: 10,
  /**
   * Another process follows the task (`TASK_FOLLOWED_ELSEWHERE`: it holds the task's lease in the task records; an
   * `mcp-tasks inbox`, or a `watch` / `call` in another terminal): it polls the task and answers its questions, so
   * this command did not follow it. Nothing was sent; the task is as it was.
   */
  FollowedElsewhere: 11,
  /** Ctrl-C twice (we stop following the task), or Ctrl-C before the server answered. */
  Interrupted: 130,
  /** SIGHUP (the terminal closed): handled like a first Ctrl-C, bounded by the abort grace. */
  Hangup: 129,
  /** SIGTERM (`kill`): handled like a first Ctrl-C, bounded by the abort grace. */
  Terminated: 143,
} as const;

/** One of the values of {@link ExitCode}. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit-code table shown by `--help` (plain text, no colour). */
export const EXIT_CODES_HELP = `Exit codes:
  0    completed (or the command did what it was asked)
  1    the tool returned isError: true (a tool error)
  2    usage error (bad option, argument, key=value, JSON, URL or answers file)
  3    the task failed
  4    the task was cancelled
  5    the task expired (its TTL passed and the server forgot it)
  6    unknown task (the server does not know it, or no local record and no --server)
  7    a question nobody here can answer (no TTY or --no-input, no --answers entry, sampling without
       --sampling-command); a task stays resumable, a 2025-11-25 server's is cancelled
  8    transport or server error
  9    cancel delivered, but the task was still running when the wait ran out (cancel --wait, Ctrl-C's --cancel-wait)
  10   a project config file is not trusted (no terminal to ask, or declined); --trust-project-config trusts it
  11   another process follows the task (an mcp-tasks inbox, a watch elsewhere): answer there, or stop it first
  130  interrupted: Ctrl-C twice (we stop following; a cancel already sent stays sent) or before the server answered
  129  SIGHUP (terminal closed), 143  SIGTERM: handled like the first Ctrl-C (cancel, or record with --detach),
       within 5 s; what became of the task is recorded (mcp-tasks ls) and printed`;

/** A mistake on the command line. Exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * The server asked a question this run cannot answer (no TTY and no answer in `--answers`, or a sampling request
 * without `--sampling-command`). Exit code 7; a task is left running so it can be answered later with `watch` (a
 * 2025-11-25 server's task is cancelled instead: it belongs to this run's connection).
 */
export class UnanswerableError extends Error {
  override readonly name = 'UnanswerableError';
  constructor(
    /** The input request's key. */
    readonly key: string,
    /** The embedded request's method, e.g. `elicitation/create`. */
    readonly method: string,
    message: string,
    /** The question itself, when known (for the sample answers file in the hint). */
    readonly request?: InputRequest,
  ) {
    super(message);
  }
}

/**
 * An answer to a task's question could not be delivered (the server refused its `tasks/update`, or it never
 * arrived): the task is named, with what this run did about it (`cancel`). Exit code 8, as any server error.
 */
export class AnswerNotDeliveredError extends Error {
  override readonly name = 'AnswerNotDeliveredError';
  constructor(
    /** The task whose answer was not delivered. */
    readonly taskId: string,
    message: string,
    /** What became of this run's `tasks/cancel` for it (`not-sent`: left running, resumable). */
    readonly cancel: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A task id with no local record and no `--server` to ask. Exit code 6. */
export class UnknownTaskError extends Error {
  override readonly name = 'UnknownTaskError';
}

/** Ctrl-C before the server answered, or Ctrl-C twice. Exit code 130. */
export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
}

/** The exit code for an error thrown by the SDK or the CLI. Anything not recognised counts as a transport/server error. */
export function exitCodeForError(error: unknown): ExitCodeValue {
  if (error instanceof UsageError) return ExitCode.Usage;
  if (error instanceof UnanswerableError) return ExitCode.InputRequired;
  if (error instanceof InterruptedError) return ExitCode.Interrupted;
  if (error instanceof UnknownTaskError) return ExitCode.UnknownTask;
  if (error instanceof UntrustedConfigError) return ExitCode.UntrustedConfig;
  if (isMcpClientError(error, 'TASK_FAILED')) return ExitCode.Failed;
  if (isMcpClientError(error, 'TASK_CANCELLED')) return ExitCode.Cancelled;
  if (isMcpClientError(error, 'TASK_EXPIRED')) return ExitCode.Expired;
  if (isMcpClientError(error, 'TASK_NOT_FOUND')) return ExitCode.UnknownTask;
  if (isMcpClientError(error, 'INPUT_REQUIRED')) return ExitCode.InputRequired;
  if (isMcpClientError(error, 'CANCEL_NOT_CONFIRMED')) return ExitCode.StillRunning;
  if (isMcpClientError(error, 'TASK_FOLLOWED_ELSEWHERE')) return ExitCode.FollowedElsewhere;
  return ExitCode.Transport;
}
