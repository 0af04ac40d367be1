/**
 * The README's TypeScript, as programs that type-check and run: test/docs/snippets.test.ts checks that each
 * `// #region` below is what the README shows under its `<!-- snippet: … -->` marker, and runs this file against the
 * reference server (the URL below is replaced by the test's server).
 */
// #region quick-start
import { StreamableHttpTransport, TaskCancelledError, TaskClient, TaskFailedError } from 'mcp-tasks-client';

const client = new TaskClient({ transport: new StreamableHttpTransport('http://127.0.0.1:3000/mcp') });

// Questions from the server (an MRTR round or a running task) arrive here, once each.
client.on('inputRequired', async (event) => {
  if (event.request.method === 'elicitation/create') {
    await event.respond({ action: 'accept', content: { confirm: true } });
  }
});

try {
  const result = await client.callTool(
    'deploy_release',
    { version: '1.4.0' },
    {
      onTask: (task) => task.on('status', (t) => console.log(t.status, t.statusMessage ?? '')),
    },
  );
  console.log(result.isError ? 'tool error' : 'done', result.content);
} catch (error) {
  if (error instanceof TaskFailedError) console.error('task failed:', error.error);
  else throw error;
}
// #endregion quick-start

// #region start-tool
const start = await client.startTool('reindex_corpus', { documents: 50_000 });
if (start.resultType === 'task') {
  const handle = start.task; // TaskHandle: taskId, status, task, expiresAt, events
  setTimeout(() => void handle.cancel(), 5_000);
  try {
    console.log(await handle.result()); // it may still complete before the server sees the cancel
  } catch (error) {
    // TaskCancelledError once the server reports `cancelled`
    if (error instanceof TaskCancelledError) console.log('cancelled:', error.task?.statusMessage ?? '');
    else throw error;
  }
}
await client.close();
// #endregion start-tool
