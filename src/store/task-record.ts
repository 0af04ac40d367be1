/**
 * The persisted record of one task: enough to find it again after a crash, tell "expired" from "unknown", and never
 * ask an answered question twice. Validated with zod on every read.
 *
 * @module
 */
import { z } from 'zod';
import { jsonObject } from '../protocol/exact-keys.js';
import { type JsonRpcErrorObject, JsonRpcErrorObjectSchema } from '../protocol/jsonrpc.js';
import { TaskStatusSchema } from '../protocol/tasks.js';

/** Version of the record format. Bumped on incompatible changes; older records are reported and skipped. */
export const TASK_RECORD_VERSION = 1;

/** The terminal outcome of a task once known locally. */
export const TaskOutcomeSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('completed'), result: jsonObject() }), // every key kept, `__proto__` included
  z.object({ status: z.literal('failed'), error: JsonRpcErrorObjectSchema.optional() }),
  z.object({ status: z.literal('cancelled') }),
  z.object({ status: z.literal('expired') }),
  z.object({ status: z.literal('unknown') }),
]);
/** A task's terminal outcome: the server's three, plus `expired` and `unknown` (lost). */
export type TaskOutcome = z.infer<typeof TaskOutcomeSchema>;

/** The most characters of a failed task's error `message` a record keeps; the rest is cut, and the cut marked. */
export const MAX_STORED_ERROR_MESSAGE_CHARS = 4_096;
/** The most characters of the JSON text of a failed task's error `data` a record keeps (as a string) when cut. */
export const MAX_STORED_ERROR_DATA_CHARS = 16_384;
/** An error whose JSON text is at most this long is stored exactly as the server sent it. */
const STORED_ERROR_WHOLE_CHARS = 32_768;

/** The first `max` characters of `text` (never half a surrogate pair), with `note` saying what was cut. */
function headOf(text: string, max: number, note: (total: number, kept: number) => string): string {
  if (text.length <= max) return text;
  let kept = max;
  const last = text.charCodeAt(kept - 1);
  if (last >= 0xd800 && last <= 0xdbff) kept--; // a high surrogate whose pair would be cut off
  return `${text.slice(0, kept)}… ${note(text.length, kept)}`;
}

/**
 * What a task record keeps of a failed task's JSON-RPC error: the error as the server sent it when its JSON is at
 * most 32 KiB; otherwise its `code`, the head of its `message` (at most {@link MAX_STORED_ERROR_MESSAGE_CHARS}
 * characters) and, when it had `data`, the head of that data's JSON text as a string (at most
 * {@link MAX_STORED_ERROR_DATA_CHARS} characters), each cut marked `[truncated: …]` with the original length, and
 * any other member the server added dropped. A server that fails a task with a 10 MB error then costs a record of
 * kilobytes, in every store; the caller still receives the whole error (`TaskFailedError.error`). `error` is not
 * changed.
 */
export function storedTaskError(error: JsonRpcErrorObject): JsonRpcErrorObject {
  let json: string | undefined;
  try {
    json = JSON.stringify(error);
  } catch {
    json = undefined; // not JSON-able (a cycle): treated as too large to keep whole
  }
  if (json !== undefined && json.length <= STORED_ERROR_WHOLE_CHARS) return error;
  const stored: JsonRpcErrorObject = {
    code: error.code,
    message: headOf(
      error.message,
      MAX_STORED_ERROR_MESSAGE_CHARS,
      (total, kept) =>
        `[truncated: the server's message was ${total} characters; the first ${kept} are stored]`,
    ),
  };
  if (error.data !== undefined) {
    let data: string;
    try {
      data = JSON.stringify(error.data) ?? String(error.data);
    } catch {
      data = String(error.data);
    }
    stored.data = headOf(
      data,
      MAX_STORED_ERROR_DATA_CHARS,
      (total, kept) =>
        `[truncated: the server's data was ${total} characters of JSON; the first ${kept} are stored]`,
    );
  }
  return stored;
}

/** Schema of a stored {@link TaskRecord}. */
export const TaskRecordSchema = z.object({
  version: z.literal(TASK_RECORD_VERSION),
  /** Server identity: the endpoint URL without credentials, query or fragment. */
  server: z.string(),
  /** The method that created the task, e.g. `tools/call`. */
  method: z.string(),
  /** Tool or prompt name, or resource URI, for display. */
  name: z.string().optional(),
  /** A redacted summary of the params (the `redactParams` hook decides; never secrets). */
  params: jsonObject().optional(),
  taskId: z.string().min(1),
  idempotencyKey: z.string().optional(),
  /** Local start of the TTL, epoch ms: receipt time − the age the server reported (`lastUpdatedAt − createdAt`). */
  localCreatedAt: z.number(),
  /** Retention in ms from creation; `null` = unlimited. */
  ttlMs: z.number().nullable(),
  /** The server's latest `pollIntervalMs`, if any. */
  pollIntervalMs: z.number().optional(),
  status: TaskStatusSchema,
  statusMessage: z.string().optional(),
  /** Input-request keys already answered. */
  answeredKeys: z.array(z.string()),
  outcome: TaskOutcomeSchema.optional(),
  /** The last `DetailedTask` exactly as the server sent it (absent in records written by older versions). */
  task: z.record(z.string(), z.unknown()).optional(),
  /** Local time the last `task` arrived, epoch ms. */
  receivedAt: z.number().optional(),
  /**
   * The answers the server acknowledged (`tasks/update`), in order: the key, the action, who answered (when the
   * answering code said so) and when it was acknowledged (epoch ms). An approval is an audit fact.
   */
  answers: z
    .array(
      z.object({
        key: z.string(),
        action: z.string().optional(),
        answeredBy: z.string().optional(),
        answeredAt: z.number(),
      }),
    )
    .optional(),
  /**
   * Set with the outcome when the task ended while no caller awaited it (`result()`): a detached call, a departed
   * or crashed host. Whoever shows the outcome to someone removes it (the `mcp-tasks inbox` page when a person opens
   * the task).
   */
  uncollected: z.literal(true).optional(),
  /**
   * The W3C `traceparent` of the task's first OpenTelemetry span (absent when it was not traced, and in records
   * written by older versions): the span of a task followed again (resume, attach, a fleet takeover) links to it.
   */
  traceparent: z.string().optional(),
  /** True once `tasks/cancel` was requested here; the outcome stays the server's to report. */
  cancelRequested: z.boolean().optional(),
  /** Last write, epoch ms. */
  updatedAt: z.number(),
});
/** One persisted task. */
export type TaskRecord = z.infer<typeof TaskRecordSchema>;

/** When the server may forget the task (epoch ms), or `null` for never. */
export function recordExpiresAt(record: Pick<TaskRecord, 'localCreatedAt' | 'ttlMs'>): number | null {
  return record.ttlMs === null ? null : record.localCreatedAt + record.ttlMs;
}

/** The endpoint URL without credentials, query or fragment: the server identity stored in records. */
export function serverIdentity(url: string | URL): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

/**
 * Reads one stored record's text: JSON, then validated with {@link TaskRecordSchema}. A bad one is reported through
 * `onInvalid` (`'not JSON'` or `'not a task record: …'`) and read as absent, never thrown.
 */
export function parseRecordText(text: string, onInvalid: (reason: string) => void): TaskRecord | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    onInvalid('not JSON');
    return undefined;
  }
  const parsed = TaskRecordSchema.safeParse(json);
  if (!parsed.success) {
    onInvalid(`not a task record: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return undefined;
  }
  return parsed.data;
}
