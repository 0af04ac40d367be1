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
  isTerminalStatus,
  type TaskClient,
  type InputRequiredEvent,
  type TaskRecord,
  type TaskStore,
} from 'mcp-tasks-client';
import { attachOptions } from '../task-lookup.js';
import type { AnswerableQuestion, Deliverer } from './inbox-tasks.js';
import { recordedQuestions, taskKey } from './inbox-tasks.js';
import { cancelUnfollowed, openServerClient } from './server-client.js';

/** How long to wait before trying again to follow a task whose server could not be reached, ms. */
const RETRY_FOLLOW_MS = 10_000;

/** The holder named by a `TaskFollowedElsewhereError` (another process holds the task's lease), if it is one. */
function followedElsewhere(error: unknown): { holder: string; until: number } | undefined {
  const e = error as { code?: unknown; holder?: unknown; expiresAt?: unknown };
  if (e?.code !== 'TASK_FOLLOWED_ELSEWHERE') return undefined;
  return {
    holder: typeof e.holder === 'string' ? e.holder : 'another process',
    until: typeof e.expiresAt === 'number' ? e.expiresAt : Date.now() + RETRY_FOLLOW_MS,
  };
}

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
  /** Tasks another process follows (it holds the task's lease in the store): its name and the lease's end. */
  readonly #elsewhere = new Map<string, { holder: string; until: number }>();
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
      const elsewhere = this.#elsewhere.get(id);
      if (elsewhere && this.#now() < elsewhere.until) continue; // its follower's lease holds: try again after it
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
      this.#elsewhere.delete(id);
      followed.cancel = () => handle.cancel();
      this.#onChange();
      // Not `result()`: the inbox follows for people, it is no caller; a task that ends without one stays
      // marked uncollected in its record until a person opens it. The engine writes the outcome.
      while (!handle.done && !this.#closed) await handle.refresh().catch(() => undefined);
    })()
      .catch((error: unknown) => {
        const elsewhere = followedElsewhere(error);
        if (elsewhere) this.#elsewhere.set(id, elsewhere);
        else this.#failed.set(id, { at: this.#now(), message: (error as Error).message });
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
        const made = await openServerClient(server, {
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
    const elsewhere = this.#elsewhere.get(taskKey(record.server, record.taskId));
    const queue = this.#store.queuedAnswers;
    if (elsewhere && queue && !this.#followed.has(taskKey(record.server, record.taskId))) {
      // Another process follows the task: the answer waits in the store, and that process sends it
      for (const [key, request] of recordedQuestions(record)) {
        open.set(key, {
          key,
          request,
          queuedFor: elsewhere.holder,
          respond: (response, options) =>
            queue.queue(record.server, record.taskId, {
              key,
              response,
              queuedAt: this.#now(),
              ...(options?.answeredBy !== undefined ? { answeredBy: options.answeredBy } : {}),
            }),
        });
      }
      return open;
    }
    for (const [key, event] of this.#questions.get(taskKey(record.server, record.taskId)) ?? []) {
      if (!event.answered) open.set(key, event);
    }
    return open;
  }

  follower(record: TaskRecord): 'inbox' | 'other' | 'none' {
    const id = taskKey(record.server, record.taskId);
    if (this.#followed.has(id)) return 'inbox';
    return this.#elsewhere.has(id) && !record.outcome ? 'other' : 'none';
  }

  holder(record: TaskRecord): string | undefined {
    return record.outcome ? undefined : this.#elsewhere.get(taskKey(record.server, record.taskId))?.holder;
  }

  async cancel(record: TaskRecord): Promise<void> {
    const id = taskKey(record.server, record.taskId);
    const followed = this.#followed.get(id);
    if (followed) {
      await followed.cancel();
      return;
    }
    await cancelUnfollowed(record);
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
