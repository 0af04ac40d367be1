/**
 * A 2025-11-25 stdio server (the official "everything" server) through StdioTransport: the `server/discover` probe
 * fails, the client switches to the official SDK's stdio transport with the same command, and the call succeeds
 * with the same API (CLIENT-REQUIREMENTS 3.6).
 */
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { expect, it } from 'vitest';
import { TaskClient } from '../../src/index.js';
import { StdioTransport } from '../../src/stdio.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

it('reaches a legacy stdio server through the same StdioTransport (3.6)', async () => {
  const transport = new StdioTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'] });
  const client = new TaskClient({ transport });
  try {
    const result = await client.callTool('echo', { message: 'hi' });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
  } finally {
    await client.close();
  }
});
