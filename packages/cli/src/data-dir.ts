/**
 * The CLI's data directory: `$MCP_TASKS_HOME`, else the user data directory of "mcp-tasks" (env-paths: e.g.
 * `~/.local/share/mcp-tasks` on Linux). Task records, authorization files and trusted project configs live under it.
 *
 * @module
 */
import envPaths from 'env-paths';

/** `$MCP_TASKS_HOME` when set and not empty, else `<user data dir>/mcp-tasks`. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.MCP_TASKS_HOME;
  return home !== undefined && home !== '' ? home : envPaths('mcp-tasks', { suffix: '' }).data;
}
