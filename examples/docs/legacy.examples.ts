/**
 * docs/legacy.md's snippet, type-checked. Not run here: it needs the official "everything" server on port 3001;
 * test/legacy/ runs the same call against that server over HTTP and stdio.
 */
// #region everything
import { TaskClient, StreamableHttpTransport } from 'mcp-tasks-client';

const client = new TaskClient({ transport: new StreamableHttpTransport('http://127.0.0.1:3001/mcp') });
client.on('inputRequired', (event) =>
  event.respond({ action: 'accept', content: { interpretation: 'snake' } }),
);
const report = await client.callTool('simulate-research-query', { topic: 'python', ambiguous: true });
client.era; // 'legacy'
// #endregion everything
console.log(report);
