/**
 * In-memory task store of the reference server: creation (stored before the `CreateTaskResult` is built), TTL
 * expiry measured from creation, the status transition rule, and the wire shapes `CreateTaskResult` and
 * `DetailedTask`. (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md § Task Creation, § Task Status, § Task Polling)
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { JobRun } from './job.js';

/** Minimum clock time between two sweeps triggered by `create`, in ms. */
const SWEEP_SPACING_MS = 1_000;

export { canTransition } from './job.js';

/** One stored task. Its live status, input requests and outcome are read from `run` (the single source of truth). */
export interface TaskRecord {
  /** Unguessable id (random UUID). */
  readonly taskId: string;
  /** The request method that created the task (`tools/call`, `resources/read` or `prompts/get`). */
  readonly method: string;
  /** Creation time, ms from the server clock. */
  readonly createdAtMs: number;
  /** Last status change, ms from the server clock. */
  lastUpdatedAtMs: number;
  /** Retention in ms from `createdAtMs`; `null` = never expires. */
  ttlMs: number | null;
  /** Minimum polling interval the server asks for, in ms. */
  pollIntervalMs: number;
  /** The running (or finished) job behind the task. */
  readonly run: JobRun;
  /** The authorization principal that created it; only that principal can see or act on it. */
  readonly owner?: string;
}

/** Options of {@link TaskRegistry}. */
export interface TaskRegistryOptions {
  /** Clock in ms since the epoch. @default Date.now */
  now?: () => number;
}

/** Parameters of {@link TaskRegistry.create}. */
export interface CreateTaskParams {
  method: string;
  /** ms from creation, `null` = unlimited. */
  ttlMs: number | null;
  /** ms, a positive integer. */
  pollIntervalMs: number;
  /** The authorization principal the task is bound to. @default none (anyone who knows the id) */
  owner?: string;
}

/**
 * The task store. Expiry is lazy: a lookup past `createdAtMs + ttlMs` deletes the task, tells its job to stop and
 * answers `undefined` (the core then replies -32602, like for an unknown id).
 *
 * @example
 * ```ts
 * const registry = new TaskRegistry({ now: () => clock });
 * const record = registry.create(run, { method: 'tools/call', ttlMs: 60_000, pollIntervalMs: 250 });
 * registry.get(record.taskId); // the record, until 60 s of clock time have passed
 * ```
 */
export class TaskRegistry {
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #now: () => number;
  /**
   * Earliest time `create` sweeps again: no task can have expired before the earliest expiry, and sweeps are at least
   * `SWEEP_SPACING_MS` apart, so creating n tasks costs O(n) overall instead of O(n²). Lookups still expire lazily.
   */
  #sweepAt = Number.POSITIVE_INFINITY;
  /** Called after every status change of a stored task (the push hub listens here). */
  onTaskChange: ((record: TaskRecord) => void) | undefined;

  constructor(options: TaskRegistryOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /**
   * Stores a new task for `run` and returns it. The record is in the map when this returns, so a `tasks/get` sent
   * right after the `CreateTaskResult` resolves (§ Task Creation: durable create). Status changes of the run update
   * `lastUpdatedAtMs` from then on.
   */
  create(run: JobRun, params: CreateTaskParams): TaskRecord {
    const at = this.#now();
    if (at >= this.#sweepAt) this.sweep();
    const record: TaskRecord = {
      taskId: randomUUID(),
      method: params.method,
      createdAtMs: at,
      lastUpdatedAtMs: at,
      ttlMs: params.ttlMs,
      pollIntervalMs: params.pollIntervalMs,
      run,
      ...(params.owner !== undefined ? { owner: params.owner } : {}),
    };
    this.#tasks.set(record.taskId, record);
    const expiresAt = this.expiresAt(record);
    if (expiresAt !== null && expiresAt < this.#sweepAt) this.#sweepAt = expiresAt;
    run.onChange = () => {
      record.lastUpdatedAtMs = Math.max(record.lastUpdatedAtMs, this.#now());
      this.onTaskChange?.(record);
    };
    return record;
  }

  /** The live task with this id, or `undefined` when unknown or expired (an expired task is removed and stopped). */
  get(taskId: string): TaskRecord | undefined {
    const record = this.#tasks.get(taskId);
    if (record === undefined) return undefined;
    if (this.#isExpired(record)) {
      this.#remove(record);
      return undefined;
    }
    return record;
  }

  /** Expiry time in ms (server clock), or `null` when the task never expires. */
  expiresAt(record: TaskRecord): number | null {
    return record.ttlMs === null ? null : record.createdAtMs + record.ttlMs;
  }

  /** Number of stored tasks, expired ones not yet swept included. */
  get size(): number {
    return this.#tasks.size;
  }

  /** Removes every expired task. */
  sweep(): void {
    const now = this.#now();
    let next = Number.POSITIVE_INFINITY;
    for (const record of this.#tasks.values()) {
      const expiresAt = this.expiresAt(record);
      if (expiresAt === null) continue;
      if (now >= expiresAt) this.#remove(record);
      else if (expiresAt < next) next = expiresAt;
    }
    this.#sweepAt = next === Number.POSITIVE_INFINITY ? next : Math.max(next, now + SWEEP_SPACING_MS);
  }

  /** Stops every job and forgets all tasks (server shutdown). */
  clear(): void {
    for (const record of this.#tasks.values()) record.run.cancel('server closed');
    this.#tasks.clear();
    this.#sweepAt = Number.POSITIVE_INFINITY;
  }

  /**
   * The flat `CreateTaskResult` for a stored task: `resultType:"task"`, `taskId`, `status`, `createdAt`,
   * `lastUpdatedAt` (ISO 8601), `ttlMs`, `pollIntervalMs`, optional `statusMessage`. Never `result`, `error`,
   * `inputRequests` or `requestState`. (§ Task Creation)
   */
  createTaskResult(record: TaskRecord): Record<string, unknown> {
    return { resultType: 'task', ...this.#base(record) };
  }

  /**
   * The `tasks/get` result: `resultType:"complete"` plus the DetailedTask for the current status: `inputRequests`
   * (outstanding only) when `input_required`, `result` when `completed`, `error` when `failed`. (§ Task Status)
   */
  detailedTask(record: TaskRecord): Record<string, unknown> {
    const out: Record<string, unknown> = { resultType: 'complete', ...this.#base(record) };
    const run = record.run;
    if (run.status === 'input_required') out.inputRequests = Object.fromEntries(run.pending);
    if (run.status === 'completed') out.result = run.result ?? { content: [] };
    if (run.status === 'failed') out.error = run.error ?? { code: -32603, message: 'Internal error' };
    return out;
  }

  #base(record: TaskRecord): Record<string, unknown> {
    const base: Record<string, unknown> = {
      taskId: record.taskId,
      status: record.run.status,
      createdAt: new Date(record.createdAtMs).toISOString(),
      lastUpdatedAt: new Date(record.lastUpdatedAtMs).toISOString(),
      ttlMs: record.ttlMs,
      pollIntervalMs: record.pollIntervalMs,
    };
    if (record.run.statusMessage !== undefined) base.statusMessage = record.run.statusMessage;
    return base;
  }

  #isExpired(record: TaskRecord): boolean {
    const expiresAt = this.expiresAt(record);
    return expiresAt !== null && this.#now() >= expiresAt;
  }

  #remove(record: TaskRecord): void {
    this.#tasks.delete(record.taskId);
    record.run.cancel('task expired');
  }
}
