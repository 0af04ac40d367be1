/**
 * `FileTaskStore`: one JSON file per task in a directory, written atomically and fsync'd (write-file-atomic),
 * readable by the owner only (files 0600, directory 0700). Node only: import from `mcp-tasks-client/file-store`.
 *
 *
 * @module
 */
import { toJsonText } from '../internal/deep-json.js';
import { createHash } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { FileQueuedAnswers } from './file-queued-answers.js';
import { parseRecordText, TaskRecordSchema, type TaskRecord } from './task-record.js';
import { pruneExpired, type TaskStore } from './task-store.js';

/** Options of {@link FileTaskStore}. */
export interface FileTaskStoreOptions {
  /** Called for each file that cannot be read or is not a valid record; the file is skipped. @default ignore */
  onInvalid?: (file: string, reason: string) => void;
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
  /** Answers queued for the process that follows a task: files beside the records (`answers/`). */
  readonly queuedAnswers: FileQueuedAnswers;
  readonly #onInvalid: (file: string, reason: string) => void;
  #ready: Promise<void> | undefined;

  constructor(dir: string, options: FileTaskStoreOptions = {}) {
    this.dir = dir;
    this.queuedAnswers = new FileQueuedAnswers(dir);
    this.#onInvalid = options.onInvalid ?? (() => undefined);
  }

  /** {@inheritDoc TaskStore.put} */
  async put(record: TaskRecord): Promise<void> {
    const valid = TaskRecordSchema.parse(record);
    await this.#ensureDir();
    await writeFileAtomic(join(this.dir, fileName(valid.server, valid.taskId)), `${toJsonText(valid, 2)}\n`, {
      mode: 0o600,
      fsync: true,
    });
  }

  /** {@inheritDoc TaskStore.get} */
  async get(taskId: string, server?: string): Promise<TaskRecord | undefined> {
    if (server !== undefined) return this.#read(fileName(server, taskId));
    return (await this.list()).find((r) => r.taskId === taskId);
  }

  /** {@inheritDoc TaskStore.list} */
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

  /** {@inheritDoc TaskStore.delete} */
  async delete(taskId: string, server?: string): Promise<void> {
    const targets =
      server !== undefined ? [{ server, taskId }] : (await this.list()).filter((r) => r.taskId === taskId);
    for (const t of targets) await rm(join(this.dir, fileName(t.server, t.taskId)), { force: true });
  }

  /** {@inheritDoc TaskStore.prune} */
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
