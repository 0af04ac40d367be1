/**
 * Ctrl-C (or SIGTERM, SIGHUP) while `tools/call` has not been answered yet. The request may already have reached the server, so the
 * client keeps reading its answer for up to `abortGraceMs`: a task it names gets `tasks/cancel` and its id is
 * printed (with `--detach` it is left running and recorded instead); an inline answer means nothing is left running; no answer at all means nobody can know whether the work
 * started, and the CLI says so. Always exit 130 (interrupted), except when the cancel of a started task could not be
 * delivered (exit 8, with the `cancel` command to try again).
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
 *
 * @module
 */
import { DEFAULTS, isMcpClientError } from 'mcp-tasks-client';
import { InterruptedError } from './exit-codes.js';
import { sourceName, type InterruptSource } from './interrupt.js';
import type { Output } from './output.js';
import { comeBack, type HintContext } from './resume-hint.js';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The line printed at the press (or signal): why the CLI does not stop at once. */
export function earlyInterruptLine(method: string, source: InterruptSource = 'ctrl-c'): string {
  return `${sourceName(source)}: ${method} was sent and not answered yet; reading the answer for up to ${seconds(DEFAULTS.limits.abortGraceMs)} to cancel any task the server started`;
}

/** What the interrupted call was told to do with a task the server started: `cancel`, or `detach` (`--detach`). */
export interface EarlyInterruptContext extends HintContext {
  readonly onAbort: 'cancel' | 'detach';
  readonly source: InterruptSource;
}

/**
 * The error to end the command with after `error` ended a call that was interrupted before the server answered,
 * once the task id (if any), the cancel (or that it was left running) and what to do next were printed.
 */
export function afterEarlyInterrupt(error: unknown, output: Output, ctx: EarlyInterruptContext): unknown {
  const taskId = (error as { taskId?: unknown } | null)?.taskId;
  const via = ctx.source;
  if (typeof taskId === 'string' && ctx.onAbort === 'detach') {
    output.emit({ event: 'detached', taskId }); // the id alone on stdout, as a detached call prints it
    output.emit({
      event: 'hint',
      message: `The server had started task ${taskId}; it was left running and recorded (--detach).\nFollow it:\n${comeBack(ctx, taskId, 'watch')}\nCancel it:\n${comeBack(ctx, taskId, 'cancel')}`,
    });
    return new InterruptedError(
      `before the server answered; task ${taskId} was started and left running (--detach)`,
      { cause: error },
    );
  }
  if (typeof taskId === 'string') {
    if (isMcpClientError(error, 'CANCEL_NOT_DELIVERED')) {
      output.emit({ event: 'cancel', taskId, stage: 'before-answer', via, cancelRequested: false });
      output.emit({
        event: 'hint',
        message: `The server had started task ${taskId}, but tasks/cancel could not be delivered; it may still be running. Cancel it with:\n${comeBack(ctx, taskId, 'cancel')}`,
      });
      return error;
    }
    output.emit({ event: 'cancel', taskId, stage: 'before-answer', via, cancelRequested: true });
    output.emit({
      event: 'hint',
      message: `tasks/cancel was sent for task ${taskId}; the server decides how it ends. See how it ended with:\n${comeBack(ctx, taskId, 'status')}`,
    });
    return new InterruptedError(
      `interrupted before the server answered; task ${taskId} was started and tasks/cancel sent`,
      { cause: error },
    );
  }
  if (isMcpClientError(error, 'OUTCOME_UNKNOWN')) {
    output.emit({
      event: 'hint',
      message: `No answer came within ${seconds(DEFAULTS.limits.abortGraceMs)}, so no task id reached this client: nothing was recorded (mcp-tasks ls will not list it) and nothing could be cancelled. Check on the server's side before calling again.`,
    });
    return new InterruptedError(
      'interrupted before the server answered: the work may or may not have started on the server',
      { cause: error },
    );
  }
  if (error instanceof InterruptedError)
    return new InterruptedError(
      'interrupted before the answer was shown; nothing was left running on the server',
      { cause: error },
    );
  return error;
}
