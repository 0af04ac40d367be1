/**
 * `FileTaskStore`: one JSON file per task in a directory, written atomically and fsync'd (write-file-atomic),
 * readable by the owner only (files 0600, directory 0700). Node only: import from `mcp-tasks-client/file-store`.
 *
 *
 * @module
 */
import { toJsonText } from '../internal/deep-json.js';
import { createHash, randomUUID } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { FileQueuedAnswers } from './file-queued-answers.js';
import { parseRecordText, TaskRecordSchema, type TaskRecord } from './task-record.js';
import {
  pruneExpired,
  type FollowLease,
  type LeaseAttempt,
  type TaskLeases,
  type TaskStore,
} from './task-store.js';

/** Default lifetime of a follower lease without renewal, ms. */
const DEFAULT_FOLLOW_LEASE_MS = 15_000;

/** Options of {@link FileTaskStore}. */
export interface FileTaskStoreOptions {
  /** Called for each file that cannot be read or is not a valid record; the file is skipped. @default ignore */
  onInvalid?: (file: string, reason: string) => void;
  /**
   * How long a process's lease on a task lasts without renewal, ms (renewed every third of it while the task is
   * followed). A holder that crashed is taken over once its lease expires, at once when it ran on this host and its
   * process is gone. @default 15000
   */
  leaseMs?: number;
}

function fileName(server: string, taskId: string): string {
  return `${createHash('sha256').update(`${server}\n${taskId}`).digest('hex').slice(0, 32)}.json`;
}

/**
 * A durable {@link TaskStore}. Corrupt or foreign files are reported through `onInvalid` and skipped, never fatal.
 *
 * @example
 * const store = new FileTaskStore(join(os.homedir(), '.local/share/my-host/tasks'));
 */
export class FileTaskStore implements TaskStore {
  readonly dir: string;
  /** One follower per task across the processes sharing {@link dir}: lock files beside the records. */
  readonly leases: TaskLeases;
  /** Answers queued for the process that follows a task: files beside the records (`answers/`). */
  readonly queuedAnswers: FileQueuedAnswers;
  readonly #onInvalid: (file: string, reason: string) => void;
  #ready: Promise<void> | undefined;

  constructor(dir: string, options: FileTaskStoreOptions = {}) {
    this.dir = dir;
    this.queuedAnswers = new FileQueuedAnswers(dir);
    this.#onInvalid = options.onInvalid ?? (() => undefined);
    this.leases = new LockFileLeases(dir, options.leaseMs ?? DEFAULT_FOLLOW_LEASE_MS, () =>
      this.#ensureDir(),
    );
  }

  /** Writes the record of one task (replacing the one with its `taskId` and server). */
  async put(record: TaskRecord): Promise<void> {
    const valid = TaskRecordSchema.parse(record);
    await this.#ensureDir();
    await writeFileAtomic(join(this.dir, fileName(valid.server, valid.taskId)), `${toJsonText(valid, 2)}\n`, {
      mode: 0o600,
      fsync: true,
    });
  }

  /** The record of one task, or `undefined`. */
  async get(taskId: string, server?: string): Promise<TaskRecord | undefined> {
    if (server !== undefined) return this.#read(fileName(server, taskId));
    return (await this.list()).find((r) => r.taskId === taskId);
  }

  /** Every record, optionally only those of one server. */
  async list(): Promise<TaskRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const records: TaskRecord[] = [];
    for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
      const record = await this.#read(name);
      if (record) records.push(record);
    }
    return records;
  }

  /** Deletes the record of one task. */
  async delete(taskId: string, server?: string): Promise<void> {
    const targets =
      server !== undefined ? [{ server, taskId }] : (await this.list()).filter((r) => r.taskId === taskId);
    for (const t of targets) await rm(join(this.dir, fileName(t.server, t.taskId)), { force: true });
  }

  /** Deletes the records whose TTL has passed; resolves with how many. */
  prune(now: number = Date.now()): Promise<number> {
    return pruneExpired(this, now);
  }

  #ensureDir(): Promise<void> {
    this.#ready ??= mkdir(this.dir, { recursive: true, mode: 0o700 }).then(() => chmod(this.dir, 0o700));
    return this.#ready;
  }

  async #read(name: string): Promise<TaskRecord | undefined> {
    let text: string;
    try {
      text = await readFile(join(this.dir, name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#onInvalid(name, (error as Error).message);
      return undefined;
    }
    return parseRecordText(text, (reason) => this.#onInvalid(name, reason));
  }
}

/** What a lock file holds. */
interface LockContent {
  owner: string;
  token: string;
  expiresAt: number;
  host: string;
  pid: number;
}

/** A lease of this process, with the token that tells its lock file from a later holder's. */
interface FileLease extends FollowLease {
  readonly token: string;
}

/**
 * Follower leases as lock files (`<record>.lock`, JSON: owner, token, expiry, host, pid). A lease is taken by
 * creating the file exclusively (`wx`); an expired one, or one whose process is gone from this host, is first moved
 * aside under a unique name (only one process can move a given file), and a fresh lock moved aside by a race is put
 * back. Renewal rewrites the file atomically while its token is ours.
 */
class LockFileLeases implements TaskLeases {
  readonly leaseMs: number;
  readonly #dir: string;
  readonly #ready: () => Promise<void>;
  readonly #owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  constructor(dir: string, leaseMs: number, ready: () => Promise<void>) {
    this.#dir = dir;
    this.leaseMs = leaseMs;
    this.#ready = ready;
  }

  async acquire(server: string, taskId: string): Promise<LeaseAttempt> {
    await this.#ready();
    const path = this.#path(server, taskId);
    for (let attempt = 0; attempt < 3; attempt++) {
      const lease: FileLease = {
        server,
        taskId,
        owner: this.#owner,
        token: randomUUID(),
        expiresAt: Date.now() + this.leaseMs,
      };
      if (await this.#create(path, lease)) return { lease };
      const held = await readLock(path);
      if (held && held.owner !== this.#owner && !isStale(held))
        return { holder: held.owner, expiresAt: held.expiresAt };
      // Expired, its process gone, unreadable, or a lock of ours left behind: move it aside, then take it.
      const aside = `${path}.${lease.token}.stale`;
      try {
        await rename(path, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        continue;
      }
      const moved = await readLock(aside);
      if (moved && held && moved.token !== held.token && !isStale(moved)) {
        await rename(aside, path).catch(() => undefined); // a fresh lock taken meanwhile: put it back
        return { holder: moved.owner, expiresAt: moved.expiresAt };
      }
      await rm(aside, { force: true });
    }
    const held = await readLock(path);
    return { holder: held?.owner ?? 'unknown', expiresAt: held?.expiresAt ?? Date.now() + this.leaseMs };
  }

  async renew(lease: FollowLease): Promise<boolean> {
    const mine = lease as FileLease;
    const path = this.#path(mine.server, mine.taskId);
    const held = await readLock(path);
    if (held?.token !== mine.token) return false;
    mine.expiresAt = Date.now() + this.leaseMs;
    await writeFileAtomic(path, JSON.stringify(this.#content(mine)), { mode: 0o600 });
    return true;
  }

  async release(lease: FollowLease): Promise<void> {
    const mine = lease as FileLease;
    const path = this.#path(mine.server, mine.taskId);
    if ((await readLock(path))?.token === mine.token) await rm(path, { force: true });
  }

  #path(server: string, taskId: string): string {
    return join(this.#dir, fileName(server, taskId).replace(/\.json$/, '.lock'));
  }

  #content(lease: FileLease): LockContent {
    return {
      owner: lease.owner,
      token: lease.token,
      expiresAt: lease.expiresAt,
      host: hostname(),
      pid: process.pid,
    };
  }

  async #create(path: string, lease: FileLease): Promise<boolean> {
    try {
      await writeFile(path, JSON.stringify(this.#content(lease)), { flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  }
}

/** The lock file's content, or `undefined` when it is gone or unreadable. */
async function readLock(path: string): Promise<LockContent | undefined> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as Partial<LockContent>;
    return typeof value.owner === 'string' &&
      typeof value.token === 'string' &&
      typeof value.expiresAt === 'number'
      ? (value as LockContent)
      : undefined;
  } catch {
    return undefined;
  }
}

/** True when the lock expired, or its process ran on this host and is gone. */
function isStale(lock: LockContent): boolean {
  if (Date.now() >= lock.expiresAt) return true;
  if (lock.host !== hostname() || typeof lock.pid !== 'number' || lock.pid === process.pid) return false;
  try {
    process.kill(lock.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
