/**
 * What the inbox server sends the page: one {@link TaskView} per task of the store, with its open questions. Every
 * string a server sent (tool name, `statusMessage`, question texts, field labels, enum titles, URLs) is already
 * escaped for display (unprintable and bidi control characters written as `\uXXXX`), and the page puts it in the
 * document as text only. Shared by the server and the page script (no Node imports).
 *
 * @module
 */
import type { FormField } from '../input/schema-fields.js';

/** One open question of a task. */
export interface QuestionView {
  /** The server's key for the request (raw: sent back as is with the answer). */
  key: string;
  /** The key for display. */
  keyText: string;
  /** The embedded request's method, e.g. `elicitation/create`, for display. */
  method: string;
  /** `form` and `url` elicitations are answered in the page; others are shown only. */
  mode: 'form' | 'url' | 'other';
  /** The server's message, for display. */
  message: string;
  /** Form fields (form mode). Labels, descriptions and enum titles are display text; enum values are raw. */
  fields: FormField[];
  /**
   * URL-mode: the URL for display, its host for display (ASCII: punycode for an internationalized name), and the
   * link target, set only for a URL the inbox lets the person open (http or https); a question without it can be
   * declined or cancelled but not accepted.
   */
  url?: string;
  urlHost?: string;
  urlHref?: string;
  /**
   * URL-mode: warnings to read before opening the link, display text: a host written with non-ASCII letters (with
   * its Unicode form), a user name before `@` that looks like a host, a URL that is not http(s) or does not parse.
   * The same wording the terminal prints.
   */
  urlWarnings?: string[];
  /** True when this inbox can deliver an answer (it or the fleet follows the task). */
  answerable: boolean;
}

/** An answer given through the inbox: who, when, and when the server took it. */
export interface AnswerView {
  key: string;
  action: string;
  by: string;
  /** Epoch ms the person answered. */
  at: number;
  /** Epoch ms the answer was acknowledged (`tasks/update` succeeded, or recorded for the fleet). */
  takenAt?: number;
  /** Display text of where the answer went: `sent` (by this inbox) or `recorded for the fleet`. */
  via: string;
}

/** One task as the page shows it. */
export interface TaskView {
  /** Opaque id for the page's requests (a hash of server and task id). */
  id: string;
  /** Display text. */
  taskId: string;
  server: string;
  tool: string;
  status: string;
  statusMessage?: string;
  /** The outcome's status once the task ended (`completed`, `failed`, `cancelled`, `expired`, `unknown`). */
  outcome?: string;
  /** Local creation time (TTL start), epoch ms. */
  createdAt: number;
  /** When the server may forget the task, epoch ms; `null` for never. */
  expiresAt: number | null;
  /** When the countdown turns urgent (the `expiring` margin before `expiresAt`), epoch ms. */
  urgentAt: number | null;
  cancelRequested: boolean;
  /** Ended while no caller awaited its outcome, and nobody opened it since. */
  uncollected: boolean;
  /** Who follows the task: this inbox, another process, the fleet, or nobody (ended or unreachable). */
  follower: 'inbox' | 'other' | 'fleet' | 'none';
  /** The other process that follows it (its lease holder's name), display text. */
  holder?: string;
  questions: QuestionView[];
  answers: AnswerView[];
}

/** The details of one task (`GET /api/tasks/<id>`). */
export interface TaskDetails {
  task: TaskView;
  /** The stored record as indented JSON, escaped for display. */
  recordText: string;
  /** The result or error once the task ended, escaped for display. */
  outcomeText?: string;
}

/** The snapshot sent on every change (server-sent event `tasks`). */
export interface InboxSnapshot {
  /** Server time of the snapshot, epoch ms (the page corrects its countdowns by it). */
  now: number;
  tasks: TaskView[];
  /** A problem the inbox met (a server unreachable, a store unreadable), display text. */
  warnings: string[];
}

/** Orders tasks for the page: waiting for an answer first, then running, then ended; newest first within each. */
export function compareTasks(a: TaskView, b: TaskView): number {
  const rank = (t: TaskView): number =>
    t.questions.length > 0 ? 0 : t.outcome === undefined ? 1 : t.uncollected ? 2 : 3;
  return rank(a) - rank(b) || b.createdAt - a.createdAt;
}
