/**
 * `mcp-tasks watch <taskId>`: re-attach to a task (from the local record or `--server`) and follow it to its end,
 * answering its questions.
 *
 * @module
 */
import { parseMs } from '../arguments.js';
import type { ExitCodeValue } from '../exit-codes.js';
import { DEFAULT_CANCEL_WAIT_MS, followTask } from '../follow-task.js';
import { Output } from '../output.js';
import { openSession, runReporting, type InputOptions } from '../session.js';
import { attachTask, locateTask, taskEvent } from '../task-lookup.js';

/** Options of `watch`. */
export interface WatchCommandOptions extends InputOptions {
  server?: string;
  json?: boolean;
  cancelWait?: string;
}

/** Runs `watch`; resolves with the exit code. */
export function watchCommand(taskId: string, options: WatchCommandOptions): Promise<ExitCodeValue> {
  const output = new Output({ json: options.json });
  return runReporting(output, async () => {
    const cancelWaitMs = options.cancelWait !== undefined ? parseMs('--cancel-wait', options.cancelWait) : DEFAULT_CANCEL_WAIT_MS;
    const { url, record } = await locateTask(taskId, options.server, output);
    const session = await openSession(output, url, options);
    try {
      session.answerer?.hold();
      const handle = await attachTask(session, taskId, record);
      output.emit(taskEvent(handle, url, record?.name, true));
      session.answerer?.release();
      return await followTask(session, handle, { cancelWaitMs });
    } finally {
      await session.close();
    }
  });
}
