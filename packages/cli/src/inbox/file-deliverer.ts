/**
 * The inbox over a `FileTaskStore` (the CLI's records, or another directory): the inbox follows the open tasks of
 * that store itself, through one `TaskClient` per server, with the server settings the CLI has for the record (its
 * URL, config entry, headers, stored authorization). Its clients write the records (the engine stays their one
 * writer); the questions they see wait in the page until a person answers; the first answer to a key is sent
 * (`tasks/update`), later ones lose. Tasks of `--stdio` servers are shown but not followed: a new server process
 * would not know them.
 *
 * @module
 */
import {
  TaskClient,
  VERSION,
  isTerminalStatus,
  type InputRequiredEvent,
  type TaskRecord,
  type TaskStore,
} from 'mcp-tasks-client';
import { sessionAuth } from '../auth/sign-in.js';
import { openTransport, targetFromIdentity } from '../server/target.js';
import { attachOptions } from '../task-lookup.js';
import type { AnswerableQuestion, Deliverer } from './inbox-tasks.js';
import { taskKey } from './inbox-tasks.js';

/** How long to wait before trying again to follow a task whose server could not be reached, ms. */
const RETRY_FOLLOW_MS = 10_000;

/** Options of {@link FileDeliverer}. */
export interface FileDelivererOptions {
  store: TaskStore;
  /** Called when a followed task changed (a question, an answer, an end). */
  onChange: () => void;
  now?: () => number;
}

/** Follows a file store's open tasks and delivers the page's answers and cancels. */
export class FileDeliverer implements Deliverer {
  readonly via = 'sent' as const;
  readonly #store: TaskStore;
  readonly #onChange: () => void;
  readonly #now: () => number;
  readonly #clients = new Map<string, Promise<TaskClient>>();
  /** Tasks this inbox follows, by task key → the handle's cancel. */
  readonly #followed = new Map<string, { cancel(): Promise<unknown> }>();
  readonly #questions = new Map<string, Map<string, InputRequiredEvent>>();
  readonly #failed = new Map<string, { at: number; message: string }>();
  #closed = false;

  constructor(options: FileDelivererOptions) {
    this.#store = options.store;
    this.#onChange = options.onChange;
    this.#now = options.now ?? Date.now;
  }

  async sync(records: readonly TaskRecord[]): Promise<void> {
    for (const record of records) {
      const id = taskKey(record.server, record.taskId);
      if (this.#closed || this.#followed.has(id) || record.outcome || isTerminalStatus(record.status))
        continue;
      if (record.server.startsWith('stdio:')) continue;
      const failed = this.#failed.get(id);
      if (failed && this.#now() - failed.at < RETRY_FOLLOW_MS) continue;
      this.#follow(id, record);
    }
  }

  #follow(id: string, record: TaskRecord): void {
    const followed = { cancel: async (): Promise<unknown> => undefined };
    this.#followed.set(id, followed);
    void (async () => {
      const client = await this.#client(record.server);
      const handle = await client.task(record.taskId, attachOptions(record));
      this.#failed.delete(id);
      followed.cancel = () => handle.cancel();
      this.#onChange();
      // Not `result()`: the inbox follows for people, it is no caller; a task that ends without one stays
      // marked uncollected in its record until a person opens it. The engine writes the outcome.
      while (!handle.done && !this.#closed) await handle.refresh().catch(() => undefined);
    })()
      .catch((error: unknown) => {
        this.#failed.set(id, { at: this.#now(), message: (error as Error).message });
      })
      .finally(() => {
        this.#followed.delete(id);
        this.#questions.delete(id);
        this.#onChange();
      });
  }

  #client(server: string): Promise<TaskClient> {
    let client = this.#clients.get(server);
    if (!client) {
      client = (async () => {
        const target = await targetFromIdentity(server);
        const auth = target.kind === 'http' ? await sessionAuth(target.url) : undefined;
        const made = new TaskClient({
          transport: openTransport(target, auth),
          clientInfo: { name: 'mcp-tasks-inbox', version: VERSION },
          capabilities: { elicitation: { form: {}, url: {} } },
          store: this.#store,
        });
        made.on('inputRequired', (event) => {
          if (event.taskId === undefined) return;
          const id = taskKey(server, event.taskId);
          const open = this.#questions.get(id) ?? new Map<string, InputRequiredEvent>();
          open.set(event.key, event);
          this.#questions.set(id, open);
          this.#onChange();
        });
        made.on('warning', () => undefined);
        return made;
      })();
      client.catch(() => this.#clients.delete(server));
      this.#clients.set(server, client);
    }
    return client;
  }

  questions(record: TaskRecord): ReadonlyMap<string, AnswerableQuestion> {
    const open = new Map<string, AnswerableQuestion>();
    for (const [key, event] of this.#questions.get(taskKey(record.server, record.taskId)) ?? []) {
      if (!event.answered) open.set(key, event);
    }
    return open;
  }

  follower(record: TaskRecord): 'inbox' | 'none' {
    return this.#followed.has(taskKey(record.server, record.taskId)) ? 'inbox' : 'none';
  }

  async cancel(record: TaskRecord): Promise<void> {
    const id = taskKey(record.server, record.taskId);
    const followed = this.#followed.get(id);
    if (followed) {
      await followed.cancel();
      return;
    }
    const client = await this.#client(record.server);
    const handle = await client.task(record.taskId, attachOptions(record));
    await handle.cancel();
  }

  async collect(record: TaskRecord): Promise<void> {
    if (!record.uncollected) return;
    // The record is final (its outcome written, so the engine writes it no more): only the mark goes
    const { uncollected: _, ...collected } = record;
    await this.#store.put(collected);
  }

  uncollected(record: TaskRecord): boolean {
    return record.outcome !== undefined && record.uncollected === true;
  }

  warnings(): string[] {
    return [...this.#failed.values()].map((f) => f.message);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const clients = await Promise.allSettled(this.#clients.values());
    await Promise.all(
      clients.map((c) => (c.status === 'fulfilled' ? c.value.close().catch(() => undefined) : undefined)),
    );
  }
}
