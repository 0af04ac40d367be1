/**
 * `TaskHandle`: one task's state (its latest `DetailedTask` as the server sent it, plus a few local facts), its
 * events, and the promise of its outcome. Only the server's word settles it: `completed`, `failed`, `cancelled`,
 * or a -32602 that says the task is gone. The shared {@link PollScheduler} decides when it polls.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md)
 *
 * @module
 */
import { SafeEmitter } from '../internal/safe-emitter.js';
import { raceAbort } from '../internal/race-abort.js';
import { CancelNotConfirmedError, InvalidResponseError } from '../errors.js';
import type { InputRequests, InputResponses } from '../protocol/input.js';
import { isTerminalStatus, parseDetailedTask, TaskShapeError, type DetailedTask } from '../protocol/tasks.js';
import { expiresAt, ttlStart } from './expiry.js';
import type { InputScope, InputRequiredEvent } from './input-broker.js';
import { lostTaskError } from './lost-task.js';
import { pollRetryDelayMs } from './poll-errors.js';
import { effectivePollIntervalMs } from './poll-interval.js';
import { TaskOutcome, terminalOutcome } from './task-outcome.js';
import { callerFailed } from './caller-failure.js';
import {
  handleOptionsError,
  pollFailureVerdict,
  sendCancel,
  settleParts,
  stopUpdates,
  taskInputScope,
  watchExpiry,
  type HandleInternals,
} from './task-handle-parts.js';
import type { TaskDriver } from './task-driver.js';
import type {
  CancelOptions,
  ResultOptions,
  Settled,
  TaskHandleEvents,
  TaskHandleInit,
} from './task-handle-types.js';

export type { TaskDriver, ExpiringEvent } from './task-driver.js';
export type {
  AnsweredDetail,
  CancelOptions,
  ResultOptions,
  Settled,
  TaskHandleEvents,
  TaskHandleInit,
} from './task-handle-types.js';

/**
 * A long-running task on the server. Not thenable: await {@link TaskHandle.result}. Listeners run guarded ({@link TaskHandleEvents}).
 *
 * @example
 * const start = await client.startTool('reindex_corpus', { documents: 5000 });
 * if (start.resultType === 'task') start.task.on('status', (t) => console.log(t.status, t.statusMessage));
 * const result = start.resultType === 'task' ? await start.task.result() : start.result;
 */
export class TaskHandle<TResult = Record<string, unknown>> extends SafeEmitter<TaskHandleEvents> {
  // no `implements Pollable`: poll() is internal to the engine
  readonly taskId: string;
  readonly method: string;
  /** Local time (epoch ms) the first state of this task arrived here. */
  readonly receivedAt: number;
  readonly serverKey: string;
  readonly #driver: TaskDriver;
  readonly #init: TaskHandleInit<TResult>;
  readonly #outcome = new TaskOutcome(); // untyped, so TaskHandle<T> stays assignable to TaskHandle<unknown>
  readonly #parts: HandleInternals;
  #task: DetailedTask;
  #ttlStart: number;
  #polls = 0;
  /** Callers awaiting `result()` now. */
  #awaiting = 0;
  #failures = 0;
  #notVisible = 0;
  #pollMultiple = 1; // safety poll while the server pushes this task

  /** @internal Created by the task tracker; use `client.callTool`, `client.startTool`, `client.task` or `client.resume`. */
  constructor(driver: TaskDriver, init: TaskHandleInit<TResult>) {
    super();
    this.#driver = driver;
    this.#init = init;
    this.taskId = init.task.taskId;
    this.method = init.method;
    this.receivedAt = init.receivedAt;
    this.serverKey = driver.serverKey;
    this.#task = init.task;
    this.#ttlStart = init.ttlStartAt ?? ttlStart(init.task, init.receivedAt);
    this.#parts = {
      handle: this,
      driver,
      cancelRequested: init.cancelRequested === true,
      onAbort: init.onAbort,
      sink: (error, event) => callerFailed(this.#parts, error, event),
      task: () => this.#task,
      apply: (next) => {
        this.#apply(next, false);
        this.#outcome.wake(next);
      },
      fail: (error) => this.#fail(error),
      lost: (error) => this.#lost(error),
      pollNow: () => driver.scheduler.scheduleAt(this, driver.now()),
    };
  }

  /** The latest `DetailedTask`, as the server sent it. */
  get task(): DetailedTask {
    return this.#task;
  }

  /** The latest status the server reported. */
  get status(): DetailedTask['status'] {
    return this.#task.status;
  }

  /** True once the outcome is known (terminal status, a lost task, a fatal error) or the handle stopped following. */
  get done(): boolean {
    return this.#outcome.settled;
  }

  /** True once `cancel()` was called (cancellation is cooperative: the task may still end otherwise). */
  get cancelRequested(): boolean {
    return this.#parts.cancelRequested;
  }

  /** Local start of the task's TTL, epoch ms: receipt time − the age the server reported. */
  get localCreatedAt(): number {
    return this.#ttlStart;
  }

  /** When the server may forget the task, epoch ms from the client's clock; `null` = never. */
  get expiresAt(): number | null {
    return expiresAt(this.#ttlStart, this.#task.ttlMs);
  }

  /** The interval, in ms, the next poll waits: the server's latest `pollIntervalMs` within the client's bounds. */
  get pollIntervalMs(): number {
    return effectivePollIntervalMs(this.#task.pollIntervalMs, this.#driver.policy, this.#init.pollIntervalMs);
  }

  /** Keys of input requests answered so far. */
  get answeredKeys(): ReadonlySet<string> {
    return this.#parts.scope?.answeredKeys ?? new Set(this.#init.answeredKeys ?? []);
  }

  /** `{ taskId, method }`, enough for `client.task(taskId)` to continue it. */
  toJSON(): { taskId: string; method: string } {
    return { taskId: this.taskId, method: this.method };
  }

  /** @internal Caller code about this task failed (a listener threw or rejected): see `caller-failure.ts`. */
  override listenerFailed(error: unknown, event: string): void {
    this.#parts.sink(error, event);
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
   * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling)
   *
   * With a store, it settles only once the outcome's record write has finished (a failed write is a `warning`).
   *
   * @returns the method's final result (a `CallToolResult` with `isError: true` is a result).
   * @throws {@link TaskFailedError} `failed`; {@link TaskCancelledError} only when the server reported `cancelled`;
   *   {@link CancelNotConfirmedError} when a cancel's wait ended first; {@link TaskExpiredError} /
   *   {@link TaskNotFoundError} lost; {@link InputDeliveryError}; {@link InvalidResponseError} (a malformed `tasks/get`);
   *   {@link ClientClosedError} (the client closed; the task may still run); past the poll retry budget
   *   {@link RequestTimeoutError}, {@link NetworkError}, {@link HttpError}, {@link StreamEndedError}, {@link McpError};
   *   `signal.reason` on abort; TypeError for an unknown option key (a misspelt `signal`).
   */
  result(options: ResultOptions = {}): Promise<TResult> {
    const bad = handleOptionsError('result', options); // a misspelt option: TypeError, not a wait without its signal
    if (bad) return Promise.reject(bad);
    const waiting = raceAbort(this.#outcome.recorded as Promise<TResult>, options.signal);
    this.#awaiting++;
    const stop = (): void => void this.#awaiting--;
    waiting.then(stop, stop);
    return waiting;
  }

  /**
   * @internal Settles like {@link result} (after the outcome's record write), for the engine's own bookkeeping: it
   * does not count as a caller awaiting the outcome.
   */
  settled(): Promise<TResult> {
    return this.#outcome.recorded as Promise<TResult>;
  }

  /**
   * True while a caller awaits {@link result} (a wait not aborted): when the task ends without one, its record is
   * marked `uncollected`.
   */
  get awaited(): boolean {
    return this.#awaiting > 0;
  }

  /**
   * Asks the server to cancel (`tasks/cancel`, retried with backoff while it is lost; sent once when delivered) and
   * resolves once the server acknowledged it: intent recorded, not "cancelled". The handle keeps following and
   * {@link result} settles with what the server reports (it may still complete or fail); with `waitMs` (ms) the handle
   * stops following after that long and `result()`, not `cancel()`, rejects with {@link CancelNotConfirmedError}.
   * With a store, `cancel()` (like `result()`) settles only after the record write it caused has finished.
   * A -32602 answer means the task already ended or is gone: it is read once, and a lost task is classified.
   * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
   *
   * @throws {@link CancelDeliveryError} when `tasks/cancel` could not be delivered or the server refused it (the task
   *   may still run); {@link CancelNotConfirmedError} (`invalidAck`) when the server's reply was not the acknowledgement;
   *   {@link ClientClosedError} when the client closed during the delivery; TypeError for an unknown option key.
   */
  async cancel(options: CancelOptions = {}): Promise<void> {
    const bad = handleOptionsError('cancel', options);
    if (bad) throw bad;
    if (this.done) return this.#outcome.flush();
    const first = !this.#parts.cancelRequested;
    this.#parts.cancelRequested = true;
    if (first) stopUpdates(this.#parts, 'cancel'); // no tasks/update after a cancel, not even a retry
    const waitMs = options.waitMs ?? 0;
    if (waitMs > 0 && this.#parts.cancelTimer === undefined) {
      this.#parts.cancelTimer = setTimeout(
        () => this.stopFollowing(new CancelNotConfirmedError(this.taskId, this.#task)),
        waitMs,
      );
    }
    this.#parts.cancel ??= sendCancel(this.#parts).catch((error: unknown) => {
      this.#parts.cancel = undefined; // a later cancel() tries again
      throw error;
    });
    if (first) this.emit('cancelRequested'); // after the engine's step: tasks/cancel is on its way
    await this.#parts.cancel;
    await this.#outcome.flush(); // the record saying so (and any outcome the cancel brought) is written
  }

  /**
   * Answers outstanding input requests by key with `tasks/update`. Keys already answered are skipped; after a cancel
   * or close nothing is sent (a `warning` says so). (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-update-requests)
   *
   * @returns the keys sent.
   * @throws {@link InputDeliveryError} (transient failures past the retries or the delivery budget, retries stopped by
   *   `cancel()` or the handle settling, a second rejection); {@link ClientClosedError} with `taskId` (closed while being
   *   retried; no `tasks/update` after that); the server's first rejection ({@link McpError}, -32602 when the task is
   *   gone; {@link InvalidResponseError}; the question is then offered again).
   */
  async respond(inputResponses: InputResponses): Promise<string[]> {
    return this.#inputScope().respondAll(inputResponses);
  }

  /**
   * Resolves with the state after the next scheduled poll (never sooner than the floor allows), or the last
   * state once the task is done. (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling)
   *
   * @throws what {@link result} throws when that poll fails for good ({@link TaskNotFoundError}, {@link RequestTimeoutError},
   *   {@link NetworkError}, {@link ClientClosedError}, …).
   */
  refresh(): Promise<DetailedTask> {
    return this.done ? Promise.resolve(this.#task) : this.#outcome.nextState();
  }

  /** @internal The task recorder: see `TaskOutcome.record`; `result()` and `cancel()` settle after its writes. */
  recordWith(onSettle: (outcome: Settled<TResult>) => void, flush: () => Promise<void>): void {
    this.#outcome.record(onSettle as (o: Settled<unknown>) => void, flush);
  }

  /** @internal Questions that arrived outside `tasks/get` (a legacy server's elicitation). */
  offerInput(inputRequests: InputRequests): InputRequiredEvent[] {
    return this.#inputScope().offer(inputRequests);
  }

  /**
   * @internal Stops following the task without asking the server anything (the client closed, or the caller
   * stopped waiting after a cancel): `result()` rejects with `error`; the task itself may still be running.
   */
  stopFollowing(error: unknown): void {
    this.#fail(error);
  }

  /** @internal One `tasks/get`; called by the scheduler. */
  async poll(): Promise<void> {
    if (this.done) return;
    let next: DetailedTask;
    try {
      next = parseDetailedTask(await this.#driver.getTask(this.taskId));
      if (next.taskId !== this.taskId)
        throw new TaskShapeError(`tasks/get returned task ${next.taskId}, asked for ${this.taskId}`);
    } catch (error) {
      this.#onPollError(
        error instanceof TaskShapeError
          ? new InvalidResponseError('tasks/get', error.message, error.issues, { cause: error })
          : error,
      );
      return;
    }
    this.#polls++;
    this.#failures = 0;
    this.#apply(next, false);
    this.#outcome.wake(next);
    if (!this.done) this.#driver.scheduler.scheduleAfter(this, this.pollIntervalMs * this.#pollMultiple);
  }

  // A pushed `notifications/tasks` is applied exactly like a poll's result.
  /** @internal Applies a pushed DetailedTask (`notifications/tasks`) like a `tasks/get` result; a settled task stays final. */
  applyPushed(task: DetailedTask): void {
    if (this.done || task.taskId !== this.taskId) return;
    this.#apply(task, false);
    this.#outcome.wake(task);
  }

  // Acknowledged tasks poll at a multiple of their floor, others at the floor.
  /** @internal Polls at `multiple` × the floor from now on; re-schedules the next poll accordingly. */
  setPollMultiple(multiple: number): void {
    if (this.done || multiple === this.#pollMultiple) return;
    this.#pollMultiple = multiple;
    this.#driver.scheduler.scheduleAfter(this, this.pollIntervalMs * multiple);
  }

  #apply(next: DetailedTask, first: boolean): void {
    if (this.done) return;
    const previous = this.#task;
    this.#task = next;
    if (!first) this.#ttlStart = ttlStart(next, this.#driver.now(), this.#ttlStart);
    if (!first && (previous.status !== next.status || previous.statusMessage !== next.statusMessage))
      this.emit('status', next);
    if (next.status === 'input_required') {
      if (Object.keys(next.inputRequests).length === 0 && !first && !this.#driver.questionsOutOfBand)
        this.emit('serverViolation', `task ${this.taskId} is input_required with no inputRequests`);
      this.#inputScope().offer(next.inputRequests);
    }
    watchExpiry(this.#parts, this.expiresAt);
    if (!isTerminalStatus(next.status)) return;
    this.emit('terminal', next);
    this.#settle(terminalOutcome(next, this.#init.parseResult));
  }

  #lost(error: unknown, reason: 'unknown' | 'not-yet-visible' = 'unknown'): Error {
    return lostTaskError(
      { taskId: this.taskId, expiresAt: this.expiresAt, now: this.#driver.now(), task: this.#task, reason },
      error,
    );
  }

  #onPollError(error: unknown): void {
    const floor = this.pollIntervalMs;
    const verdict = pollFailureVerdict(error, {
      expired: this.expiresAt !== null && this.#driver.now() >= this.expiresAt,
      firstPolls: this.#init.justCreated && this.#polls === 0,
      notVisible: this.#notVisible,
      failures: this.#failures,
      driver: this.#driver,
    });
    if (verdict.violation)
      this.emit(
        'serverViolation',
        `tasks/get answered -32602 for task ${this.taskId} right after it was created`,
      );
    if (verdict.report) this.emit('error', error);
    if (verdict.kind === 'retry') {
      if (verdict.notVisible) this.#notVisible++;
      else this.#failures++;
      if (verdict.retryAfterMs !== undefined)
        this.#driver.scheduler.pauseServer(this.serverKey, this.#driver.now() + verdict.retryAfterMs);
      this.#driver.scheduler.scheduleAfter(
        this,
        verdict.notVisible ? floor : pollRetryDelayMs(floor, this.#failures, verdict.retryAfterMs),
      );
    } else this.#fail(verdict.kind === 'lost' ? this.#lost(error, verdict.reason) : error);
  }

  #fail(error: unknown): void {
    this.#outcome.wake(error instanceof Error ? error : new Error(String(error)));
    this.#settle({ ok: false, error });
  }

  #settle(outcome: Settled<TResult>): void {
    if (!this.#outcome.settle(outcome)) return;
    this.#driver.scheduler.unschedule(this);
    settleParts(this.#parts, outcome.ok ? undefined : outcome.error);
    this.#outcome.wake(this.#task);
  }

  #inputScope(): InputScope {
    this.#parts.scope ??= taskInputScope(this.#parts, this.#init.answeredKeys, () => this.expiresAt);
    return this.#parts.scope;
  }
}
