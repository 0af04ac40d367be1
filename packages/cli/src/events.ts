/**
 * What the CLI reports while it works, as data: each event is one JSON line with `--json`, or one plain text line
 * otherwise (see {@link renderEvent}).
 *
 * @module
 */
import type { CallToolResult, TaskStatus } from 'mcp-tasks-client';
import { safeLine } from 'mcp-tasks-client';
import { formatToolResult } from './format-result.js';
import type { CancelState } from './cancel-state.js';
import { sourceName, type InterruptSource } from './interrupt.js';

/** One thing that happened, in the order it happened. The final `result` or `error` comes last. */
export type CliEvent =
  | {
      event: 'task';
      taskId: string;
      status: TaskStatus;
      statusMessage?: string;
      pollIntervalMs: number;
      ttlMs: number | null;
      tool?: string;
      server: string;
      attached: boolean;
    }
  | { event: 'status'; taskId: string; status: TaskStatus; statusMessage?: string; elapsedMs: number }
  | {
      /** `notifications/progress` for a call the server answers inline (a task reports its `status` instead). */
      event: 'progress';
      progress: number;
      total?: number;
      message?: string;
      elapsedMs: number;
    }
  | { event: 'input'; taskId?: string; key: string; method: string; summary: string }
  | {
      event: 'answer';
      taskId?: string;
      key: string;
      method: string;
      action: string;
      source: 'prompt' | 'answers-file' | 'sampling-command' | 'roots';
    }
  | { event: 'unanswerable'; taskId?: string; key: string; method: string; message: string }
  | {
      event: 'cancel';
      taskId: string;
      stage: 'requested' | 'acknowledged' | 'left-running' | 'before-answer';
      /** What asked: Ctrl-C, a signal (`sigterm`, `sighup`: handled like the first Ctrl-C), or the `cancel` command. */
      via: InterruptSource | 'command';
      waitMs?: number;
      cancelRequested?: boolean;
      cancel?: CancelState;
    }
  | {
      event: 'task-status';
      taskId: string;
      status: TaskStatus;
      statusMessage?: string;
      tool?: string;
      server: string;
      localCreatedAt: number;
      expiresAt: number | null;
      pollIntervalMs: number;
    }
  | {
      event: 'record';
      taskId: string;
      /** The stored server identity (what `watch` finds the server by). */
      server: string;
      /** The server as the person named it: the config name, the `--stdio` command line, or the URL. */
      serverName: string;
      tool?: string;
      status: string;
      statusMessage?: string;
      localCreatedAt: number;
      expiresAt: number | null;
      expired: boolean;
      /** Epoch ms the server last reported this task, for a task that may have moved on since (no outcome yet). */
      lastSeenAt?: number;
      /** The task ended while no caller awaited it, and nobody opened it since. */
      uncollected?: boolean;
    }
  | { event: 'detached'; taskId: string }
  | { event: 'cancelled'; taskId: string }
  | { event: 'cancel-not-confirmed'; taskId: string; status: TaskStatus; waitMs: number }
  | {
      event: 'tool';
      name: string;
      taskSupport: string | undefined;
      required: string[];
      readOnly: boolean | undefined;
      idempotent: boolean | undefined;
      destructive: boolean | undefined;
      description: string | undefined;
    }
  | {
      event: 'poll-error';
      taskId: string;
      message: string;
      /** How long the server asked to wait (`Retry-After`), ms, when it did. */
      retryAfterMs?: number;
      /** The earliest time of the next poll (ISO 8601), when the server asked to wait. */
      nextPollAt?: string;
    }
  | { event: 'hint'; message: string }
  | { event: 'result'; taskId?: string; exitCode: number; result: CallToolResult }
  | {
      event: 'error';
      /** The task the error is about, when it names one (e.g. the task a malformed CreateTaskResult announced). */
      taskId?: string;
      exitCode: number;
      code?: string | number;
      message: string;
      /** What was done about the task a malformed CreateTaskResult announced (`TaskCancelOutcome`'s `kind`). */
      taskCancel?: string;
    };

/** `[  1.2s]`: seconds since the command started. */
export function stamp(elapsedMs: number): string {
  return `[${(elapsedMs / 1000).toFixed(1).padStart(5)}s]`;
}

/** A wait in the largest unit that fits: `45 s`, `12 min`, `3.5 h`, `11574 days`. */
export function waitText(ms: number): string {
  const s = ms / 1000;
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${(s / 3600).toFixed(1)} h`;
  return `${Math.round(s / 86_400)} days`;
}

/** `300 s`, `never`. */
export function ttlText(ttlMs: number | null): string {
  return ttlMs === null ? 'never expires' : `ttl ${Math.round(ttlMs / 1000)} s`;
}

/**
 * The plain-text line(s) for an event: no colour, no control characters (one-line server fields through
 * {@link safeLine}; {@link Output} escapes the rest). `undefined` for events that only matter
 * as JSON.
 */
export function renderEvent(shown: CliEvent, elapsedMs: number): string | undefined {
  const at = stamp(elapsedMs);
  // Task ids are shown whole (to be copied into the next command) and on one line: a server's, or one typed by
  // the person (`mcp-tasks status $'id\nforged line'`), never starts a line of its own.
  const event =
    'taskId' in shown && typeof shown.taskId === 'string'
      ? { ...shown, taskId: safeLine(shown.taskId) }
      : shown;
  switch (event.event) {
    case 'task':
      return `${at} task ${event.taskId} ${event.attached ? 'attached' : 'started'} (${event.tool ?? 'call'}): ${event.status}${event.statusMessage ? ` - ${safeLine(event.statusMessage)}` : ''} (polls every ${event.pollIntervalMs} ms, ${ttlText(event.ttlMs)})`;
    case 'status':
      return `${at} ${event.taskId} ${event.status}${event.statusMessage ? ` - ${safeLine(event.statusMessage)}` : ''}`;
    case 'progress':
      return `${at} progress ${progressText(event.progress, event.total)}${event.message ? ` - ${safeLine(event.message)}` : ''}`;
    case 'input':
      return `${at} ${event.taskId ? `${event.taskId} ` : ''}input required [${safeLine(event.key)}] ${safeLine(event.summary)}`;
    case 'answer':
      return `${at} answered [${safeLine(event.key)}] ${event.action} (${event.source})`;
    case 'unanswerable':
      return `${at} cannot answer [${safeLine(event.key)}]: ${safeLine(event.message)}`;
    case 'cancel': {
      const who = event.via === 'command' ? '' : sourceName(event.via);
      if (event.stage === 'left-running')
        return event.via === 'ctrl-c'
          ? `${at} Ctrl-C again: stopped following task ${event.taskId}`
          : `${at} ${who}: stopped waiting for the final status of task ${event.taskId}`;
      if (event.stage === 'acknowledged')
        return `${at} tasks/cancel for ${event.taskId} acknowledged; the server decides when the task ends`;
      if (event.stage === 'before-answer')
        return `${at} ${who} before the server answered: the server had started task ${event.taskId}${event.cancelRequested ? '; tasks/cancel sent' : ''}`;
      return `${at} ${who ? `${who}: ` : ''}sent tasks/cancel for ${event.taskId}; waiting up to ${((event.waitMs ?? 0) / 1000).toFixed(1)} s for its final status${event.via === 'ctrl-c' ? ' (Ctrl-C again to stop waiting)' : ''}`;
    }
    case 'task-status':
      return renderTaskStatus(event, Date.now());
    case 'record':
    case 'tool':
      return undefined;
    case 'detached':
      return event.taskId;
    case 'cancelled':
      return `${at} task ${event.taskId} cancelled (the server reported it)`;
    case 'cancel-not-confirmed':
      return `${at} tasks/cancel was delivered, but task ${event.taskId} was still ${event.status} after ${(event.waitMs / 1000).toFixed(1)} s; the server decides how it ends`;
    case 'poll-error':
      return event.retryAfterMs === undefined
        ? `${at} ${event.taskId} poll failed, retrying: ${event.message}`
        : `${at} ${event.taskId} poll failed: ${event.message}; the server asked to wait ${waitText(event.retryAfterMs)} (Retry-After), so the next poll is not before ${event.nextPollAt} (Ctrl-C to stop)`;
    case 'hint':
      return event.message;
    case 'result':
      // A task's result follows the CLI's own status lines: indented under a header, no line of server text can
      // pass for one of them ("[  0.4s] t-1 completed"). An inline result is all of stdout, kept as it came (but
      // for the trailing whitespace of its lines, which no printed line keeps).
      return event.taskId === undefined
        ? formatToolResult(event.result)
        : `Result of task ${event.taskId}:\n  ${formatToolResult(event.result).split('\n').join('\n  ')}`;
    case 'error':
      return errorLine(ERROR_PREFIX[event.exitCode] ?? 'Error', event.message);
  }
}

const ERROR_PREFIX: Record<number, string> = {
  2: 'Usage error',
  3: 'Task failed',
  4: 'Cancelled',
  5: 'Expired',
  6: 'Unknown task',
  7: 'Input required',
  8: 'Error',
  11: 'Followed elsewhere',
  130: 'Interrupted',
  129: 'Hangup (SIGHUP)',
  143: 'Terminated (SIGTERM)',
};

/**
 * `Prefix: message`, said once: a message that starts with the prefix's word ("interrupted; …") is not repeated
 * after it, and one that already says every word of the prefix before its first colon, naming the task or (for a
 * prefix of several words) starting with its first word ("task t-1 failed: …" under "Task failed", "task t-1 was cancelled" under
 * "Cancelled", "task t-1 is unknown to the server" under "Unknown task"), is the whole line, capitalised.
 */
function errorLine(prefix: string, message: string): string {
  const words = prefix.toLowerCase().split(' ');
  const head = (message.split(':')[0] ?? '').toLowerCase().split(' ');
  const leads = head[0] === 'task' || (words.length > 1 && head[0] === words[0]);
  if (leads && words.every((w) => head.includes(w)))
    return `${message.charAt(0).toUpperCase()}${message.slice(1)}`;
  const word = words[0] ?? '';
  return message.toLowerCase().startsWith(word)
    ? `${prefix}${message.slice(word.length).replace(/^[;:,]?\s*/, ': ')}`
    : `${prefix}: ${message}`;
}

/** `3/10 (30%)`, or the bare count without a total. */
function progressText(progress: number, total: number | undefined): string {
  if (total === undefined || !(total > 0)) return String(progress);
  return `${progress}/${total} (${Math.round((progress / total) * 100)}%)`;
}

/** `12 s ago`, `in 4m 48s`. */
export function relative(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  const text = s < 60 ? `${s} s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return ms < 0 ? `${text} ago` : `in ${text}`;
}

function renderTaskStatus(e: Extract<CliEvent, { event: 'task-status' }>, now: number): string {
  const lines = [
    `Task ${e.taskId}: ${e.status}${e.statusMessage ? ` - ${safeLine(e.statusMessage)}` : ''}`,
    ...(e.tool ? [`  tool     ${e.tool}`] : []),
    `  server   ${e.server}`,
    `  created  ${new Date(e.localCreatedAt).toISOString()} (${relative(e.localCreatedAt - now)})`,
    `  expires  ${e.expiresAt === null ? 'never' : `${new Date(e.expiresAt).toISOString()} (${relative(e.expiresAt - now)})`}`,
    `  polls    at most every ${e.pollIntervalMs} ms`,
  ];
  return lines.join('\n');
}
