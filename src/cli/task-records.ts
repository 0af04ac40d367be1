/**
 * The CLI's local record of the tasks it started or attached to: one {@link FileTaskStore} under the user's data
 * directory (`MCP_TASKS_HOME` overrides it), written when a call becomes a task, on every status change and answer,
 * and once more with the terminal outcome.
 *
 * @module
 */
import { join } from 'node:path';
import envPaths from 'env-paths';
import { FileTaskStore } from '../file-store.js';
import type { CallToolResult, TaskHandle } from '../index.js';

/** One stored task, as {@link FileTaskStore} keeps it. */
export type TaskRecord = Parameters<FileTaskStore['put']>[0];
/** The terminal outcome stored in a {@link TaskRecord}. */
export type TaskOutcome = NonNullable<TaskRecord['outcome']>;

/** The directory of the record files: `$MCP_TASKS_HOME/tasks`, else `<user data dir>/mcp-tasks/tasks`. */
export function recordsDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.MCP_TASKS_HOME;
  return join(home !== undefined && home !== '' ? home : envPaths('mcp-tasks', { suffix: '' }).data, 'tasks');
}

/** The server identity stored in records: the URL without credentials, query or fragment. */
export function serverIdentity(url: string | URL): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

/** Opens the record store; unreadable files are reported through `onInvalid` and skipped. */
export function openRecordStore(onInvalid?: (file: string, reason: string) => void): FileTaskStore {
  return new FileTaskStore(recordsDir(), { onInvalid });
}

/**
 * Keeps one task's record in step with its handle. Writes are queued, so they land in order; a failed write is
 * reported through `onError` and never stops the command.
 */
export class TaskRecordKeeper {
  readonly #store: FileTaskStore;
  readonly #server: string;
  readonly #onError: (error: unknown) => void;
  #queue: Promise<void> = Promise.resolve();
  #record: TaskRecord | undefined;

  constructor(store: FileTaskStore, serverUrl: string | URL, onError: (error: unknown) => void) {
    this.#store = store;
    this.#server = serverIdentity(serverUrl);
    this.#onError = onError;
  }

  /** Starts (or continues) the record of `handle`; `name` is the tool, when known. */
  track(handle: TaskHandle<CallToolResult>, name?: string): Promise<void> {
    return this.#enqueue(async () => {
      const existing = await this.#store.get(handle.taskId, this.#server);
      this.#record = {
        ...existing,
        version: 1,
        server: this.#server,
        method: handle.method,
        name: name ?? existing?.name,
        taskId: handle.taskId,
        localCreatedAt: existing?.localCreatedAt ?? handle.localCreatedAt,
        ...this.#fromHandle(handle),
      };
      await this.#store.put(this.#record);
    });
  }

  /** Stores the latest status, `statusMessage`, TTL, poll interval and answered keys. */
  update(handle: TaskHandle<CallToolResult>): Promise<void> {
    return this.#enqueue(async () => {
      if (!this.#record) return;
      this.#record = { ...this.#record, ...this.#fromHandle(handle) };
      await this.#store.put(this.#record);
    });
  }

  /** Stores the terminal outcome (and the latest state of the handle). */
  finish(handle: TaskHandle<CallToolResult>, outcome: TaskOutcome): Promise<void> {
    return this.#enqueue(async () => {
      if (!this.#record) return;
      this.#record = { ...this.#record, ...this.#fromHandle(handle), outcome };
      await this.#store.put(this.#record);
    });
  }

  /** Stores the outcome of a task known only by its record (the server no longer knows it: `expired`, `unknown`). */
  lost(record: TaskRecord, outcome: TaskOutcome): Promise<void> {
    return this.#enqueue(async () => {
      await this.#store.put({ ...record, outcome, updatedAt: Date.now() });
    });
  }

  /** Resolves once every queued write has landed (or failed and been reported). */
  flush(): Promise<void> {
    return this.#queue;
  }

  #fromHandle(handle: TaskHandle<CallToolResult>): Omit<TaskRecord, 'version' | 'server' | 'method' | 'name' | 'taskId' | 'localCreatedAt'> {
    const task = handle.task;
    return {
      ttlMs: task.ttlMs,
      pollIntervalMs: typeof task.pollIntervalMs === 'number' && Number.isFinite(task.pollIntervalMs) ? task.pollIntervalMs : undefined,
      status: task.status,
      statusMessage: task.statusMessage,
      answeredKeys: [...handle.answeredKeys],
      updatedAt: Date.now(),
    };
  }

  #enqueue(write: () => Promise<void>): Promise<void> {
    this.#queue = this.#queue.then(write).catch(this.#onError);
    return this.#queue;
  }
}
