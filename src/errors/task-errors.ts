/**
 * Errors about one task: its outcome as the server reported it (`failed`, `cancelled`), a task the server no
 * longer knows (expired or unknown), and cancels or answers that could not be delivered or confirmed.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md)
 *
 * @module
 */
import { printableExcerpt } from '../protocol/printable.js';
import type { JsonRpcErrorObject } from '../protocol/jsonrpc.js';
import type { DetailedTask } from '../protocol/tasks.js';
import { kBrand, McpClientError, redactTaskId } from './base.js';

/** Base of the errors that concern one task; carries the full `taskId` and the last known task. */
export class TaskError extends McpClientError {
  static override readonly [kBrand]: string = 'TaskError';
  constructor(
    message: string,
    override readonly taskId: string,
    readonly task: DetailedTask | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * Another process follows this task (it holds the task's lease in the shared task store): this one does not poll it
 * or answer its questions, so each question is answered once. `holder` names that process; its lease runs out by
 * `expiresAt` (epoch ms) unless renewed, after which the task can be followed here.
 */
export class TaskFollowedElsewhereError extends TaskError {
  static override readonly [kBrand]: string = 'TaskFollowedElsewhereError';
  override readonly code = 'TASK_FOLLOWED_ELSEWHERE' as const;
  constructor(
    taskId: string,
    /** The owner id of the lease holder (e.g. `host:pid:…`). */
    readonly holder: string,
    /** When the holder's lease runs out unless it renews it, epoch ms. */
    readonly expiresAt: number,
    options?: ErrorOptions,
  ) {
    super(
      `task ${redactTaskId(taskId)} is followed by ${holder} (it holds the task's lease)`,
      taskId,
      undefined,
      options,
    );
  }
}

/** The task ended `failed`. `error` is the server's JSON-RPC error; `undefined` if the server sent none. */
export class TaskFailedError extends TaskError {
  static override readonly [kBrand]: string = 'TaskFailedError';
  override readonly code = 'TASK_FAILED' as const;
  readonly error: JsonRpcErrorObject | undefined;
  constructor(task: DetailedTask & { status: 'failed' }, options?: ErrorOptions) {
    // Server text, quoted on one line: a line feed in it cannot start a line of its own in a log or a terminal.
    const why = task.error
      ? `${printableExcerpt(task.error.message, 1000)} (JSON-RPC ${task.error.code})`
      : task.statusMessage !== undefined
        ? printableExcerpt(task.statusMessage, 1000)
        : 'no reason given';
    super(`task ${redactTaskId(task.taskId)} failed: ${why}`, task.taskId, task, options);
    this.error = task.error;
  }
}

/**
 * The server reported the task `cancelled` (and only then: a `tasks/cancel` acknowledgement is intent, not an
 * outcome; see {@link CancelNotConfirmedError}). `task` is the `DetailedTask` that said so.
 */
export class TaskCancelledError extends TaskError {
  static override readonly [kBrand]: string = 'TaskCancelledError';
  override readonly code = 'TASK_CANCELLED' as const;
  constructor(taskId: string, task?: DetailedTask, options?: ErrorOptions) {
    super(
      `task ${redactTaskId(taskId)} was cancelled${task?.statusMessage ? `: ${printableExcerpt(task.statusMessage, 1000)}` : ''}`,
      taskId,
      task,
      options,
    );
  }
}

/**
 * The server no longer knows the task (-32602) and the local clock is past creation + `ttlMs`; or (`retryAfterMs`
 * set) the server asked, with `Retry-After` on `tasks/get`, to wait past the task's retention (creation + `ttlMs`):
 * the next poll it allows would come after the task may be gone, so the client stops following at once rather than
 * wait silently (the server's `HttpError` or `McpError` is `cause`; no `tasks/cancel` is sent to a server that asked
 * for quiet). `expiredAt` is epoch milliseconds.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling)
 */
export class TaskExpiredError extends TaskError {
  static override readonly [kBrand]: string = 'TaskExpiredError';
  override readonly code = 'TASK_EXPIRED' as const;
  /** The server's `Retry-After` (ms) that reached past the task's retention; `undefined` for a task the server lost. */
  readonly retryAfterMs: number | undefined;
  constructor(
    taskId: string,
    readonly expiredAt: number,
    task?: DetailedTask,
    options?: ErrorOptions & { retryAfterMs?: number },
  ) {
    super(
      options?.retryAfterMs === undefined
        ? `task ${redactTaskId(taskId)} expired at ${new Date(expiredAt).toISOString()}`
        : `task ${redactTaskId(taskId)}: the server asked to wait ${options.retryAfterMs} ms (Retry-After) before the next tasks/get, past the task's retention (it expires at ${new Date(expiredAt).toISOString()}); not followed further`,
      taskId,
      task,
      options,
    );
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/**
 * Why a task is reported unknown: the server does not know it (`unknown`), not yet right after its creation
 * (`not-yet-visible`), or the task store has no record of it and the server was not asked (`not-recorded`).
 */
export type TaskNotFoundReason = 'unknown' | 'not-yet-visible' | 'not-recorded';

/** The server does not know the task (-32602) and its TTL has not passed, or was never known here. */
export class TaskNotFoundError extends TaskError {
  static override readonly [kBrand]: string = 'TaskNotFoundError';
  override readonly code = 'TASK_NOT_FOUND' as const;
  constructor(
    taskId: string,
    readonly reason: TaskNotFoundReason = 'unknown',
    task?: DetailedTask,
    options?: ErrorOptions,
  ) {
    super(
      reason === 'not-recorded'
        ? `task ${redactTaskId(taskId)} has no record in the task store (the server was not asked)`
        : `task ${redactTaskId(taskId)} is unknown to the server${reason === 'not-yet-visible' ? ' (not yet visible after creation)' : ''}`,
      taskId,
      task,
      options,
    );
  }
}

/**
 * `tasks/cancel` reached the server, but the server has not confirmed the cancel: the caller stopped waiting before
 * it reported a terminal status, or (`invalidAck`) its reply to `tasks/cancel` was not the empty acknowledgement the
 * extension defines (e.g. `resultType: "task"`; the invalid reply is `cause`). The task may still complete, fail or
 * be cancelled. `lastStatus` is the last status the server reported. The task's record stays resumable, so
 * `resumeAll()` finds it.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
 */
export class CancelNotConfirmedError extends TaskError {
  static override readonly [kBrand]: string = 'CancelNotConfirmedError';
  override readonly code = 'CANCEL_NOT_CONFIRMED' as const;
  /** True when the server answered `tasks/cancel` with something other than its acknowledgement. */
  readonly invalidAck: boolean;
  constructor(
    taskId: string,
    task: DetailedTask | undefined,
    options?: ErrorOptions & { invalidAck?: boolean },
  ) {
    const last = `last status ${task?.status ?? 'unknown'}`;
    const detail = (options?.cause as { detail?: unknown } | undefined)?.detail;
    const reply = typeof detail === 'string' ? `: ${detail}` : '';
    super(
      options?.invalidAck
        ? `task ${redactTaskId(taskId)}: tasks/cancel reached the server, but its reply was not an acknowledgement${reply}; the cancel is not confirmed (${last})`
        : `task ${redactTaskId(taskId)}: cancel requested, not yet confirmed by the server (${last})`,
      taskId,
      task,
      options,
    );
    this.invalidAck = options?.invalidAck === true;
  }
  /** The last status the server reported, if any. */
  get lastStatus(): DetailedTask['status'] | undefined {
    return this.task?.status;
  }
}

/**
 * The caller aborted a call with `onAbort: 'detach'` after the server had created its task: the task is left running
 * and the call rejects with this error, not with the abort reason, so that each call names the task it started even
 * when many calls share one `AbortSignal` (and so one reason object, which is never written to). `taskId` is the task
 * left running (follow it with `client.task(taskId)` or cancel it by id); `cause` is the caller's abort reason,
 * untouched. The client's own errors (`ClientClosedError` after `close()`, `RequestTimeoutError` past
 * `maxTotalTimeoutMs`) and what the call's own task callback threw carry `taskId` themselves and are rejected with as
 * they are; only when one of them cannot carry it (a frozen error) is it wrapped in this error too.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
 *
 * @example
 * try {
 *   await client.callTool('reindex', {}, { signal: shutdown, onAbort: 'detach' });
 * } catch (error) {
 *   if (error instanceof TaskDetachedError) console.log(`left running: ${error.taskId}`, error.cause);
 * }
 */
export class TaskDetachedError extends TaskError {
  static override readonly [kBrand]: string = 'TaskDetachedError';
  override readonly code = 'TASK_DETACHED' as const;
  /**
   * @param method - the request that created the task (e.g. `tools/call`).
   * @param options.cause - the caller's abort reason (or what a task callback threw), untouched.
   */
  constructor(
    readonly method: string,
    taskId: string,
    task: DetailedTask | undefined,
    options?: ErrorOptions,
  ) {
    super(
      `${method}: the call was aborted and task ${redactTaskId(taskId)} left running (onAbort 'detach')`,
      taskId,
      task,
      options,
    );
  }
}

/**
 * `tasks/cancel` could not be delivered after bounded retries (network errors, timeouts, 429, 5xx), or the server
 * refused it with an error; the last failure is `cause`. The task may still be running; its record stays resumable. `abortReason` is set when the
 * cancel was sent because the caller's signal aborted.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
 */
export class CancelDeliveryError extends TaskError {
  static override readonly [kBrand]: string = 'CancelDeliveryError';
  override readonly code = 'CANCEL_NOT_DELIVERED' as const;
  /** The caller's abort reason, when the cancel was sent on an abort. */
  abortReason: unknown;
  /**
   * The server's `Retry-After`, ms, when the delivery ended because waiting that long would have passed the
   * delivery's retry budget (`DELIVERY_BUDGET_MS`); `cause` is then the `HttpError` that carried it.
   */
  readonly retryAfterMs: number | undefined;
  /**
   * @param options.refused - the server answered with an error (the request arrived; the server refused it), rather
   *   than transient failures outlasting the retries.
   * @param options.retryAfterMs - the server asked to wait this long (ms) before the next attempt, past the budget.
   */
  constructor(
    taskId: string,
    task: DetailedTask | undefined,
    readonly attempts: number,
    options?: ErrorOptions & { refused?: boolean; retryAfterMs?: number },
  ) {
    const refusal = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    const deferred =
      options?.retryAfterMs !== undefined
        ? ` (the server asked to retry after ${Math.ceil(options.retryAfterMs / 1000)} s, past the delivery's retry budget)`
        : '';
    super(
      options?.refused
        ? `task ${redactTaskId(taskId)}: the server refused tasks/cancel${refusal}; the task may still be running`
        : `task ${redactTaskId(taskId)}: tasks/cancel could not be delivered after ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'}${deferred}; the task may still be running`,
      taskId,
      task,
      options,
    );
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/**
 * The answer to the input request `key` could not be delivered with `tasks/update`: transient failures outlasted
 * the retries, or the server rejected the answer twice (the first rejection re-offers the question). `cause` is the
 * last failure. The task may still be waiting for input; its record stays resumable.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-update-requests)
 */
export class InputDeliveryError extends TaskError {
  static override readonly [kBrand]: string = 'InputDeliveryError';
  override readonly code = 'INPUT_NOT_DELIVERED' as const;
  constructor(
    taskId: string,
    /** The input request's key exactly as the server sent it (the message shows it escaped and cut). */
    readonly key: string,
    task: DetailedTask | undefined,
    options?: ErrorOptions,
  ) {
    super(
      `task ${redactTaskId(taskId)}: the answer to input request ${printableExcerpt(JSON.stringify(key), 200)} could not be delivered`,
      taskId,
      task,
      options,
    );
  }
}
