/**
 * Ctrl-C while `tools/call` has not been answered yet. The request may already have reached the server, so the
 * client keeps reading its answer for up to `abortGraceMs`: a task it names gets `tasks/cancel` and its id is
 * printed; an inline answer means nothing is left running; no answer at all means nobody can know whether the work
 * started, and the CLI says so. Always exit 130 (interrupted), except when the cancel of a started task could not be
 * delivered (exit 8, with the `cancel` command to try again).
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
 *
 * @module
 */
import { DEFAULTS, isMcpClientError } from 'mcp-tasks-client';
import { InterruptedError } from './exit-codes.js';
import type { Output } from './output.js';
import { comeBack, type HintContext } from './resume-hint.js';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The line printed at the press: why the CLI does not stop at once. */
export function earlyInterruptLine(method: string): string {
  return `Ctrl-C: ${method} was sent and not answered yet; reading the answer for up to ${seconds(DEFAULTS.limits.abortGraceMs)} to cancel any task the server started`;
}

/**
 * The error to end the command with after `error` ended a call that was interrupted before the server answered,
 * once the task id (if any), the cancel and what to do next were printed.
 */
export function afterEarlyInterrupt(error: unknown, output: Output, ctx: HintContext): unknown {
  const taskId = (error as { taskId?: unknown } | null)?.taskId;
  if (typeof taskId === 'string') {
    if (isMcpClientError(error, 'CANCEL_NOT_DELIVERED')) {
      output.emit({ event: 'cancel', taskId, stage: 'before-answer', via: 'ctrl-c', cancelRequested: false });
      output.emit({
        event: 'hint',
        message: `The server had started task ${taskId}, but tasks/cancel could not be delivered; it may still be running. Cancel it with:\n${comeBack(ctx, taskId, 'cancel')}`,
      });
      return error;
    }
    output.emit({ event: 'cancel', taskId, stage: 'before-answer', via: 'ctrl-c', cancelRequested: true });
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
      'interrupted before the server answered; nothing was left running on the server',
      { cause: error },
    );
  return error;
}
