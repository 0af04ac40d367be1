/**
 * The `TaskStore` contract and the in-memory store.
 *
 * @module
 */
import { cloneJson } from '../internal/deep-json.js';
import type { QueuedAnswers } from './queued-answers.js';
import { recordExpiresAt, TaskRecordSchema, type TaskRecord } from './task-record.js';

/** A follower's lease on one task: while it holds, no other process sharing the store follows the task. */
export interface FollowLease {
  readonly server: string;
  readonly taskId: string;
  /** The owner id of this store's process. */
  readonly owner: string;
  /** When the lease runs out unless renewed, epoch ms. */
  expiresAt: number;
}

/** The answer to {@link TaskLeases.acquire}: the lease, or who holds it. */
export type LeaseAttempt = { lease: FollowLease } | { holder: string; expiresAt: number };

/**
 * Leases of a store shared by several processes: one follower per task, whatever the store (lock files beside the
 * records, or a Redis hash with a fence). The engine takes a task's lease before its first poll, renews it while
 * following, passes every `tasks/get` through {@link TaskLeases.beforePoll} when the store has it, and releases the
 * lease once the task's last record write landed (or the client closes); a lease whose holder crashed is taken over
 * once it expires. A lease past its `expiresAt` without renewal is let go of: the task is another process's to follow.
 */
export interface TaskLeases {
  /** How long a lease lasts without renewal, ms. */
  readonly leaseMs: number;
  /** Takes the lease of the task (also one that expired); resolves with the holder when another process has it. */
  acquire(server: string, taskId: string): Promise<LeaseAttempt>;
  /** Extends `lease` by `leaseMs`; false when it is no longer this process's. */
  renew(lease: FollowLease): Promise<boolean>;
  /** Gives `lease` back (no error when it is gone). */
  release(lease: FollowLease): Promise<void>;
  /**
   * Fences one poll of the task, right before its `tasks/get` (a store whose leases may move between renewals checks
   * and extends the lease here, atomically). Resolves with the check the transport runs right before it writes the
   * request, which throws to fail the poll unsent; rejects to refuse the poll (nothing is sent) when the lease is
   * gone. `intervalMs` is the task's poll interval: no holder polls again sooner.
   */
  beforePoll?(lease: FollowLease, intervalMs: number): Promise<() => void>;
}

/** Persisted task records. Every method is async so a store may live on disk or in a database. */
export interface TaskStore {
  /** Per-task follower leases, when several processes share the store (the file and Redis stores). */
  readonly leases?: TaskLeases;
  /** Answers left by processes that do not follow a task, for the one that does (the file store). */
  readonly queuedAnswers?: QueuedAnswers;
  /** Writes (creates or replaces) the record of `record.taskId` on `record.server`. */
  put(record: TaskRecord): Promise<void>;
  /** The record, or `undefined`. With no `server`, the first record with that id. */
  get(taskId: string, server?: string): Promise<TaskRecord | undefined>;
  /** Every readable record. Unreadable ones are reported (store-specific) and skipped. */
  list(): Promise<TaskRecord[]>;
  /** Removes the record; no error when absent. */
  delete(taskId: string, server?: string): Promise<void>;
  /** Removes records whose TTL has passed (epoch ms `now`); returns how many. */
  prune(now?: number): Promise<number>;
}

/** True when the record's TTL has passed at `now` (epoch ms). */
export function isRecordExpired(record: TaskRecord, now: number): boolean {
  const expiresAt = recordExpiresAt(record);
  return expiresAt !== null && now >= expiresAt;
}

/**
 * The one `prune` of every store: deletes each listed record whose TTL has passed at `now` (epoch ms), one
 * `delete` per record, and returns how many were removed.
 *
 * @throws whatever the store's `list` or `delete` throws.
 */
export async function pruneExpired(store: Pick<TaskStore, 'list' | 'delete'>, now: number): Promise<number> {
  let removed = 0;
  for (const record of await store.list()) {
    if (isRecordExpired(record, now)) {
      await store.delete(record.taskId, record.server);
      removed++;
    }
  }
  return removed;
}

/** A {@link TaskStore} in memory: for tests and short-lived hosts. Records are copied in and out. */
export class MemoryTaskStore implements TaskStore {
  readonly #records = new Map<string, TaskRecord>();

  /** @throws ZodError when `record` is not a valid {@link TaskRecord} (the same contract as the file store). */
  async put(record: TaskRecord): Promise<void> {
    const valid = TaskRecordSchema.parse(record);
    this.#records.set(`${valid.server}\n${valid.taskId}`, cloneJson(valid));
  }

  /** {@inheritDoc TaskStore.get} */
  async get(taskId: string, server?: string): Promise<TaskRecord | undefined> {
    if (server !== undefined) {
      const found = this.#records.get(`${server}\n${taskId}`);
      return found && cloneJson(found);
    }
    for (const record of this.#records.values()) if (record.taskId === taskId) return cloneJson(record);
    return undefined;
  }

  /** {@inheritDoc TaskStore.list} */
  async list(): Promise<TaskRecord[]> {
    return [...this.#records.values()].map((r) => cloneJson(r));
  }

  /** {@inheritDoc TaskStore.delete} */
  async delete(taskId: string, server?: string): Promise<void> {
    for (const [key, record] of this.#records) {
      if (record.taskId === taskId && (server === undefined || record.server === server))
        this.#records.delete(key);
    }
  }

  /** {@inheritDoc TaskStore.prune} */
  prune(now: number = Date.now()): Promise<number> {
    return pruneExpired(this, now);
  }
}
