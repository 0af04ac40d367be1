/**
 * `mcp-tasks call <server> <tool> [key=value …] [--json '{…}']`: call a tool; follow it if it becomes a task.
 *
 * @module
 */
import { parseMs, parseServerUrl, parseToolArguments } from '../arguments.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { DEFAULT_CANCEL_WAIT_MS, followTask } from '../follow-task.js';
import { Output } from '../output.js';
import { openSession, runReporting, type InputOptions, type Session } from '../session.js';
import { taskEvent } from '../task-lookup.js';

/** Options of `call`, as commander parses them. */
export interface CallCommandOptions extends InputOptions {
  /** The arguments as one JSON object (`--json '{…}'` or `--args '{…}'`). */
  args?: string;
  /** Print the task id and exit once the call became a task. */
  detach?: boolean;
  /** JSON lines output. */
  json?: boolean;
  /** `--cancel-wait <ms>` */
  cancelWait?: string;
}

/**
 * The tool's `inputSchema` from `tools/list` (which also teaches the client the tool's `x-mcp-header` parameters),
 * or `undefined` when the list cannot be had; the call itself will then report any transport error.
 */
async function inputSchemaOf(session: Session, tool: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await session.client.listTools({ signal: session.signal })).find((t) => t.name === tool)?.inputSchema;
  } catch {
    return undefined;
  }
}

/** Runs `call`; resolves with the exit code. */
export function callCommand(server: string, tool: string, pairs: string[], options: CallCommandOptions): Promise<ExitCodeValue> {
  const output = new Output({ json: options.json });
  return runReporting(output, async () => {
    const url = parseServerUrl(server);
    parseToolArguments(pairs, options.args); // usage errors before any request
    const cancelWaitMs = options.cancelWait !== undefined ? parseMs('--cancel-wait', options.cancelWait) : DEFAULT_CANCEL_WAIT_MS;
    const session = await openSession(output, url, options);
    try {
      // Until the server answers there is no task to cancel: Ctrl-C aborts the request, and a question that cannot
      // be answered (an MRTR round) ends the call.
      const args = parseToolArguments(pairs, options.args, await inputSchemaOf(session, tool));
      const abort = new AbortController();
      const onEarlyAbort = (): void => abort.abort(session.signal.reason);
      if (session.signal.aborted) onEarlyAbort();
      else session.signal.addEventListener('abort', onEarlyAbort, { once: true });
      void session.answerer?.stopped.then((error) => abort.abort(error));
      // Questions of a new task wait until its header line is out (MRTR questions are answered at once).
      const start = await session.client
        .startTool(tool, args, { signal: abort.signal, onTask: () => session.answerer?.hold() })
        .finally(() => session.signal.removeEventListener('abort', onEarlyAbort));
      if (start.resultType === 'complete') {
        const exitCode = start.result.isError === true ? ExitCode.ToolError : ExitCode.Completed;
        output.emit({ event: 'result', exitCode, result: start.result });
        return exitCode;
      }
      const handle = start.task;
      // Detached text output is only the task id on stdout, so `id=$(mcp-tasks call … --detach)` works.
      if (!options.detach || output.json) output.emit(taskEvent(handle, url, tool, false));
      if (options.detach) {
        output.emit({ event: 'detached', taskId: handle.taskId });
        output.emit({ event: 'hint', message: `Task ${handle.taskId} is running (${handle.status}); detached.\nFollow it: mcp-tasks watch ${handle.taskId}\nCancel it: mcp-tasks cancel ${handle.taskId}` });
        return ExitCode.Completed;
      }
      session.answerer?.release();
      return await followTask(session, handle, { cancelWaitMs });
    } finally {
      await session.close();
    }
  });
}
