/**
 * The page of the browser test: bundled for the browser with esbuild, it calls the reference server named in
 * `?server=`, shows the task's question with an Approve button, and writes the outcome into the DOM.
 */
import { StreamableHttpTransport, TaskClient } from '../../../src/index.js';

const el = (id: string): HTMLElement => document.getElementById(id) as HTMLElement;
const server = new URLSearchParams(location.search).get('server');

async function run(): Promise<void> {
  if (!server) throw new Error('missing ?server=');
  const client = new TaskClient({ transport: new StreamableHttpTransport(server) });
  client.on('inputRequired', (event) => {
    const params = (event.request.params ?? {}) as { message?: string };
    el('question').textContent = params.message ?? event.request.method;
    const approve = el('approve') as HTMLButtonElement;
    approve.hidden = false;
    approve.disabled = false;
    approve.onclick = () => {
      approve.disabled = true;
      void event.respond({ action: 'accept', content: { confirm: true } });
    };
  });
  el('status').textContent = 'calling';
  const result = await client.callTool(
    'deploy_release',
    { version: '2.0.0' },
    {
      onTask: (handle) => {
        el('task').textContent = handle.taskId;
        handle.on('status', (task) => (el('status').textContent = task.status));
      },
    },
  );
  el('result').textContent = result.content.map((c) => String((c as { text?: unknown }).text ?? '')).join('');
  await client.close();
}

run().catch((error: unknown) => {
  el('error').textContent = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
});
