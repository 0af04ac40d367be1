/**
 * docs/runtimes.md's stdio snippet, type-checked. Not run here: it names a server directory on the reader's side;
 * test/transport/stdio.test.ts and test/legacy/ run the same transport against real child processes.
 */
// #region stdio
import { TaskClient } from 'mcp-tasks-client';
import { StdioTransport } from 'mcp-tasks-client/stdio';

const transport = new StdioTransport({
  command: 'npx',
  args: ['mcp-tasks-reference-server', '--stdio'],
  env: { LOG_LEVEL: 'debug' }, // laid over HOME, PATH, USER, SHELL, TERM, LOGNAME (inheritEnv: true passes all)
  cwd: '/srv/tools',
  onStderr: (text) => process.stderr.write(text), // the server's logs; discarded by default
});
const client = new TaskClient({ transport });
const result = await client.callTool('deploy_release', { version: '2.0.0' });
await client.close(); // closes stdin, waits closeGraceMs, SIGTERM, waits, SIGKILL
// #endregion stdio
console.log(result);
