/**
 * `mcp-tasks ls`: the tasks this machine recorded, with their last known status and whether their TTL has passed.
 *
 * @module
 */
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { relative } from '../events.js';
import { Output } from '../output.js';
import { runReporting } from '../session.js';
import type { TaskRecord } from 'mcp-tasks-client';
import { openRecordStore, recordsDir } from '../record-store.js';

/** Options of `ls`. */
export interface LsCommandOptions {
  json?: boolean;
  /** Remove records whose TTL has passed first. */
  prune?: boolean;
  /** Only tasks that ended while no caller awaited their outcome, and that nobody opened since. */
  uncollected?: boolean;
}

/** The status to show: the stored outcome (which knows `expired` / `unknown`), else the last status seen. */
function lastStatus(record: TaskRecord): string {
  return record.outcome?.status ?? record.status;
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
      const expiresAt = r.ttlMs === null ? null : r.localCreatedAt + r.ttlMs;
      const expired = expiresAt !== null && now >= expiresAt;
      output.emit({
        event: 'record',
        taskId: r.taskId,
        server: r.server,
        tool: r.name,
        status: lastStatus(r),
        statusMessage: r.statusMessage,
        localCreatedAt: r.localCreatedAt,
        expiresAt,
        expired,
        ...(r.uncollected === true ? { uncollected: true } : {}),
      });
      const ttl =
        expiresAt === null
          ? 'never expires'
          : expired
            ? 'TTL passed'
            : `expires ${relative(expiresAt - now)}`;
      return [r.taskId, lastStatus(r), r.name ?? r.method, relative(r.localCreatedAt - now), ttl, r.server];
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
