/**
 * Tasks extension shapes: `Task`, the five `DetailedTask` variants, and the flat `CreateTaskResult`.
 * Parsing is tolerant where the checklist says so and strict where a silent default
 * would hide a broken server (`completed` without `result`).
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md § Task Creation, § Task Status)
 *
 * @module
 */
import { z } from 'zod';
import { jsonObject } from './exact-keys.js';
import { fastTaskWire } from './fast-shapes.js';
import { InputRequestsSchema, type InputRequests } from './input.js';
import { JsonRpcErrorObjectSchema, type JsonRpcErrorObject } from './jsonrpc.js';
import { taskIdProblem } from './task-id.js';

/** Task statuses. `working` and `input_required` alternate; the other three are terminal. */
export const TaskStatusSchema = z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']);
/** A task's status. */
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** Statuses after which a task never changes again. */
export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** True for `completed`, `failed` and `cancelled`. */
export function isTerminalStatus(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/**
 * Fields common to every task shape, after normalisation.
 * `ttlMs` is retention in milliseconds from creation, `null` = unlimited; `pollIntervalMs` is the server's
 * minimum polling interval in milliseconds, `undefined` when the server gave none. A value that is present but
 * not a number is kept as `NaN`, which the poller raises to its floor.
 */
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601 timestamp from the server; absent when the server omitted it (tolerated). */
  createdAt?: string;
  lastUpdatedAt?: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
}

/** A task that is running. */
export interface WorkingTask extends Task {
  status: 'working';
}
/** A task waiting for the answers to `inputRequests` (keyed; may be empty on a misbehaving server). */
export interface InputRequiredTask extends Task {
  status: 'input_required';
  inputRequests: InputRequests;
}
/** A finished task; `result` has the original method's result shape. */
export interface CompletedTask extends Task {
  status: 'completed';
  result: Record<string, unknown>;
}
/** A task that failed with a JSON-RPC error; `error` is absent only when a server broke the schema. */
export interface FailedTask extends Task {
  status: 'failed';
  error?: JsonRpcErrorObject;
}
/** A cancelled task. */
export interface CancelledTask extends Task {
  status: 'cancelled';
}
/** A task with its status-specific fields: what `tasks/get` and `notifications/tasks` carry. */
export type DetailedTask = WorkingTask | InputRequiredTask | CompletedTask | FailedTask | CancelledTask;

/** The flat result a server returns instead of the method's result when it made a task. */
export type CreateTaskResult = Task & { resultType: 'task' };

const numberOrNaN = z.unknown().transform((v) => (typeof v === 'number' ? v : Number.NaN));

const TaskWireSchema = z.looseObject({
  // A hostile id (too long, control characters, lone surrogates, invalid UTF-8) is refused here, so no path stores
  // or prints it (task-id.ts). The issue message never quotes the id.
  taskId: z.string().check((ctx) => {
    const problem = taskIdProblem(ctx.value);
    if (problem !== undefined)
      ctx.issues.push({ code: 'custom', message: problem, input: undefined, continue: false });
  }),
  status: TaskStatusSchema,
  statusMessage: z.string().optional().catch(undefined),
  createdAt: z.string().optional().catch(undefined),
  lastUpdatedAt: z.string().optional().catch(undefined),
  ttlMs: z.number().int().nonnegative().nullable().optional(),
  ttl: z.number().int().nonnegative().nullable().optional().catch(undefined),
  pollIntervalMs: numberOrNaN.optional(),
  pollInterval: numberOrNaN.optional(),
  inputRequests: InputRequestsSchema.optional(),
  result: jsonObject().optional(),
  error: JsonRpcErrorObjectSchema.optional(),
});

function toTask(wire: z.infer<typeof TaskWireSchema>): DetailedTask {
  // : legacy `ttl` / `pollInterval` were already milliseconds; read them only when new keys are absent.
  const ttlMs = wire.ttlMs !== undefined ? wire.ttlMs : (wire.ttl ?? null);
  const pollIntervalMs = wire.pollIntervalMs ?? wire.pollInterval;
  const base: Task = { taskId: wire.taskId, status: wire.status, ttlMs };
  if (wire.statusMessage !== undefined) base.statusMessage = wire.statusMessage;
  if (wire.createdAt !== undefined) base.createdAt = wire.createdAt;
  if (wire.lastUpdatedAt !== undefined) base.lastUpdatedAt = wire.lastUpdatedAt;
  if (pollIntervalMs !== undefined) base.pollIntervalMs = pollIntervalMs;
  switch (wire.status) {
    case 'input_required':
      return { ...base, status: 'input_required', inputRequests: wire.inputRequests ?? {} };
    case 'completed':
      if (wire.result === undefined) {
        throw new TaskShapeError(`task ${wire.taskId} is "completed" but has no "result"`);
      }
      return { ...base, status: 'completed', result: wire.result };
    case 'failed':
      return wire.error === undefined
        ? { ...base, status: 'failed' }
        : { ...base, status: 'failed', error: wire.error };
    case 'working':
      return { ...base, status: 'working' };
    case 'cancelled':
      return { ...base, status: 'cancelled' };
  }
}

/** Thrown by the parsers when a task shape is unusable; the client wraps it in `InvalidResponseError`. */
export class TaskShapeError extends Error {
  override readonly name = 'TaskShapeError';
  constructor(
    message: string,
    readonly issues?: readonly z.core.$ZodIssue[],
  ) {
    super(message);
  }
}

/**
 * Reads a task with the zod schema only: the validation of record, which the exact-shape check in {@link parseWire}
 * must agree with. Exported for that comparison.
 *
 * @internal
 * @throws {@link TaskShapeError} when the shape is unusable.
 */
export function parseWireWithSchema(value: unknown, what: string): DetailedTask {
  const parsed = TaskWireSchema.safeParse(value);
  if (!parsed.success) {
    throw new TaskShapeError(`${what}: ${z.prettifyError(parsed.error)}`, parsed.error.issues);
  }
  return toTask(parsed.data);
}

function parseWire(value: unknown, what: string): DetailedTask {
  // A well-formed task (every poll of a healthy server) is read without zod; the schema handles everything else.
  const fast = fastTaskWire(value);
  return fast ? toTask(fast as z.infer<typeof TaskWireSchema>) : parseWireWithSchema(value, what);
}

/** Callbacks of {@link parseCreateTaskResult}. */
export interface CreateTaskResultHooks {
  /** The task came nested under `task`. */
  onNested?: () => void;
  /**
   * The task was already `completed` but the reply carries no `result` (a `CreateTaskResult` is `Result & Task`,
   * without the status payloads): the outcome must be fetched with one `tasks/get`, at once.
   */
  onTerminal?: () => void;
}

/**
 * Parses a `resultType: "task"` result into a normalised task. Flat per the specification; a nested `task`
 * wrapper is unwrapped. The status is the server's: the seed state is "typically (though not necessarily) with
 * `status: "working"`" (ext-tasks tasks.md § Task Creation), so a terminal one is kept — `cancelled` and `failed`
 * as sent (a `failed` without `error` is read as on `tasks/get`), `completed` with the `result` the reply carries.
 * Only a `completed` without `result` (a keyed re-send that found the work done) cannot be a `DetailedTask`: it
 * comes back as `working` with `onTerminal` called, so that the caller fetches the result with `tasks/get` at once.
 *
 * @param hooks - callbacks, or just `onNested`.
 * @throws {@link TaskShapeError} when no usable task is present.
 */
export function parseCreateTaskResult(
  result: Record<string, unknown>,
  hooks?: CreateTaskResultHooks | (() => void),
): DetailedTask {
  const { onNested, onTerminal } =
    typeof hooks === 'function' ? { onNested: hooks, onTerminal: undefined } : (hooks ?? {});
  let source: unknown = result;
  if (typeof result.taskId !== 'string' && result.task !== null && typeof result.task === 'object') {
    onNested?.();
    source = result.task;
  }
  const status = (source as { status?: unknown }).status;
  if (status === 'completed' && (source as { result?: unknown }).result === undefined) {
    onTerminal?.();
    source = { ...(source as Record<string, unknown>), status: 'working' };
  }
  return parseWire(source, 'invalid CreateTaskResult');
}

/**
 * Parses a `tasks/get` result (or `notifications/tasks` params) into a `DetailedTask`. Switches on `status`
 * and accepts `resultType` `complete` or `task`.
 *
 * @throws {@link TaskShapeError} when the shape is unusable (e.g. `completed` without `result`).
 */
export function parseDetailedTask(result: unknown): DetailedTask {
  return parseWire(result, 'invalid tasks/get result');
}
