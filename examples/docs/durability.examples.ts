/**
 * docs/durability.md's snippets, type-checked. Not run here: they write to /var/lib and need a server that asks no
 * question; test/durability/ runs the same flows (crash, resume, idempotent re-send) against the reference server.
 */
import type { Transport } from 'mcp-tasks-client';

declare const url: string;
declare const transport: Transport;
declare const log: { warn(fields: Record<string, unknown>): void };
declare function onResult(result: unknown): void;
declare function onError(error: unknown): void;

// #region in-short
import { StreamableHttpTransport, TaskClient } from 'mcp-tasks-client';
import { FileTaskStore } from 'mcp-tasks-client/file-store';

const store = new FileTaskStore('/var/lib/my-host/mcp-tasks', {
  onInvalid: (file, why) => log.warn({ file, why }),
});
const client = new TaskClient({ transport: new StreamableHttpTransport(url), store });

// After a restart: pick up every task this server still owes us.
for (const handle of await client.resumeAll()) {
  handle.result().then(onResult, onError); // TaskExpiredError for tasks whose TTL passed while we were down
}

// New work, safe to re-send if the connection drops before the answer arrives.
const result = await client.callTool(
  'deploy_release',
  { version: '3.1.0' },
  { idempotencyKey: crypto.randomUUID() },
);
// #endregion in-short

// #region redaction
new TaskClient({
  transport,
  store,
  redactParams: (method, params) =>
    method === 'tools/call' ? { version: (params.arguments as { version?: string }).version } : undefined,
});
// #endregion redaction
export const kept: unknown = result;
