/**
 * `mcp-tasks ls`: the tasks this machine recorded, with their last known status (and, for a task that may have moved
 * on, when the server last reported it), their server as the person named it, and whether their TTL has passed.
 * `--refresh` first asks each server once about every listed task that may have moved on (`tasks/get`, never sooner
 * than the task's `pollIntervalMs` after the last report); the client's store records the answer.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling)
 *
 * @module
 */
import type { TaskRecord } from 'mcp-tasks-client';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { relative } from '../events.js';
import { explainError } from '../explain-error.js';
import { Output } from '../output.js';
import { openSession, runReporting } from '../session.js';
import { openRecordStore, recordsDir } from '../record-store.js';
import { identityName, targetFromIdentity } from '../server/target.js';
import { attachOptions } from '../task-lookup.js';

/** Options of `ls`. */
export interface LsCommandOptions {
  json?: boolean;
  /** Remove records whose TTL has passed first. */
  prune?: boolean;
  /** Ask each server once about the tasks that may have moved on, first. */
  refresh?: boolean;
  /** Only tasks that ended while no caller awaited their outcome, and that nobody opened since. */
  uncollected?: boolean;
}

/** When the server may forget the task (epoch ms: local creation + TTL), or `null` for never. */
function recordExpiresAt(record: TaskRecord): number | null {
  return record.ttlMs === null ? null : record.localCreatedAt + record.ttlMs;
}

/** The status to show: the stored outcome (which knows `expired` / `unknown`), else the last status seen. */
function lastStatus(record: TaskRecord): string {
  return record.outcome?.status ?? record.status;
}

/** When the server last reported the task, if it may have moved on since (no outcome recorded). */
function lastSeenAt(record: TaskRecord): number | undefined {
  return record.outcome ? undefined : (record.receivedAt ?? record.updatedAt);
}

/**
 * Asks each record's server once about it (`client.task`, one `tasks/get`; the client's store records what the
 * server said, or `expired` / `unknown`). Only records that may have moved on, whose TTL has not passed, and whose
 * last report is at least `pollIntervalMs` old. A server or task that cannot be reached is a warning line.
 */
async function refresh(records: readonly TaskRecord[], output: Output, now: number): Promise<void> {
  const due = records.filter((r) => {
    const expiresAt = recordExpiresAt(r);
    const seen = lastSeenAt(r);
    return (
      seen !== undefined && (expiresAt === null || now < expiresAt) && now - seen >= (r.pollIntervalMs ?? 0)
    );
  });
  const byServer = new Map<string, TaskRecord[]>();
  for (const r of due) byServer.set(r.server, [...(byServer.get(r.server) ?? []), r]);
  for (const [server, group] of byServer) {
    const name = identityName(server);
    let session: Awaited<ReturnType<typeof openSession>> | undefined;
    try {
      session = await openSession(output, await targetFromIdentity(server), undefined, undefined, false);
      for (const record of group) {
        try {
          await session.client.task(record.taskId, { ...attachOptions(record), signal: session.signal });
        } catch (error) {
          output.warn(`warning: could not refresh task ${record.taskId} (${name}): ${explainError(error)}`);
        }
      }
    } catch (error) {
      output.warn(`warning: could not refresh the tasks of ${name}: ${explainError(error)}`);
    } finally {
      await session?.close();
    }
  }
}

/** Runs `ls`; resolves with 0. */
export function lsCommand(options: LsCommandOptions): Promise<ExitCodeValue> {
  const output = new Output({ json: options.json });
  return runReporting(output, async () => {
    const store = openRecordStore((file, reason) =>
      output.warn(`warning: skipped task record ${file}: ${reason}`),
    );
    if (options.prune) {
      const removed = await store.prune();
      output.text(`Removed ${removed} expired record(s).`);
    }
    if (options.refresh) await refresh(await store.list(), output, Date.now());
    const now = Date.now();
    const records = (await store.list())
      .filter((r) => !options.uncollected || (r.outcome !== undefined && r.uncollected === true))
      .sort((a, b) => a.localCreatedAt - b.localCreatedAt);
    if (records.length === 0) {
      output.text(
        options.uncollected
          ? `No uncollected tasks (in ${recordsDir()}).`
          : `No recorded tasks (in ${recordsDir()}).`,
      );
      return ExitCode.Completed;
    }
    const rows = records.map((r) => {
      const expiresAt = recordExpiresAt(r);
      const expired = expiresAt !== null && now >= expiresAt;
      const serverName = identityName(r.server);
      const seen = lastSeenAt(r);
      output.emit({
        event: 'record',
        taskId: r.taskId,
        server: r.server,
        serverName,
        tool: r.name,
        status: lastStatus(r),
        statusMessage: r.statusMessage,
        localCreatedAt: r.localCreatedAt,
        expiresAt,
        expired,
        ...(seen !== undefined ? { lastSeenAt: seen } : {}),
        ...(r.uncollected === true ? { uncollected: true } : {}),
      });
      const ttl =
        expiresAt === null
          ? 'never expires'
          : expired
            ? 'TTL passed'
            : `expires ${relative(expiresAt - now)}`;
      const status =
        seen === undefined ? lastStatus(r) : `${lastStatus(r)} (last seen ${relative(seen - now)})`;
      return [r.taskId, status, r.name ?? r.method, relative(r.localCreatedAt - now), ttl, serverName];
    });
    const header = ['TASK ID', 'STATUS', 'TOOL', 'CREATED', 'TTL', 'SERVER'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] as string).length)));
    for (const row of [header, ...rows])
      output.text(
        row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] as number))).join('  '),
      );
    return ExitCode.Completed;
  });
}
