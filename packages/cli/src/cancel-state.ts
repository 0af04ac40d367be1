/**
 * What became of this run's `tasks/cancel` for a task it stops following, said exactly: acknowledged (intent only:
 * the server decides when the task ends), still on its way, not delivered, or never sent (the task was left
 * running); and the command that fits next (`status` after an acknowledged cancel, `cancel` when it may not have
 * arrived, `watch` for a task left running), or, for a 2025-11-25 server, why there is none.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
 *
 * @module
 */
import { comeBack, type HintContext } from './resume-hint.js';

/** `acknowledged`: the server answered `tasks/cancel`; `pending`: sent, no answer yet; `not-delivered`: it failed; `not-sent`: none was sent. */
export type CancelState = 'acknowledged' | 'pending' | 'not-delivered' | 'not-sent';

/** The clause saying what became of the cancel, e.g. "tasks/cancel was sent and acknowledged (…)"; `why` names a failure's code. */
export function cancelSentence(state: CancelState, why?: string): string {
  switch (state) {
    case 'acknowledged':
      return 'tasks/cancel was sent and acknowledged (the server decides when the task ends)';
    case 'pending':
      return 'tasks/cancel was sent but not acknowledged yet, so it may not have arrived: the task may still be running';
    case 'not-delivered':
      return `tasks/cancel could not be delivered${why ? ` (${why})` : ''}: the task may still be running`;
    case 'not-sent':
      return 'it was left running (no tasks/cancel was sent)';
  }
}

/** The next step for `taskId` after this run stops following it, with the command when one can work. */
export function afterStop(ctx: HintContext, taskId: string, state: CancelState): string {
  if (ctx.era === 'legacy') return comeBack(ctx, taskId, 'watch'); // no command can reach it from another process
  if (state === 'acknowledged') return `See how it ended with:\n${comeBack(ctx, taskId, 'status')}`;
  if (state === 'not-sent') return `Resume it with:\n${comeBack(ctx, taskId, 'watch')}`;
  return `Cancel it (again) with:\n${comeBack(ctx, taskId, 'cancel')}`;
}
