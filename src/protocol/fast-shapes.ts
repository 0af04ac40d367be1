/**
 * Exact-shape checks for the replies a client reads on every request: a JSON-RPC result envelope, a well-formed
 * task (`tasks/get` result, `CreateTaskResult`) and a `tools/call` result. Each accepts only values its zod schema
 * accepts, and gives what the schema would give; anything else (a missing or mistyped field, a legacy key, a value
 * zod would replace or reject) answers `undefined`/`false`, and the caller runs the zod schema, which stays the
 * validation of record and gives the typed errors. These only make the well-formed case cheap.
 * (https://www.jsonrpc.org/specification#response_object;
 * https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md § Task Status;
 * https://modelcontextprotocol.io/specification/2026-07-28/server/tools#calling-tools)
 *
 * @module
 * @internal
 */
import { isJsonObject } from './exact-keys.js';
import { taskIdProblem } from './task-id.js';

/** A JSON-RPC id as `RequestIdSchema` accepts it: a string, or a safe integer (zod's `int()`). */
function isRequestId(value: unknown): value is string | number {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/**
 * The `id` and `result` of a well-formed JSON-RPC result response (`jsonrpc: "2.0"`, a valid id, an object result,
 * no `method` or `error` member), or `undefined` for anything else. The result is the same object, every key kept.
 */
export function fastResultResponse(
  record: Record<string, unknown>,
): { id: string | number; result: Record<string, unknown> } | undefined {
  if (record.jsonrpc !== '2.0' || 'method' in record || 'error' in record) return undefined;
  const { id, result } = record;
  return isRequestId(id) && isJsonObject(result) ? { id, result } : undefined;
}

const STATUSES: ReadonlySet<unknown> = new Set([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

/** The fields of a task on the wire that a well-formed task may carry (what `TaskWireSchema` outputs for it). */
export interface FastTaskWire {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  createdAt?: string;
  lastUpdatedAt?: string;
  ttlMs?: number | null;
  pollIntervalMs?: number;
  result?: Record<string, unknown>;
}

const optionalString = (value: unknown): boolean => value === undefined || typeof value === 'string';

/**
 * `value` as a well-formed task, or `undefined`. Well-formed: an object with a usable `taskId` string, a known
 * `status`, string (or absent) `statusMessage`/`createdAt`/`lastUpdatedAt`, `ttlMs` absent, `null` or a non-negative
 * safe integer, `pollIntervalMs` absent or a number, `result` absent or an object, and none of the fields that need
 * the full schema (`inputRequests`, `error`, legacy `ttl`/`pollInterval`).
 */
export function fastTaskWire(value: unknown): FastTaskWire | undefined {
  if (!isJsonObject(value)) return undefined;
  const v = value;
  if (typeof v.taskId !== 'string' || !STATUSES.has(v.status)) return undefined;
  if (!optionalString(v.statusMessage) || !optionalString(v.createdAt) || !optionalString(v.lastUpdatedAt))
    return undefined;
  const ttlMs = v.ttlMs;
  if (!(ttlMs === undefined || ttlMs === null || (Number.isSafeInteger(ttlMs) && (ttlMs as number) >= 0)))
    return undefined;
  if (!(v.pollIntervalMs === undefined || typeof v.pollIntervalMs === 'number')) return undefined;
  if (!(v.result === undefined || isJsonObject(v.result))) return undefined;
  if (
    v.inputRequests !== undefined ||
    v.error !== undefined ||
    v.ttl !== undefined ||
    v.pollInterval !== undefined
  )
    return undefined;
  if (taskIdProblem(v.taskId) !== undefined) return undefined;
  return v as unknown as FastTaskWire;
}

/**
 * True when `value` is a well-formed `tools/call` result as `CallToolResultSchema` accepts it: an object with a
 * `content` array of objects each with a string `type`, and string `resultType`, object `structuredContent` and
 * boolean `isError` when present.
 */
export function isFastCallToolResult(value: unknown): boolean {
  if (!isJsonObject(value)) return false;
  const { content, resultType, structuredContent, isError } = value;
  if (!Array.isArray(content)) return false;
  for (const block of content) if (!isJsonObject(block) || typeof block.type !== 'string') return false;
  return (
    optionalString(resultType) &&
    (structuredContent === undefined || isJsonObject(structuredContent)) &&
    (isError === undefined || typeof isError === 'boolean')
  );
}
