/**
 * Finding a task again: its server from `--server` or from the local record, and what `client.task()` needs to
 * tell "expired" from "unknown" and not ask answered questions twice.
 *
 * @module
 */
import type { AttachOptions, CallToolResult, TaskHandle, TaskRecord } from 'mcp-tasks-client';
import { UnknownTaskError } from './exit-codes.js';
import type { Output } from './output.js';
import { resolveTarget, targetFromIdentity, type ServerOptions, type ServerTarget } from './server/target.js';
import type { Session } from './session.js';
import { openRecordStore } from './record-store.js';
import { safeLine } from 'mcp-tasks-client';

/** The shortest start of a task id looked up among the records when no record has the whole id. */
const MIN_ID_PREFIX = 4;

/** Where a task lives, and its record if this machine has one. */
export interface LocatedTask {
  target: ServerTarget;
  record: TaskRecord | undefined;
}

/**
 * Finds the server of `taskId`: from `server` / `--stdio` / the config when given (the record is then looked up for
 * that server), else from the local record.
 *
 * @throws {@link UnknownTaskError} when there is no record and no server; {@link UsageError} for a bad server.
 */
export async function locateTask(
  taskId: string,
  server: string | undefined,
  options: ServerOptions,
  output: Output,
): Promise<LocatedTask> {
  const store = openRecordStore((file, reason) =>
    output.warn(`warning: skipped task record ${file}: ${reason}`),
  );
  if (server !== undefined || options.stdio !== undefined) {
    const target = await resolveTarget(server, options);
    return { target, record: await store.get(taskId, target.identity) };
  }
  if (options.env?.length || options.cwd !== undefined || options.header?.length)
    await resolveTarget(server, options); // the usage error
  // One read of the records (a bad file is reported once): the task's, or those whose id it begins.
  const records = await store.list();
  const record = records.find((r) => r.taskId === taskId);
  if (!record) {
    // The start of an id (a shortened display, a narrow terminal) names the recorded tasks it begins.
    const started =
      taskId.length >= MIN_ID_PREFIX ? records.filter((r) => r.taskId.startsWith(taskId)).slice(0, 3) : [];
    const meant =
      started.length > 0 ? `; did you mean ${started.map((r) => safeLine(r.taskId)).join(' or ')}?` : '';
    throw new UnknownTaskError(
      `no local record of task ${safeLine(taskId)}${meant}; name its server: --server <url or config name>, or --stdio "<command>"`,
    );
  }
  // Records name the server by its target identity (hook for --stdio and config servers).
  return { target: await targetFromIdentity(record.server, options), record };
}

/** The attach options from a record: local creation time, TTL, answered keys and method. */
export function attachOptions(record: TaskRecord | undefined): AttachOptions {
  if (!record) return {};
  return {
    localCreatedAt: record.localCreatedAt,
    ttlMs: record.ttlMs,
    answeredKeys: record.answeredKeys,
    method: record.method,
  };
}

/**
 * Re-attaches to a task (`client.task`) with what its record knows. The client's store keeps the record: it is
 * continued (or started), and when the server no longer knows the task it keeps the verdict (`expired` or
 * `unknown`) before the error is rethrown.
 */
export function attachTask(
  session: Session,
  taskId: string,
  record: TaskRecord | undefined,
): Promise<TaskHandle<CallToolResult>> {
  return session.client.task(taskId, { ...attachOptions(record), signal: session.signal });
}

/** The `task` event for a handle just created (`attached: false`) or re-attached. */
export function taskEvent(
  handle: TaskHandle<CallToolResult>,
  target: ServerTarget,
  tool: string | undefined,
  attached: boolean,
) {
  const t = handle.task;
  return {
    event: 'task' as const,
    taskId: handle.taskId,
    status: t.status,
    statusMessage: t.statusMessage,
    pollIntervalMs: handle.pollIntervalMs,
    ttlMs: t.ttlMs,
    tool,
    server: target.label,
    attached,
  };
}
