/**
 * `mcp-tasks cancel <taskId>`: `tasks/cancel`, then wait briefly for the server's final status (cancellation is
 * cooperative: the task may still complete or fail).
 *
 * @module
 */
import { parseMs } from '../arguments.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { DEFAULT_CANCEL_WAIT_MS } from '../follow-task.js';
import { Output } from '../output.js';
import { openSession, runReporting } from '../session.js';
import { attachTask, locateTask } from '../task-lookup.js';

/** Options of `cancel`. */
export interface CancelCommandOptions {
  server?: string;
  json?: boolean;
  /** `--wait <ms>`: how long to wait for the final status. */
  wait?: string;
}

/** Runs `cancel`; resolves with the exit code of the final status (4 when cancelled). */
export function cancelCommand(taskId: string, options: CancelCommandOptions): Promise<ExitCodeValue> {
  const output = new Output({ json: options.json });
  return runReporting(output, async () => {
    const waitMs = options.wait !== undefined ? parseMs('--wait', options.wait) : DEFAULT_CANCEL_WAIT_MS;
    const { url, record } = await locateTask(taskId, options.server, output);
    const session = await openSession(output, url);
    try {
      const handle = await attachTask(session, taskId, record);
      if (handle.done) output.emit({ event: 'hint', message: `Task ${taskId} had already ended (${handle.status}); nothing to cancel.` });
      else {
        output.emit({ event: 'cancel', taskId, stage: 'requested', via: 'command', waitMs });
        await handle.cancel({ waitMs });
      }
      const result = await handle.result();
      const exitCode = result.isError === true ? ExitCode.ToolError : ExitCode.Completed;
      output.emit({ event: 'result', taskId, exitCode, result });
      return exitCode;
    } finally {
      await session.close();
    }
  });
}
