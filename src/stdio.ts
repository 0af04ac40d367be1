/**
 * Node-only entry point `mcp-tasks-client/stdio`: the stdio transport, for MCP servers started as child processes.
 *
 * @example
 * import { TaskClient } from 'mcp-tasks-client';
 * import { StdioTransport } from 'mcp-tasks-client/stdio';
 * const transport = new StdioTransport({ command: 'npx', args: ['mcp-tasks-reference-server', '--stdio'] });
 * const client = new TaskClient({ transport });
 *
 * @module
 */
export {
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_MAX_LINE_BYTES,
  MAX_SKIPPED_LINES,
  StdioTransport,
} from './transport/stdio.js';
export type { StdioTransportOptions } from './transport/stdio.js';
export { ServerExitedError } from './errors.js';
