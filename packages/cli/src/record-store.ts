/**
 * Where the CLI keeps task records: one {@link FileTaskStore} under the user's data directory (`MCP_TASKS_HOME`
 * overrides it). The CLI never writes records itself: it hands this store to `TaskClient` as `store`, and the
 * client's task engine is the one writer (on creation, every state the server sends, every answer, a cancel
 * request, and the outcome).
 *
 * @module
 */
import { join } from 'node:path';
import { FileTaskStore } from 'mcp-tasks-client/file-store';
import { dataDir } from './data-dir.js';

/** The directory of the record files: `$MCP_TASKS_HOME/tasks`, else `<user data dir>/mcp-tasks/tasks`. */
export function recordsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDir(env), 'tasks');
}

/** Opens the record store; unreadable files are reported through `onInvalid` and skipped. */
export function openRecordStore(onInvalid?: (file: string, reason: string) => void): FileTaskStore {
  return new FileTaskStore(recordsDir(), { onInvalid });
}
