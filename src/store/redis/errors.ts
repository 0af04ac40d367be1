/**
 * Errors of the Redis task store and the fleet: a lease this worker no longer holds, and Redis out of reach.
 *
 * @module
 */
import { McpClientError, redactTaskId } from '../../errors.js';

const kBrand = Symbol.for('mcp-tasks-client.errorBrand');

/** Why a write or a lease was refused. */
export type LeaseLostReason =
  /** Another worker claimed the task since: this worker's fence is stale. */
  | 'stale'
  /** Another worker holds a live lease on the task and this write carried none. */
  | 'leased'
  /** The task's terminal outcome is already recorded; it is never written twice. */
  | 'final'
  /** The lease ran out locally before it could be renewed (paused process, Redis out of reach). */
  | 'expired';

/**
 * This worker no longer holds the lease of a task: its write was refused (fencing) or it stopped following the task
 * so that another worker can. The task itself is untouched on the server; the lease holder follows it.
 *
 * Implements the lease and fencing contract described in docs/fleet.md; task ids as in
 * https://github.com/modelcontextprotocol/ext-tasks.
 */
export class LeaseLostError extends McpClientError {
  static readonly [kBrand]: string = 'LeaseLostError';
  override readonly code = 'LEASE_LOST' as const;
  constructor(
    override readonly taskId: string, // McpClientError declares taskId
    readonly reason: LeaseLostReason,
    /** The fence this worker held, if any. */
    readonly fence?: number,
    options?: ErrorOptions,
  ) {
    super(`task ${redactTaskId(taskId)}: lease lost (${reason})`, options);
  }
}

/** A Redis command failed (connection refused, reset, timeout, script error). `cause` keeps the client's error. */
export class StoreUnavailableError extends McpClientError {
  static readonly [kBrand]: string = 'StoreUnavailableError';
  override readonly code = 'STORE_UNAVAILABLE' as const;
  constructor(
    /** The Redis command that failed, e.g. `EVALSHA`. */
    readonly command: string,
    options?: ErrorOptions,
  ) {
    super(`Redis ${command} failed: ${describeCause(options?.cause)}`, options);
  }
}

/**
 * The words of a Redis client's error: its message, or, when that is empty (Node's `AggregateError` of a refused
 * connection to every address of `localhost`), the messages or codes of the errors it gathers.
 */
function describeCause(cause: unknown): string {
  if (cause === undefined || cause === null) return 'unknown error';
  if (!(cause instanceof Error)) return String(cause);
  if (cause.message !== '') return cause.message;
  const inner = cause instanceof AggregateError ? cause.errors.map(describeCause).filter(Boolean) : [];
  if (inner.length > 0) return [...new Set(inner)].join('; ');
  const code = (cause as { code?: unknown }).code;
  return typeof code === 'string' ? `${cause.name} ${code}` : cause.name;
}
