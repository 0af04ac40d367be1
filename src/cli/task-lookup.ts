/**
 * Finding a task again: its server from `--server` or from the local record, and what `client.task()` needs to
 * tell "expired" from "unknown" and not ask answered questions twice.
 *
 * @module
 */
import { serverIdentity, type AttachOptions, type CallToolResult, type TaskHandle, type TaskRecord } from '../index.js';
import { parseServerUrl } from './arguments.js';
import { UnknownTaskError } from './exit-codes.js';
import type { Output } from './output.js';
import type { Session } from './session.js';
import { openRecordStore } from './record-store.js';

/** Where a task lives, and its record if this machine has one. */
export interface LocatedTask {
  url: URL;
  record: TaskRecord | undefined;
}

/**
 * Finds the server of `taskId`: `server` when given (the record is then looked up for that server), else the local
 * record.
 *
 * @throws {@link UnknownTaskError} when there is no record and no `server`; {@link UsageError} for a bad URL.
 */
export async function locateTask(taskId: string, server: string | undefined, output: Output): Promise<LocatedTask> {
  const store = openRecordStore((file, reason) => output.warn(`warning: skipped task record ${file}: ${reason}`));
  if (server !== undefined) {
    const url = parseServerUrl(server);
    return { url, record: await store.get(taskId, serverIdentity(url)) };
  }
  const record = await store.get(taskId);
  if (!record) throw new UnknownTaskError(`no local record of task ${taskId}; pass --server <url> to ask a server about it`);
  return { url: new URL(record.server), record };
}

/** The attach options from a record: local creation time, TTL, answered keys and method. */
export function attachOptions(record: TaskRecord | undefined): AttachOptions {
  if (!record) return {};
  return { localCreatedAt: record.localCreatedAt, ttlMs: record.ttlMs, answeredKeys: record.answeredKeys, method: record.method };
}

/**
 * Re-attaches to a task (`client.task`) with what its record knows. The client's store keeps the record: it is
 * continued (or started), and when the server no longer knows the task it keeps the verdict (`expired` or
 * `unknown`) before the error is rethrown.
 */
export function attachTask(session: Session, taskId: string, record: TaskRecord | undefined): Promise<TaskHandle<CallToolResult>> {
  return session.client.task(taskId, { ...attachOptions(record), signal: session.signal });
}

/** The `task` event for a handle just created (`attached: false`) or re-attached. */
export function taskEvent(handle: TaskHandle<CallToolResult>, server: URL, tool: string | undefined, attached: boolean) {
  const t = handle.task;
  return {
    event: 'task' as const,
    taskId: handle.taskId,
    status: t.status,
    statusMessage: t.statusMessage,
    pollIntervalMs: handle.pollIntervalMs,
    ttlMs: t.ttlMs,
    tool,
    server: serverIdentity(server),
    attached,
  };
}
