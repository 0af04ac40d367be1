/**
 * `mcp-tasks status <taskId>`: one `tasks/get`, shown; the result too when the task completed.
 *
 * @module
 */
import { parseDuration } from '../duration.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { summarizeRequest } from '../input/answerer.js';
import { Output } from '../output.js';
import { openSession, runReporting } from '../session.js';
import { comeBack } from '../resume-hint.js';
import type { ServerOptions, ServerTarget } from '../server/target.js';
import { attachTask, locateTask } from '../task-lookup.js';

/** Options of `status`. */
export interface StatusCommandOptions extends ServerOptions {
  server?: string;
  json?: boolean;
  timeout?: string;
}

/**
 * Runs `status`; resolves with the exit code: 0 while the task runs or waits for input, else the code of its
 * outcome (0/1 completed, 3 failed, 4 cancelled, 5 expired, 6 unknown).
 */
export function statusCommand(taskId: string, options: StatusCommandOptions): Promise<ExitCodeValue> {
  const output = new Output({ json: options.json });
  let target: ServerTarget | undefined;
  return runReporting(
    output,
    async () => {
      const timeoutMs =
        options.timeout !== undefined ? parseDuration('--timeout', options.timeout) : undefined;
      const located = await locateTask(taskId, options.server, options, output);
      const record = located.record;
      target = located.target;
      const session = await openSession(output, target, undefined, timeoutMs);
      try {
        const handle = await session.waitFor('tasks/get', attachTask(session, taskId, record));
        const t = handle.task;
        output.emit({
          event: 'task-status',
          taskId,
          status: t.status,
          statusMessage: t.statusMessage,
          tool: record?.name,
          server: target.label,
          localCreatedAt: handle.localCreatedAt,
          expiresAt: handle.expiresAt,
          pollIntervalMs: handle.pollIntervalMs,
        });
        if (t.status === 'input_required') {
          for (const [key, request] of Object.entries(t.inputRequests)) {
            if (!handle.answeredKeys.has(key))
              output.emit({
                event: 'input',
                taskId,
                key,
                method: request.method,
                summary: summarizeRequest(request),
              });
          }
          output.emit({
            event: 'hint',
            message: `Answer it with:\n${comeBack({ target, era: session.client.era }, taskId, 'watch')}`,
          });
        }
        if (!handle.done) return ExitCode.Completed;
        const result = await handle.result();
        const exitCode = result.isError === true ? ExitCode.ToolError : ExitCode.Completed;
        output.emit({ event: 'result', taskId, exitCode, result });
        return exitCode;
      } finally {
        await session.close();
      }
    },
    () => target,
  );
}
