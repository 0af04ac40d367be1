/**
 * `mcp-tasks cancel <taskId>`: `tasks/cancel`, then wait briefly for the server's final status (cancellation is
 * cooperative: the task may still complete or fail). The exit code says what the server reported:
 *
 * | exit | the server reported |
 * | --- | --- |
 * | 0 | `cancelled` (now, or before this command ran), or `completed` (the result is printed) |
 * | 1 | `completed` with `isError: true` |
 * | 3 | `failed` |
 * | 9 | still running when `--wait` ran out (`CANCEL_NOT_CONFIRMED`: the cancel was delivered; check with `status`) |
 * | 5, 6, 8 | expired, unknown task, transport or server error (e.g. `tasks/cancel` refused, or not delivered: `CANCEL_NOT_DELIVERED`) |
 *
 * A task another process follows (an `mcp-tasks inbox`) is cancelled without taking its lease: see `cancelFollowed`.
 *
 * Cancellation: https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md
 *
 * @module
 */
import { isMcpClientError, safeText, type TaskFollowedElsewhereError } from 'mcp-tasks-client';
import { parseMs } from '../arguments.js';
import { parseDuration } from '../duration.js';
import { followerText } from '../explain-error.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { DEFAULT_CANCEL_WAIT_MS } from '../follow-task.js';
import { Output } from '../output.js';
import { comeBack } from '../resume-hint.js';
import type { ServerOptions, ServerTarget } from '../server/target.js';
import { openSession, runReporting, type Session } from '../session.js';
import { attachTask, locateTask } from '../task-lookup.js';

/** Options of `cancel`. */
export interface CancelCommandOptions extends ServerOptions {
  server?: string;
  json?: boolean;
  /** `--wait <duration>`: how long to wait for the final status. */
  wait?: string;
  timeout?: string;
}

/** Runs `cancel`; resolves with the exit code of what the server reported (see the module docs). */
export function cancelCommand(taskId: string, options: CancelCommandOptions): Promise<ExitCodeValue> {
  const output = new Output({ json: options.json, typed: [taskId] });
  let target: ServerTarget | undefined;
  return runReporting(
    output,
    async () => {
      const waitMs = options.wait !== undefined ? parseMs('--wait', options.wait) : DEFAULT_CANCEL_WAIT_MS;
      const timeoutMs =
        options.timeout !== undefined ? parseDuration('--timeout', options.timeout) : undefined;
      const located = await locateTask(taskId, options.server, options, output);
      target = located.target;
      const session = await openSession(output, target, undefined, timeoutMs);
      try {
        const handle = await session
          .waitFor('tasks/get', attachTask(session, taskId, located.record))
          .catch((error: unknown) => {
            if (isMcpClientError(error, 'TASK_FOLLOWED_ELSEWHERE'))
              return error as TaskFollowedElsewhereError;
            throw error;
          });
        if (handle instanceof Error) return await cancelFollowed(handle, session, output);
        const already = handle.done;
        if (already)
          output.emit({
            event: 'hint',
            message: `Task ${taskId} had already ended (${handle.status}); nothing to cancel.`,
          });
        else {
          output.emit({ event: 'cancel', taskId, stage: 'requested', via: 'command', waitMs });
          // A reply that is no acknowledgement (CANCEL_NOT_CONFIRMED) still reached the server: wait for its word.
          await handle.cancel({ waitMs }).catch((error: unknown) => {
            if (!isMcpClientError(error, 'CANCEL_NOT_CONFIRMED')) throw error;
            output.warn(`warning: ${error.message}`);
          });
        }
        try {
          const result = await handle.result();
          const exitCode = result.isError === true ? ExitCode.ToolError : ExitCode.Completed;
          if (!already)
            output.emit({
              event: 'hint',
              message: `Task ${taskId} completed before the cancel took effect.`,
            });
          output.emit({ event: 'result', taskId, exitCode, result });
          return exitCode;
        } catch (error) {
          // Only the server's word: TaskCancelledError means the server reported `cancelled`; when --wait runs out
          // first the handle settles with CancelNotConfirmedError (the client's record stays resumable).
          if (isMcpClientError(error, 'TASK_CANCELLED')) {
            output.emit({ event: 'cancelled', taskId });
            return ExitCode.Completed;
          }
          if (!isMcpClientError(error, 'CANCEL_NOT_CONFIRMED')) throw error;
          output.emit({ event: 'cancel-not-confirmed', taskId, status: handle.task.status, waitMs });
          output.emit({
            event: 'hint',
            message: `See how it ends:\n${comeBack({ target, era: session.client.era }, taskId, 'status')}`,
          });
          return ExitCode.StillRunning;
        }
      } finally {
        await session.close();
      }
    },
    () => target,
  );
}

/**
 * `cancel` of a task another process follows (an `mcp-tasks inbox`, a `watch` elsewhere): `tasks/cancel` is safe
 * from any process, so it is sent directly, without the task's lease; the follower sees how the task ends. One
 * `tasks/get` then says what the server reports now: exit 0 once it reports `cancelled`, else 9 (delivered, not
 * confirmed: the server decides how the task ends).
 */
async function cancelFollowed(
  elsewhere: TaskFollowedElsewhereError,
  session: Session,
  output: Output,
): Promise<ExitCodeValue> {
  const { taskId } = elsewhere;
  await session.waitFor('tasks/cancel', session.client.request('tasks/cancel', { taskId }));
  output.emit({ event: 'cancel', taskId, stage: 'acknowledged', via: 'command' });
  const now = await session.waitFor('tasks/get', session.client.request('tasks/get', { taskId }));
  const status = typeof now.status === 'string' ? safeText(now.status) : 'of unknown status';
  output.emit({
    event: 'hint',
    message: `Task ${taskId} is followed by ${followerText(elsewhere.holder)}, which sees how it ends; the server reports it ${status} now.`,
  });
  if (status === 'cancelled') {
    output.emit({ event: 'cancelled', taskId });
    return ExitCode.Completed;
  }
  return ExitCode.StillRunning;
}
