/**
 * The inbox's model of a store: every task record, the open questions this process can answer, the answers given
 * through it (who, when, when the server took them), cancel requests, and the "uncollected" marks; turned into
 * {@link InboxSnapshot}s for the page whenever something changes. Who delivers an answer or a cancel is a
 * {@link Deliverer}: the inbox's own followers over a file store, or a fleet's lease holders over Redis.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import {
  escapeUnprintable,
  isTerminalStatus,
  safeText,
  type ElicitResult,
  type InputRequest,
  type InputResponse,
  type TaskRecord,
  type TaskStore,
} from 'mcp-tasks-client';
import { checkContent, readFields, type FormField } from '../input/schema-fields.js';
import { urlTarget } from '../input/url-target.js';
import {
  compareTasks,
  type AnswerView,
  type InboxSnapshot,
  type QuestionView,
  type TaskDetails,
  type TaskView,
} from './view.js';

/**
 * The fraction of a task's TTL left at which its countdown turns urgent: the margin at which the client's engine
 * emits `expiring` for a task still waiting for input (fixed there at 20 %).
 */
export const URGENT_MARGIN_RATIO = 0.2;

/** A question this process can answer: the first `respond` across every follower wins. */
export interface AnswerableQuestion {
  readonly key: string;
  readonly request: InputRequest;
  /** Set when the answer is queued in the store for the process that follows the task: that process's name. */
  readonly queuedFor?: string;
  /**
   * Resolves true when this answer was the first (sent, or recorded for the fleet); false when another won.
   * `answeredBy` goes to the task record's `answers` once the server acknowledged the answer.
   */
  respond(response: InputResponse, options?: { answeredBy?: string }): Promise<boolean>;
}

/** Who delivers answers and cancels for the tasks of a store. */
export interface Deliverer {
  /** `sent`: this process sends answers itself; `fleet`: they are recorded for the lease holder. */
  readonly via: 'sent' | 'recorded for the fleet';
  /** Looks at the current records: follows what needs following, drops what ended. */
  sync(records: readonly TaskRecord[]): Promise<void>;
  /** The questions of a task this process can answer now, by key. */
  questions(record: TaskRecord): ReadonlyMap<string, AnswerableQuestion>;
  /** Who follows the task. */
  follower(record: TaskRecord): TaskView['follower'];
  /** The name of the other process that follows the task, when one does. */
  holder?(record: TaskRecord): string | undefined;
  /** Sends `tasks/cancel` for the task (the server decides how it ends). */
  cancel(record: TaskRecord): Promise<void>;
  /** Marks the task's outcome as seen by a person (clears "uncollected"). */
  collect(record: TaskRecord): Promise<void>;
  /** True when the task ended while no caller awaited its outcome, and nobody opened it since. */
  uncollected(record: TaskRecord): boolean;
  /** Problems to show (servers unreachable), display text. */
  warnings(): string[];
  close(): Promise<void>;
}

/** The result of an answer from the page. */
export type AnswerResult =
  | { result: 'taken'; at: number; takenAt: number }
  | { result: 'queued'; at: number; holder: string }
  | { result: 'already-answered' }
  | { result: 'gone' }
  | { result: 'invalid'; problems: string[] };

/** The opaque id the page uses for a task: a hash of its server and task id. */
export function taskKey(server: string, taskId: string): string {
  return createHash('sha256').update(`${server}\n${taskId}`).digest('hex').slice(0, 24);
}

const text = (value: unknown): string => escapeUnprintable(String(value ?? ''));

/** The page's view of one question (display strings escaped; enum values kept raw for the answer). */
export function questionView(key: string, request: InputRequest, answerable: boolean): QuestionView {
  const params = (request.params ?? {}) as Record<string, unknown>;
  const base = { key, keyText: text(key), method: text(request.method), message: text(params.message) };
  if (request.method !== 'elicitation/create')
    return { ...base, mode: 'other', fields: [], answerable: false };
  if (params.mode === 'url') {
    const raw = typeof params.url === 'string' ? params.url : '';
    let host = '';
    let href: string | undefined;
    // Where the link really leads, judged exactly as the terminal judges it before asking to open a URL
    const target = urlTarget(raw);
    try {
      const url = new URL(raw);
      host = url.host || `(no host: a ${url.protocol} URL)`;
      if (target.openable) href = url.href;
    } catch {
      host = '(not a URL)';
    }
    return {
      ...base,
      mode: 'url',
      fields: [],
      url: text(raw),
      urlHost: text(host),
      urlHref: href,
      urlWarnings: urlWarnings(target).map(text),
      answerable,
    };
  }
  const fields = readFields(params.requestedSchema).map(displayField);
  return { ...base, mode: 'form', fields, answerable };
}

/**
 * The warnings among a {@link urlTarget}'s lines: every line after the first (the host) when the URL parsed, every
 * line when it did not (there is no host line then).
 */
function urlWarnings(target: ReturnType<typeof urlTarget>): string[] {
  return target.host === undefined ? [...target.lines] : target.lines.slice(1);
}

/** A field's display strings escaped for the page (readFields already made them one line). */
function displayField(field: FormField): FormField {
  const out = { ...field, label: text(field.label) } as FormField;
  if (field.description !== undefined) out.description = text(field.description);
  if (out.kind === 'enum' || out.kind === 'multi')
    out.options = out.options.map((o) => ({ value: o.value, title: text(o.title) }));
  return out;
}

/**
 * Checks an answer against its question the way the page does (the server side of the inbox never trusts the
 * page): an `accept` of a form carries content valid for `requestedSchema` (defaults filled in); `decline` and
 * `cancel` carry none.
 * (https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#response-actions)
 */
export function checkAnswer(
  request: InputRequest,
  action: unknown,
  content: unknown,
): { response: InputResponse } | { problems: string[] } {
  if (action === 'decline' || action === 'cancel') return { response: { action } };
  if (action !== 'accept') return { problems: ['action must be accept, decline or cancel'] };
  const params = (request.params ?? {}) as Record<string, unknown>;
  if (params.mode === 'url')
    // Accepting a URL-mode question tells the server the person agreed to open the page; a URL the inbox will not
    // open (not http or https, or not a URL at all) cannot be accepted, only declined or cancelled.
    return urlTarget(typeof params.url === 'string' ? params.url : '').openable
      ? { response: { action: 'accept' } }
      : { problems: ['this URL is not opened (only http and https URLs are): decline or cancel instead'] };
  if (content === null || typeof content !== 'object' || Array.isArray(content))
    return { problems: ['content must be an object'] };
  const checked = checkContent(readFields(params.requestedSchema), content as Record<string, unknown>);
  if ('problems' in checked) return checked;
  const accepted: ElicitResult = { action: 'accept', content: checked.content as ElicitResult['content'] };
  return { response: accepted };
}

/** Keys the record says are still open: the last task's `inputRequests` minus the answered keys. */
export function recordedQuestions(record: TaskRecord): Map<string, InputRequest> {
  const open = new Map<string, InputRequest>();
  if (record.outcome || record.status !== 'input_required') return open;
  const requests = (record.task as { inputRequests?: unknown } | undefined)?.inputRequests;
  if (requests === null || typeof requests !== 'object') return open;
  for (const [key, request] of Object.entries(requests as Record<string, InputRequest>)) {
    if (!record.answeredKeys.includes(key) && request && typeof request === 'object') open.set(key, request);
  }
  return open;
}

/** Options of {@link InboxTasks}. */
export interface InboxTasksOptions {
  store: TaskStore;
  deliverer: Deliverer;
  /** How often to read the store when nothing announced a change, ms. @default 1000 */
  refreshMs?: number;
  now?: () => number;
}

/** The inbox's tasks; `onChange` listeners get a new snapshot whenever what the page shows changed. */
export class InboxTasks {
  readonly #store: TaskStore;
  readonly #deliverer: Deliverer;
  readonly #now: () => number;
  readonly #listeners = new Set<(snapshot: InboxSnapshot) => void>();
  readonly #answers = new Map<string, AnswerView[]>();
  /** Keys answered through this inbox (taken or under way), by task id: a second browser's answer loses at once. */
  readonly #claimed = new Map<string, Set<string>>();
  readonly #cancelling = new Set<string>();
  readonly #timer: ReturnType<typeof setInterval>;
  #records = new Map<string, TaskRecord>();
  #last: InboxSnapshot = { now: 0, tasks: [], warnings: [] };
  #lastText = '';
  #refreshing: Promise<void> | undefined;
  #again = false;

  constructor(options: InboxTasksOptions) {
    this.#store = options.store;
    this.#deliverer = options.deliverer;
    this.#now = options.now ?? Date.now;
    this.#timer = setInterval(() => void this.refresh(), options.refreshMs ?? 1_000);
  }

  /** The latest snapshot. */
  get snapshot(): InboxSnapshot {
    return this.#last;
  }

  /** Calls `listener` with every new snapshot; returns the unsubscribe function. */
  onChange(listener: (snapshot: InboxSnapshot) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Reads the store again and tells listeners when the page's view changed. Calls made meanwhile run once after. */
  refresh(): Promise<void> {
    if (this.#refreshing) {
      this.#again = true;
      return this.#refreshing;
    }
    this.#refreshing = (async () => {
      do {
        this.#again = false;
        await this.#read();
      } while (this.#again);
    })().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #read(): Promise<void> {
    let records: TaskRecord[];
    const warnings: string[] = [];
    try {
      records = await this.#store.list();
    } catch (error) {
      records = [...this.#records.values()];
      warnings.push(text(`the task store could not be read: ${(error as Error).message}`));
    }
    await this.#deliverer.sync(records).catch((error: unknown) => {
      warnings.push(text(`following tasks: ${(error as Error).message}`));
    });
    this.#records = new Map(records.map((r) => [taskKey(r.server, r.taskId), r]));
    const tasks = records.map((r) => this.#view(r)).sort(compareTasks);
    const snapshot = {
      now: this.#now(),
      tasks,
      warnings: [...warnings, ...this.#deliverer.warnings().map(text)],
    };
    const changed = JSON.stringify({ ...snapshot, now: 0 });
    if (changed === this.#lastText) return;
    this.#lastText = changed;
    this.#last = snapshot;
    for (const listener of this.#listeners) listener(snapshot);
  }

  #view(record: TaskRecord): TaskView {
    const id = taskKey(record.server, record.taskId);
    const answerable = this.#deliverer.questions(record);
    const recorded = recordedQuestions(record);
    const claimed = this.#claimed.get(id);
    const questions: QuestionView[] = [];
    const keys = new Set([...answerable.keys(), ...recorded.keys()]);
    for (const key of keys) {
      if (claimed?.has(key) || record.answeredKeys.includes(key)) continue; // answered: gone from the page
      if (record.outcome || isTerminalStatus(record.status)) continue;
      const q = answerable.get(key);
      const request = q?.request ?? recorded.get(key);
      if (request) questions.push(questionView(key, request, q !== undefined));
    }
    const expiresAt = record.ttlMs === null ? null : record.localCreatedAt + record.ttlMs;
    const view: TaskView = {
      id,
      taskId: text(record.taskId),
      server: text(record.server),
      tool: text(record.name ?? record.method),
      status: text(record.outcome?.status ?? record.status),
      createdAt: record.localCreatedAt,
      expiresAt,
      urgentAt:
        expiresAt === null || record.ttlMs === null
          ? null
          : expiresAt - Math.round(record.ttlMs * URGENT_MARGIN_RATIO),
      cancelRequested: record.cancelRequested === true || this.#cancelling.has(id),
      uncollected: this.#deliverer.uncollected(record),
      follower: this.#deliverer.follower(record),
      questions,
      answers: this.#answerViews(id, record),
    };
    const holder = this.#deliverer.holder?.(record);
    if (holder !== undefined) view.holder = text(holder);
    if (record.statusMessage !== undefined) view.statusMessage = text(record.statusMessage);
    if (record.outcome) view.outcome = text(record.outcome.status);
    return view;
  }

  /**
   * The answers to show: those the record keeps (acknowledged by the server: who, when), with the time the person
   * answered when it was here; then answers given here that the record does not show yet (a fleet's holder sends
   * them at its next poll).
   */
  #answerViews(id: string, record: TaskRecord): AnswerView[] {
    const here = this.#answers.get(id) ?? [];
    const recorded: AnswerView[] = (record.answers ?? []).map((a) => {
      const mine = here.find((h) => h.key === text(a.key));
      return {
        key: text(a.key),
        action: text(a.action ?? 'answered'),
        by: a.answeredBy !== undefined ? text(a.answeredBy) : (mine?.by ?? 'unknown'),
        at: mine?.at ?? a.answeredAt,
        takenAt: a.answeredAt,
        via: mine?.via.replace(/^queued for /, 'sent by ') ?? 'sent',
      };
    });
    return [...recorded, ...here.filter((h) => !recorded.some((r) => r.key === h.key))];
  }

  /** The details of a task, or `undefined` when the store has no such task. */
  async details(id: string): Promise<TaskDetails | undefined> {
    const record = await this.#find(id);
    if (!record) return undefined;
    const details: TaskDetails = {
      task: this.#view(record),
      recordText: safeText(JSON.stringify(record, null, 2)),
    };
    if (record.outcome) details.outcomeText = safeText(JSON.stringify(record.outcome, null, 2));
    return details;
  }

  /**
   * Answers a question: checked against its `requestedSchema`, then handed to the one process that delivers it.
   * The first answer to a key wins (across browsers here, and across the fleet in Redis mode); later ones get
   * `already-answered`.
   */
  async answer(
    id: string,
    key: string,
    action: unknown,
    content: unknown,
    by: string,
  ): Promise<AnswerResult> {
    const record = await this.#find(id);
    if (!record) return { result: 'gone' };
    const question = this.#deliverer.questions(record).get(key);
    const claimed = this.#claimed.get(id) ?? new Set<string>();
    if (claimed.has(key) || record.answeredKeys.includes(key)) return { result: 'already-answered' };
    if (!question) return { result: 'gone' };
    const checked = checkAnswer(question.request, action, content);
    if ('problems' in checked) return { result: 'invalid', problems: checked.problems.map(text) };
    claimed.add(key);
    this.#claimed.set(id, claimed);
    const at = this.#now();
    let first: boolean;
    try {
      first = await question.respond(checked.response, { answeredBy: by });
    } catch (error) {
      claimed.delete(key); // not delivered: the question is open again
      void this.refresh();
      throw error;
    }
    if (!first) {
      void this.refresh();
      return { result: 'already-answered' };
    }
    const log = this.#answers.get(id) ?? [];
    const given = checked.response.action as string;
    if (question.queuedFor !== undefined) {
      log.push({ key: text(key), action: given, by, at, via: text(`queued for ${question.queuedFor}`) });
      this.#answers.set(id, log);
      void this.refresh();
      return { result: 'queued', at, holder: text(question.queuedFor) };
    }
    const takenAt = this.#now();
    log.push({ key: text(key), action: given, by, at, takenAt, via: this.#deliverer.via });
    this.#answers.set(id, log);
    void this.refresh();
    return { result: 'taken', at, takenAt };
  }

  /** Requests cancellation; the page shows "cancel requested" until the server reports the end. */
  async cancel(id: string): Promise<boolean> {
    const record = await this.#find(id);
    if (!record || record.outcome) return false;
    this.#cancelling.add(id);
    void this.refresh();
    try {
      await this.#deliverer.cancel(record);
    } catch (error) {
      this.#cancelling.delete(id);
      void this.refresh();
      throw error;
    }
    void this.refresh();
    return true;
  }

  /** A person opened the task: its outcome is collected. */
  async collect(id: string): Promise<void> {
    const record = await this.#find(id);
    if (record?.outcome) await this.#deliverer.collect(record);
    void this.refresh();
  }

  async #find(id: string): Promise<TaskRecord | undefined> {
    const known = this.#records.get(id);
    if (!known) return undefined;
    return (await this.#store.get(known.taskId, known.server)) ?? known;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#listeners.clear();
    await this.#refreshing;
    await this.#deliverer.close();
  }
}
