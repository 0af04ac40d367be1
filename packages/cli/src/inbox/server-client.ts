/**
 * The inbox's clients of the servers its tasks live on: each reached with the settings the CLI has for the record's
 * server (URL, MCP config entry, headers, stored sign-in).
 *
 * @module
 */
import { TaskClient, VERSION, type TaskClientOptions, type TaskRecord } from 'mcp-tasks-client';
import { sessionAuth } from '../auth/sign-in.js';
import { openTransport, targetFromIdentity } from '../server/target.js';
import { attachOptions } from '../task-lookup.js';

/** A `TaskClient` for the server a record names (`record.server`). */
export async function openServerClient(
  server: string,
  options: Omit<TaskClientOptions, 'transport'> = {},
): Promise<TaskClient> {
  const target = await targetFromIdentity(server);
  const auth = target.kind === 'http' ? await sessionAuth(target.url) : undefined;
  return new TaskClient({
    transport: openTransport(target, auth),
    clientInfo: { name: 'mcp-tasks-inbox', version: VERSION },
    ...options,
  });
}

/**
 * Sends `tasks/cancel` for a task this process does not follow, from a client without a store (it takes no lease
 * and writes no record): whoever follows the task sees the end at its next poll and records it.
 */
export async function cancelUnfollowed(record: TaskRecord): Promise<void> {
  const client = await openServerClient(record.server);
  try {
    const handle = await client.task(record.taskId, attachOptions(record));
    await handle.cancel();
  } finally {
    await client.close().catch(() => undefined);
  }
}
