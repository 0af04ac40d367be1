/**
 * `TaskHandle`: one task's state (its latest `DetailedTask` plus a few local facts), its events, and the promise of
 * its outcome. The shared {@link PollScheduler} decides when it polls. (CLIENT-REQUIREMENTS 5.6–5.14; DESIGN.md)
 *
 * @module
 */
import { EventEmitter } from 'eventemitter3';
import { InvalidResponseError, TaskCancelledError, TaskExpiredError, TaskFailedError, TaskNotFoundError } from '../errors.js';
import type { InputRequests, InputResponses } from '../protocol/input.js';
import { isTerminalStatus, parseDetailedTask, TaskShapeError, type DetailedTask } from '../protocol/tasks.js';
import { InputScope, type InputHandlers, type InputRequiredEvent } from './input-broker.js';
import { classifyPollError, pollRetryDelayMs } from './poll-errors.js';
import { effectivePollIntervalMs, type PollIntervalPolicy } from './poll-interval.js';
import type { Pollable, PollScheduler } from './scheduler.js';

/** Events of a {@link TaskHandle}. */
export interface TaskHandleEvents {
  /** The status or `statusMessage` changed (also emitted once for the first state seen). */
  status: [task: DetailedTask];
  /** A new input request (once per key). */
  inputRequired: [event: InputRequiredEvent];
  /** The server acknowledged the answer to `key` (`tasks/update`). */
  answered: [key: string];
  /** The task reached `completed`, `failed` or `cancelled`. */
  terminal: [task: DetailedTask];
  /** A non-fatal problem: a handler failed, a poll failed and will be retried. Never thrown. */
  error: [error: unknown];
  /** The server broke a rule (e.g. -32602 right after creation); the client coped. */
  serverViolation: [detail: string];
}

/** What a handle needs from its client; keeps the tasks layer free of HTTP. */
export interface TaskDriver {
  readonly serverKey: string;
  readonly scheduler: PollScheduler;
  readonly policy: PollIntervalPolicy;
  readonly handlers: InputHandlers | undefined;
  readonly maxPollRetries: number;
  /** Number of -32602 answers tolerated right after creation before "not-yet-visible". */
  readonly notYetVisibleRetries: number;
  now(): number;
  getTask(taskId: string): Promise<Record<string, unknown>>;
  updateTask(taskId: string, inputResponses: InputResponses): Promise<void>;
  cancelTask(taskId: string): Promise<void>;
  /** Forwards an input event to the client's listeners. */
  emitInput(event: InputRequiredEvent): void;
  /** True when questions arrive outside `tasks/get` (a 2025-11-25 server's elicitation requests). */
  readonly questionsOutOfBand?: boolean;
}

/** How a handle starts. */
export interface TaskHandleInit<TResult> {
  /** The first known state (creation result or first `tasks/get`). */
  task: DetailedTask;
  /** The method that created the task, e.g. `tools/call`. */
  method: string;
  /** Local time (epoch ms) the creation result arrived: the start of `ttlMs`, immune to server clock skew. */
  localCreatedAt: number;
  /** Validates a `completed` task's `result` into the method's result type. */
  parseResult: (raw: Record<string, unknown>) => TResult;
  /** True when this client just created the task (enables the not-yet-visible re-check). */
  justCreated: boolean;
  /** Keys answered before (resume). */
  answeredKeys?: Iterable<string>;
  /** A caller's interval in ms; may raise the server's floor, never lower it. */
  pollIntervalMs?: number;
  /** Due time of the first poll: after one interval (creation), or now (attach). */
  firstPoll: 'after-interval' | 'now';
  /** An outcome already known (a stored terminal record, a lost task): the handle starts settled and never polls. */
  outcome?: Settled<TResult>;
}

/** Options of {@link TaskHandle.cancel}. */
export interface CancelOptions {
  /**
   * Milliseconds to keep polling for the server's terminal status after `tasks/cancel` (the server may still
   * complete or fail). 0 settles at once with `TaskCancelledError`. @default 0
   */
  waitMs?: number;
}

/** A known outcome: the result, or the error `result()` rejects with. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * A long-running task on the server. Not thenable (STYLE 7): await {@link TaskHandle.result}.
 *
 * @example
 * const handle = await client.startTool('reindex_corpus', { documents: 5000 });
 * handle.on('status', (t) => console.log(t.status, t.statusMessage));
 * const result = await handle.result();
 */
export class TaskHandle<TResult = Record<string, unknown>> extends EventEmitter<TaskHandleEvents> implements Pollable {
  readonly taskId: string;
  readonly method: string;
  readonly localCreatedAt: number;
  readonly serverKey: string;
  readonly #driver: TaskDriver;
  readonly #init: TaskHandleInit<TResult>;
  readonly #outcome: Promise<TResult>;
  #task: DetailedTask;
  #settled: Settled<TResult> | undefined;
  // Typed without TResult so TaskHandle<T> stays assignable to TaskHandle<unknown> (covariant in T).
  #resolve!: (value: unknown) => void;
  #reject!: (error: unknown) => void;
  #scope: InputScope | undefined;
  #polls = 0;
  #failures = 0;
  #notVisible = 0;
  #cancel: Promise<void> | undefined;
  #waiters: Array<(task: DetailedTask | Error) => void> = [];
  #pollMultiple = 1; // hook: issue-15 (safety poll while the server pushes this task)

  /** @internal Created by `TaskClient`; use `client.callTool`, `client.startTool` or `client.task`. */
  constructor(driver: TaskDriver, init: TaskHandleInit<TResult>) {
    super();
    this.#driver = driver;
    this.#init = init;
    this.taskId = init.task.taskId;
    this.method = init.method;
    this.localCreatedAt = init.localCreatedAt;
    this.serverKey = driver.serverKey;
    this.#task = init.task;
    this.#outcome = new Promise<TResult>((resolve, reject) => {
      this.#resolve = resolve as (value: unknown) => void;
      this.#reject = reject;
    });
    this.#outcome.catch(() => undefined); // failures reach callers of result(); never an unhandled rejection
  }

  /** The latest `DetailedTask` seen. */
  get task(): DetailedTask {
    return this.#task;
  }

  /** The latest status. */
  get status(): DetailedTask['status'] {
    return this.#task.status;
  }

  /** True once the outcome is known (terminal status, cancel, or a fatal error). */
  get done(): boolean {
    return this.#settled !== undefined;
  }

  /** True once `tasks/cancel` was requested (cancellation is cooperative: the task may still end otherwise, 5.14). */
  get cancelRequested(): boolean {
    return this.#cancel !== undefined;
  }

  /** When the server may forget the task: local creation time + latest `ttlMs`, epoch ms; `null` = never (5.10). */
  get expiresAt(): number | null {
    return this.#task.ttlMs === null ? null : this.localCreatedAt + this.#task.ttlMs;
  }

  /** The interval, in ms, the next poll waits: the server's latest `pollIntervalMs` within the client's bounds. */
  get pollIntervalMs(): number {
    return effectivePollIntervalMs(this.#task.pollIntervalMs, this.#driver.policy, this.#init.pollIntervalMs);
  }

  /** Keys of input requests answered so far. */
  get answeredKeys(): ReadonlySet<string> {
    return this.#scope?.answeredKeys ?? new Set(this.#init.answeredKeys ?? []);
  }

  /** `{ taskId }`, enough for `client.task(taskId)` to continue it (STYLE 18). */
  toJSON(): { taskId: string; method: string } {
    return { taskId: this.taskId, method: this.method };
  }

  /** @internal Emits the first state and schedules the first poll. */
  start(): void {
    if (this.#init.outcome) {
      this.#settle(this.#init.outcome);
      return;
    }
    this.emit('status', this.#task);
    this.#apply(this.#task, true);
    if (this.done) return;
    if (this.#init.firstPoll === 'now') this.#driver.scheduler.scheduleAt(this, this.#driver.now());
    else this.#driver.scheduler.scheduleAfter(this, this.pollIntervalMs);
  }

  /**
   * Waits for the outcome. Aborting `signal` only stops this wait (the task keeps running; use {@link cancel}).
   *
   * @returns the method's final result (a `CallToolResult` with `isError: true` is a result, 5.9).
   * @throws {@link TaskFailedError} `failed`; {@link TaskCancelledError} `cancelled` or cancelled here;
   *   {@link TaskExpiredError} / {@link TaskNotFoundError} lost; transport errors past the retry budget;
   *   `signal.reason` on abort.
   */
  result(options: { signal?: AbortSignal } = {}): Promise<TResult> {
    const { signal } = options;
    if (!signal) return this.#outcome;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<TResult>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#outcome.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /**
   * Asks the server to cancel (`tasks/cancel`, sent once). Cancellation is cooperative (5.14): with `waitMs` the
   * handle keeps polling that long and settles with whatever terminal status arrives; otherwise polling stops once
   * the server acknowledged (or the request failed) and the outcome is `TaskCancelledError`.
   *
   * @throws the `tasks/cancel` request's error (the task may still be running on the server).
   */
  async cancel(options: CancelOptions = {}): Promise<void> {
    if (this.done) return;
    const waitMs = options.waitMs ?? 0;
    const cancelled = (): void => this.#settle({ ok: false, error: new TaskCancelledError(this.taskId, this.#task) });
    this.#cancel ??= this.#driver.cancelTask(this.taskId);
    if (waitMs > 0) {
      const timer = setTimeout(cancelled, waitMs);
      this.#outcome.catch(() => undefined).finally(() => clearTimeout(timer));
      await this.#cancel;
      return;
    }
    try {
      await this.#cancel;
    } finally {
      cancelled();
    }
  }

  /**
   * Answers outstanding input requests by key with `tasks/update` (5.11). Keys already answered are skipped.
   *
   * @returns the keys sent.
   */
  async respond(inputResponses: InputResponses): Promise<string[]> {
    return this.#inputScope().respondAll(inputResponses);
  }

  /**
   * Resolves with the state after the next scheduled poll (never sooner than the floor allows, 5.7), or the last
   * state once the task is done. Rejects if that poll fails for good.
   */
  refresh(): Promise<DetailedTask> {
    if (this.done) return Promise.resolve(this.#task);
    return new Promise<DetailedTask>((resolve, reject) => {
      this.#waiters.push((t) => (t instanceof Error ? reject(t) : resolve(t)));
    });
  }

  /**
   * @internal Offers questions that reached the client outside `tasks/get` (a legacy server's elicitation request
   * tied to this task): same events, same dedupe, answers delivered through the driver's `updateTask`.
   */
  offerInput(inputRequests: InputRequests): InputRequiredEvent[] {
    return this.#inputScope().offer(inputRequests);
  }

  /**
   * @internal Stops following the task without asking the server anything (the client closed): `result()` rejects
   * with `error`; the task itself may still be running.
   */
  abandon(error: unknown): void {
    this.#fail(error);
  }

  /** @internal One `tasks/get`; called by the scheduler. */
  async poll(): Promise<void> {
    if (this.done) return;
    let next: DetailedTask;
    try {
      next = parseDetailedTask(await this.#driver.getTask(this.taskId));
      if (next.taskId !== this.taskId) throw new TaskShapeError(`tasks/get returned task ${next.taskId}, asked for ${this.taskId}`);
    } catch (error) {
      this.#onPollError(error instanceof TaskShapeError ? new InvalidResponseError('tasks/get', error.message, error.issues, { cause: error }) : error);
      return;
    }
    this.#polls++;
    this.#failures = 0;
    this.#apply(next, false);
    this.#wake(next);
    if (!this.done) this.#driver.scheduler.scheduleAfter(this, this.pollIntervalMs * this.#pollMultiple);
  }

  // hook: issue-15 (push): a pushed `notifications/tasks` is applied exactly like a poll's result.
  /** @internal Applies a pushed DetailedTask (`notifications/tasks`) like a `tasks/get` result; a settled task stays final. */
  applyPushed(task: DetailedTask): void {
    if (this.done || task.taskId !== this.taskId) return;
    this.#apply(task, false);
    this.#wake(task);
  }

  // hook: issue-15 (push): acknowledged tasks poll at a multiple of their floor, others at the floor.
  /** @internal Polls at `multiple` × the floor from now on; re-schedules the next poll accordingly. */
  setPollMultiple(multiple: number): void {
    if (this.done || multiple === this.#pollMultiple) return;
    this.#pollMultiple = multiple;
    this.#driver.scheduler.scheduleAfter(this, this.pollIntervalMs * multiple);
  }

  #apply(next: DetailedTask, first: boolean): void {
    const previous = this.#task;
    this.#task = next;
    if (!first && (previous.status !== next.status || previous.statusMessage !== next.statusMessage)) this.emit('status', next);
    if (next.status === 'input_required') {
      if (Object.keys(next.inputRequests).length === 0 && !first && !this.#driver.questionsOutOfBand) this.emit('serverViolation', `task ${this.taskId} is input_required with no inputRequests`);
      this.#inputScope().offer(next.inputRequests);
    }
    if (!isTerminalStatus(next.status)) return;
    this.emit('terminal', next);
    if (next.status === 'completed') {
      try {
        this.#settle({ ok: true, value: this.#init.parseResult(next.result) });
      } catch (error) {
        this.#settle({ ok: false, error });
      }
    } else if (next.status === 'failed') {
      this.#settle({ ok: false, error: new TaskFailedError(next) });
    } else {
      this.#settle({ ok: false, error: new TaskCancelledError(this.taskId, next) });
    }
  }

  #onPollError(error: unknown): void {
    const failure = classifyPollError(error);
    const floor = this.pollIntervalMs;
    if (failure.kind === 'lost') {
      const expiresAt = this.expiresAt;
      if (expiresAt !== null && this.#driver.now() >= expiresAt) {
        this.#fail(new TaskExpiredError(this.taskId, expiresAt, this.#task, { cause: error }));
      } else if (this.#init.justCreated && this.#polls === 0) {
        this.emit('serverViolation', `tasks/get answered -32602 for task ${this.taskId} right after it was created`);
        if (this.#notVisible++ < this.#driver.notYetVisibleRetries) this.#driver.scheduler.scheduleAfter(this, floor);
        else this.#fail(new TaskNotFoundError(this.taskId, 'not-yet-visible', this.#task, { cause: error }));
      } else {
        this.#fail(new TaskNotFoundError(this.taskId, 'unknown', this.#task, { cause: error }));
      }
      return;
    }
    if (failure.kind === 'transient' && ++this.#failures <= this.#driver.maxPollRetries) {
      this.emit('error', error);
      if (failure.retryAfterMs !== undefined) {
        this.#driver.scheduler.pauseServer(this.serverKey, this.#driver.now() + failure.retryAfterMs);
      }
      this.#driver.scheduler.scheduleAfter(this, pollRetryDelayMs(floor, this.#failures, failure.retryAfterMs));
      return;
    }
    if (failure.kind === 'transient') this.emit('error', error);
    this.#fail(error);
  }

  #fail(error: unknown): void {
    this.#wake(error instanceof Error ? error : new Error(String(error)));
    this.#settle({ ok: false, error });
  }

  #wake(outcome: DetailedTask | Error): void {
    const waiters = this.#waiters;
    if (waiters.length === 0) return;
    this.#waiters = [];
    for (const wake of waiters) wake(outcome);
  }

  #settle(outcome: Settled<TResult>): void {
    if (this.#settled) return;
    this.#settled = outcome;
    this.#driver.scheduler.unschedule(this);
    if (outcome.ok) this.#resolve(outcome.value);
    else this.#reject(outcome.error);
    this.#wake(this.#task);
  }

  #inputScope(): InputScope {
    this.#scope ??= new InputScope(
      {
        method: this.method,
        taskId: this.taskId,
        handlers: this.#driver.handlers,
        deliver: async (key, response) => {
          await this.#driver.updateTask(this.taskId, { [key]: response });
          this.emit('answered', key);
        },
        emit: (event) => {
          this.emit('inputRequired', event);
          this.#driver.emitInput(event);
        },
        onHandlerError: (error) => this.emit('error', error),
      },
      this.#init.answeredKeys,
    );
    return this.#scope;
  }
}
