/**
 * The types of a `TaskHandle`: its events, how it starts, and its options.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md)
 *
 * @module
 */
import type { DetailedTask } from '../protocol/tasks.js';
import type { InputRequiredEvent } from './input-broker.js';
import type { ExpiringEvent } from './task-driver.js';

/** What the handle knows of an acknowledged answer. */
export interface AnsweredDetail {
  /** The answer's `action` (`accept`, `decline`, `cancel`), when it has one. */
  action?: string;
  /** Who answered, from `respond(response, { answeredBy })`. */
  answeredBy?: string;
  /** Local time the server acknowledged it, epoch ms. */
  answeredAt: number;
}

/**
 * Events of a `TaskHandle`. Listeners run guarded: one that throws or returns a rejecting promise never breaks the
 * engine (polling, cancelling and answering go on). While the task is not terminal its failure aborts the task like
 * a throwing `onTask` (`onAbort` applies, `'cancel'` by default; `result()` rejects with the error, carrying
 * `taskId`); once it is terminal (a `terminal` listener) the outcome stays the server's and a `warning` names the
 * task; a failing `warning` listener is dropped. See docs/guide.md § Your code never breaks the engine.
 */
export interface TaskHandleEvents {
  /** The status or `statusMessage` changed (also emitted once for the first state seen). */
  status: [task: DetailedTask];
  /** A new input request (once per key; again once if the server rejected its answer). */
  inputRequired: [event: InputRequiredEvent];
  /** The server acknowledged the answer to `key` (`tasks/update`): the action, who answered (if said), when. */
  answered: [key: string, detail?: AnsweredDetail];
  /** The task reached `completed`, `failed` or `cancelled` (the server said so). */
  terminal: [task: DetailedTask];
  /** `cancel()` was called for the first time (the server has not confirmed anything yet). */
  cancelRequested: [];
  /** Still `input_required` with less than the client's margin of its TTL left; emitted once. */
  expiring: [event: ExpiringEvent];
  /** Something was dropped on purpose (e.g. an answer that arrived after `cancel()`). */
  warning: [message: string];
  /** A non-fatal problem: a handler failed, a poll failed and will be retried. Never thrown. */
  error: [error: unknown];
  /** The server broke a rule (e.g. -32602 right after creation); the client coped. */
  serverViolation: [detail: string];
}

/** How a handle starts. */
export interface TaskHandleInit<TResult> {
  /** The first known state (creation result or first `tasks/get`), as the server sent it. */
  task: DetailedTask;
  /** The method that created the task, e.g. `tools/call`. */
  method: string;
  /** Local time (epoch ms) `task` arrived. */
  receivedAt: number;
  /** Local start of the TTL (epoch ms) when already known (a stored record); else computed from `task`. */
  ttlStartAt?: number;
  /** Validates a `completed` task's `result` into the method's result type. */
  parseResult: (raw: Record<string, unknown>) => TResult;
  /** True when this client just created the task (enables the not-yet-visible re-check). */
  justCreated: boolean;
  /** Keys answered before (resume). */
  answeredKeys?: Iterable<string>;
  /** True when a cancel was requested before (resume): answers are no longer sent. */
  cancelRequested?: boolean;
  /** A caller's interval in ms; may raise the server's floor, never lower it. */
  pollIntervalMs?: number;
  /** Due time of the first poll: after one interval (creation), or now (attach, resume). */
  firstPoll: 'after-interval' | 'now';
  /** What a failure of caller code (a listener, a callback) does to the task while it runs: see `caller-failure.ts`. @default 'cancel' */
  onAbort?: 'cancel' | 'detach';
  /** An outcome already known (a stored terminal record): the handle starts settled and never polls. */
  outcome?: Settled<TResult>;
}

/** Options of `TaskHandle.result`. */
export interface ResultOptions {
  /** Stops this wait (not the task); `result()` rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/** Options of `TaskHandle.cancel`. */
export interface CancelOptions {
  /**
   * Milliseconds to keep following the task after `tasks/cancel` for the server's terminal status; past it the
   * handle stops and `result()` rejects with `CancelNotConfirmedError`. 0 = follow until the server decides
   * (or the caller stops waiting). @default 0
   */
  waitMs?: number;
}

/** A known outcome: the result, or the error `result()` rejects with. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
