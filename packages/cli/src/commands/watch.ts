/**
 * `mcp-tasks watch <taskId>`: re-attach to a task (from the local record, or the server named with `--server`,
 * `--stdio` or a config file) and follow it to its end, answering its questions.
 *
 * @module
 */
import { parseMs } from '../arguments.js';
import { parseDuration } from '../duration.js';
import type { ExitCodeValue } from '../exit-codes.js';
import { DEFAULT_CANCEL_WAIT_MS, followTask } from '../follow-task.js';
import { Output } from '../output.js';
import type { ServerOptions, ServerTarget } from '../server/target.js';
import { openSession, runReporting, type InputOptions } from '../session.js';
import { attachTask, locateTask, taskEvent } from '../task-lookup.js';

/** Options of `watch`. */
export interface WatchCommandOptions extends InputOptions, ServerOptions {
  server?: string;
  json?: boolean;
  cancelWait?: string;
  timeout?: string;
}

/** Runs `watch`; resolves with the exit code. */
export function watchCommand(taskId: string, options: WatchCommandOptions): Promise<ExitCodeValue> {
  const output = new Output({ json: options.json });
  let target: ServerTarget | undefined;
  return runReporting(
    output,
    async () => {
      const cancelWaitMs =
        options.cancelWait !== undefined
          ? parseMs('--cancel-wait', options.cancelWait)
          : DEFAULT_CANCEL_WAIT_MS;
      const timeoutMs =
        options.timeout !== undefined ? parseDuration('--timeout', options.timeout) : undefined;
      const located = await locateTask(taskId, options.server, options, output);
      target = located.target;
      const session = await openSession(output, target, options, timeoutMs);
      try {
        session.answerer?.hold();
        const handle = await session.waitFor('tasks/get', attachTask(session, taskId, located.record));
        output.emit(taskEvent(handle, target, located.record?.name, true));
        session.answerer?.release();
        return await followTask(session, handle, { cancelWaitMs });
      } finally {
        await session.close();
      }
    },
    () => target,
  );
}
