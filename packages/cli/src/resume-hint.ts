/**
 * How to come back to a task this run stops following, said honestly for each kind of server:
 * - a 2026-07-28 HTTP server: the exact `mcp-tasks watch` command;
 * - a `--stdio` server: the same command, noting that the server process ended with this run, so the task is
 *   there only if the server keeps its tasks across restarts;
 * - a 2025-11-25 server: no command at all, because its tasks belong to the connection's session and cannot be
 *   resumed from another process.
 *
 * Task lifecycle: https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md ;
 * 2025-11-25 tasks: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
 *
 * @module
 */
import { commandFor, type ServerTarget } from './server/target.js';

/** What a hint needs to know of the session. */
export interface HintContext {
  readonly target: ServerTarget;
  /** `client.era`: `legacy` for a 2025-11-25 server. */
  readonly era: string | undefined;
}

/** The sentence for a 2025-11-25 server, whose tasks cannot be picked up again. */
export const LEGACY_NO_RESUME =
  'This server speaks MCP 2025-11-25: its tasks belong to this connection and cannot be resumed from another process.';

/**
 * The lines that tell how to come back to `taskId` with `command` (`watch`, `status`, `cancel`), or why one cannot.
 *
 * @param extra flags to add after the server flags, e.g. `--answers answers.json`.
 */
export function comeBack(
  ctx: HintContext,
  taskId: string,
  command: 'watch' | 'status' | 'cancel',
  extra = '',
): string {
  if (ctx.era === 'legacy') return LEGACY_NO_RESUME;
  const line = `  ${commandFor(command, taskId, ctx.target)}${extra ? ` ${extra}` : ''}`;
  if (ctx.target.kind === 'stdio')
    return `${line}\n(the server process ended with this command; this works only if it keeps its tasks across restarts)`;
  return line;
}
