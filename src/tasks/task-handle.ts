/**
 * `TaskHandle`: one task as this client follows it. The class owns the task's state (its latest `DetailedTask` as
 * the server sent it, plus a few local facts) and every transition of it: following (polls and pushed states),
 * answering (`tasks/update`), cancelling (`tasks/cancel`), the `expiring` timer, a caller failure, and settling. No
 * other file writes that state; the rules it applies are pure functions in `decisions.ts`. Only the server's word
 * settles it: `completed`, `failed`, `cancelled`, or a -32602 that says the task is gone. The shared
 * {@link PollScheduler} decides when it polls.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md)
 *
 * @module
 */
import {
  CancelDeliveryError,
  CancelNotConfirmedError,
  ClientClosedError,
  InputDeliveryError,
  InvalidResponseError,
  McpError,
  redactTaskId,
  TaskExpiredError,
  TooManyInputRequestsError,
} from '../errors.js';
import { durationError, MAX_TIMER_MS } from '../internal/duration.js';
import { keysOf, unknownOptionError } from '../internal/option-keys.js';
import { raceAbort, withTaskId } from '../internal/race-abort.js';
import { failureCarrier, SafeEmitter, withListenerSink } from '../internal/safe-emitter.js';
import type { InputRequests, InputResponses } from '../protocol/input.js';
import { isTerminalStatus, parseDetailedTask, TaskShapeError, type DetailedTask } from '../protocol/tasks.js';
import type { EngineConfig } from './config.js';
import {
  effectivePollIntervalMs,
  expiresAt,
  isLostTask,
  lostTaskError,
  pollFailureVerdict,
  terminalOutcome,
  ttlStart,
  type PollIntervalPolicy,
  type Settled,
} from './decisions.js';
import { deliver, DeliveryFailure } from './delivery.js';
import {
  InputScope,
  type InputLimitBreach,
  type InputRequiredEvent,
  type RespondOptions,
} from './input-broker.js';
import type { PollScheduler } from './scheduler.js';
import { traceTask, type TaskTrace } from './task-telemetry.js';
import type { UpdateSender } from './update-sender.js';

export type { Settled } from './decisions.js';

/** The `tasks/*` operations of one era (2026-07-28 requests, or the 2025-11-25 SDK session). */
/** A `taskId` a server sent that is no string (the spec makes it one): any other non-null JSON value, kept as sent. */
export type ForeignTaskId = number | boolean | object;

export interface TaskOps {
  /**
   * `tasks/get`: the raw result (a `DetailedTask`). `writeCheck` (the store's poll fence on the task's lease) runs
   * right before the request is written (HTTP: once it has a connection) and throws to fail it unsent.
   */
  getTask(taskId: string, writeCheck?: () => void): Promise<Record<string, unknown>>;
  /** `tasks/update` with `inputResponses`. */
  updateTask(taskId: string, inputResponses: InputResponses): Promise<void>;
  /**
   * `tasks/cancel`. `taskId` is a string, except for a malformed creation result whose `taskId` was another JSON
   * value: it is sent back exactly as the server sent it (the only way to cancel that work).
   */
  cancelTask(taskId: string | ForeignTaskId): Promise<void>;
}

/** The client events the engine emits. */
export interface EngineEvents {
  inputRequired(event: InputRequiredEvent): void;
  warning(message: string): void;
  expiring(event: ExpiringEvent): void;
  serverViolation(detail: string): void;
  task(handle: TaskHandle<unknown>): void;
}

/**
 * What a handle reads from the engine that owns it (one per era backend, built by the task tracker): references to
 * the one configuration, the era backend, and the engine's shared parts.
 */
export interface TaskDriver {
  /** The client's resolved options, by reference. */
  readonly config: EngineConfig;
  /** The era backend: its `tasks/*` operations, and whether questions arrive outside `tasks/get` (2025-11-25). */
  readonly backend: { readonly ops: TaskOps; readonly questionsOutOfBand: boolean };
  /** The poll interval bounds of {@link EngineConfig}. */
  readonly policy: PollIntervalPolicy;
  readonly scheduler: PollScheduler;
  /** Batches and bounds `tasks/update` for this server. */
  readonly updates: UpdateSender;
  /** Aborts when the client closes (stops retries). */
  readonly signal: AbortSignal;
  readonly events: EngineEvents;
  /**
   * One `tasks/get` of `taskId` through the engine's one poll gate, the task's lease in a shared store (see
   * `TaskLeases`): every read of a task goes here, never to `backend.ops.getTask` directly. Rejects with what the
   * lease refused with (nothing sent).
   */
  poll(taskId: string): Promise<Record<string, unknown>>;
}

/** Emitted once when a task still waiting for input has less than the margin of its TTL left. */
export interface ExpiringEvent {
  taskId: string;
  /** The latest `DetailedTask` (status `input_required`). */
  task: DetailedTask;
  /** When the server may forget the task, epoch ms (client clock). */
  expiresAt: number;
  /** Milliseconds left when the event fired. */
  remainingMs: number;
}

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
  /** What a failure of caller code (a listener, a callback) does to the task while it runs: see {@link TaskHandle}. @default 'cancel' */
  onAbort?: 'cancel' | 'detach';
  /** An outcome already known (a stored terminal record): the handle starts settled and never polls. */
  outcome?: Settled<TResult>;
  /** The tool or prompt name, or resource URI (telemetry names the task's span after it). */
  name?: string;
  /** `traceparent` of the request span whose reply created the task (its span's parent and link). */
  createdIn?: string;
  /** `traceparent` of the task's first span, from its record: a span of a task followed again links to it. */
  firstSpan?: string;
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

/** Why the retries of a task's `tasks/update` stopped before it was delivered: the abort reason of its deliveries. */
class UpdatesStopped extends Error {
  constructor(
    readonly why: 'closed' | 'cancel' | 'done' | 'ended',
    options?: ErrorOptions,
  ) {
    super(
      `tasks/update retries stopped: ${why === 'closed' ? 'the client was closed' : why === 'cancel' ? 'a cancel was requested' : why === 'ended' ? 'the server reported the task ended' : 'the task is no longer followed'}`,
      options,
    );
  }

  /** True when an attempt already on the wire is awaited rather than abandoned (the server ended the task). */
  get finishInFlight(): boolean {
    return this.why === 'ended';
  }
}

/** The reason `tasks/cancel` retries stop when the server reported the task's end. */
const TASK_ENDED = Symbol('the server reported the task ended');

/** The errors a handle settled with after a caller failure (its `tasks/cancel` already sent, or detached). */
const callerAborts = new WeakSet<object>();

/** True when `error` is what a handle settled with after a caller failure (its `tasks/cancel` already sent, or detached). */
export function isCallerAbort(error: unknown): boolean {
  return error !== null && typeof error === 'object' && callerAborts.has(error);
}

const RESULT_OPTION_KEYS = keysOf<ResultOptions>()({ signal: true });
const CANCEL_OPTION_KEYS = keysOf<CancelOptions>()({ waitMs: true });

/** The `TypeError` for options of `result()` / `cancel()` with a key neither has, or a `waitMs` breaking the duration rule (0 allowed). */
function handleOptionsError(method: 'result' | 'cancel', options: unknown): TypeError | undefined {
  const unknown = unknownOptionError(
    `TaskHandle.${method}`,
    options,
    method === 'result' ? RESULT_OPTION_KEYS : CANCEL_OPTION_KEYS,
  );
  return (
    unknown ??
    (method === 'cancel'
      ? durationError('TaskHandle.cancel', 'waitMs', (options as CancelOptions | undefined)?.waitMs, {
          min: 'zero',
        })
      : undefined)
  );
}

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
  // What the server said, and what polling learnt.
  #task: DetailedTask;
  #ttlStart: number;
  #polls = 0;
  /** Callers awaiting `result()` now. */
  #awaiting = 0;
  #failures = 0;
  #notVisible = 0;
  #pollMultiple = 1; // safety poll while the server pushes this task
  // Cancelling.
  #cancelRequested: boolean;
  #cancel: Promise<void> | undefined;
  #cancelTimer: ReturnType<typeof setTimeout> | undefined;
  /** Stops the retries of `tasks/cancel` once the server reported the task's end. */
  #cancelRetries: AbortController | undefined;
  // Answering.
  #scope: InputScope | undefined;
  #rejections: Map<string, number> | undefined;
  /** Set once the server asked more questions than the client takes: no question is offered after it. */
  #overLimit: TooManyInputRequestsError | undefined;
  /** Stops the retries of this task's `tasks/update` deliveries (see {@link #stopUpdates}). */
  #updates: { controller: AbortController; unlisten: () => void } | undefined;
  // The `expiring` timer.
  #expiryTimer: ReturnType<typeof setTimeout> | undefined;
  #expiringSent = false;
  /** The error this handle is being aborted with after a caller failure. */
  #callerAbort: object | undefined;
  /** Its OpenTelemetry span and metrics, when a provider records (see `task-telemetry.ts`). */
  readonly #trace: TaskTrace | undefined;

  /** @internal Created by the task tracker; use `client.callTool`, `client.startTool`, `client.task` or `client.resume`. */
  constructor(driver: TaskDriver, init: TaskHandleInit<TResult>) {
    super();
    this.#driver = driver;
    this.#init = init;
    this.taskId = init.task.taskId;
    this.method = init.method;
    this.receivedAt = init.receivedAt;
    this.serverKey = driver.config.transport.serverKey;
    this.#task = init.task;
    this.#ttlStart = init.ttlStartAt ?? ttlStart(init.task, init.receivedAt);
    this.#cancelRequested = init.cancelRequested === true;
    this.#trace = init.outcome
      ? undefined
      : traceTask({
          taskId: this.taskId,
          method: init.method,
          name: init.name,
          owner: driver.config.transport,
          createdIn: init.createdIn,
          firstSpan: init.firstSpan,
          task: init.task,
          now: driver.config.now,
        });
  }

  /**
   * @internal `traceparent` of this task's first span (kept in its record): the one it was followed with first, or
   * this handle's own span's; `undefined` when it was never traced.
   */
  get traceparent(): string | undefined {
    return this.#init.firstSpan ?? this.#trace?.traceparent;
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
    return this.#cancelRequested;
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
    return this.#scope?.answeredKeys ?? new Set(this.#init.answeredKeys ?? []);
  }

  /** `{ taskId, method }`, enough for `client.task(taskId)` to continue it. */
  toJSON(): { taskId: string; method: string } {
    return { taskId: this.taskId, method: this.method };
  }

  /**
   * @internal Caller code about this task failed: a listener of the handle's (or the client's) events about this
   * task, or a late `onTask` / `onProgress` rejection, threw or returned a rejecting promise. Caller code never
   * breaks the engine: this acts after the engine's own step (the poll is rescheduled, the answer sent, the cancel
   * sent).
   *
   * - The task is not terminal: an abort of the task with the thrown error (carrying `taskId`) as reason, like a
   *   throwing `onTask`: `onAbort: 'cancel'` (the default) sends `tasks/cancel`, then `result()` rejects with it (or
   *   with {@link CancelDeliveryError}, `abortReason` = the error, when the cancel was not delivered); `'detach'`
   *   stops following at once (the task keeps running, its record resumable) and `result()` rejects with it.
   * - The task is terminal (a throwing `terminal` listener), or already being aborted: the outcome stays the
   *   server's, and a `warning` (client and handle) names the task and the error.
   * - A throwing `warning` listener is dropped: there is nowhere left to report it.
   */
  override listenerFailed(error: unknown, event: string): void {
    if (event === 'warning') return;
    queueMicrotask(() => this.#abortForCaller(error, event));
  }

  /** @internal Emits the first state and schedules the first poll. */
  start(): void {
    if (this.#init.outcome) {
      this.#settle(this.#init.outcome);
      return;
    }
    this.#trace?.status(this.#task);
    this.emit('status', this.#task);
    this.#apply(this.#task, true);
    if (this.done) return;
    const { scheduler, config } = this.#driver;
    if (this.#init.firstPoll === 'now') scheduler.scheduleAt(this, config.now());
    else scheduler.scheduleAfter(this, this.pollIntervalMs);
  }

  /**
   * Waits for the outcome. Aborting `signal` only stops this wait (the task keeps running; use {@link cancel}).
   * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling)
   *
   * With a store, it settles only once the outcome's record write has finished, waiting at most 10 s for it
   * (a failed write, or one still unfinished then, is a `warning`).
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
    // raceAbort keeps one listener on a signal however many waits share it (Node warns past ten).
    const waiting = raceAbort(this.#outcome.recorded() as Promise<TResult>, options.signal);
    this.#awaiting++;
    const stop = (): void => void this.#awaiting--;
    waiting.then(stop, stop);
    return waiting;
  }

  /**
   * @internal Runs `fn` once the outcome is known and its record write done (when {@link result} settles), for the
   * engine's own bookkeeping: it does not count as a caller awaiting the outcome, and keeps no promise while the
   * task runs.
   */
  whenSettled(fn: () => void): void {
    this.#outcome.whenRecorded(fn);
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
   * When the server refuses the cancel or it cannot be delivered, that wait is dropped: no cancel was recorded, so
   * the handle keeps following and `result()` settles with what the server reports.
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
    if (this.done) return this.#outcome.flush(() => this.#slowRecord());
    const first = !this.#cancelRequested;
    this.#cancelRequested = true;
    if (first) this.#stopUpdates('cancel'); // no tasks/update after a cancel, not even a retry
    const waitMs = options.waitMs ?? 0;
    if (waitMs > 0 && this.#cancelTimer === undefined) {
      this.#cancelTimer = setTimeout(
        () => this.stopFollowing(new CancelNotConfirmedError(this.taskId, this.#task)),
        waitMs,
      );
    }
    this.#cancel ??= this.#sendCancel().catch((error: unknown) => {
      this.#cancel = undefined; // a later cancel() tries again
      if (error instanceof CancelDeliveryError) {
        // No cancel was recorded (refused or never delivered): `waitMs` waited for a cancel's confirmation, so it
        // ends with it, and the handle keeps following what the server reports (ext-tasks: a task runs until the
        // server says otherwise). A later cancel() may start a new wait.
        clearTimeout(this.#cancelTimer);
        this.#cancelTimer = undefined;
      }
      throw error;
    });
    if (first) {
      this.#trace?.cancelRequested();
      this.emit('cancelRequested'); // after the engine's step: tasks/cancel is on its way
    }
    await this.#cancel;
    await this.#outcome.flush(() => this.#slowRecord()); // the record saying so (and any outcome the cancel brought) is written
  }

  /**
   * Answers outstanding input requests by key with `tasks/update`. Keys already answered are skipped; after
   * `cancel()`, `client.close()` or the end of following nothing is sent: `respond()` resolves without those keys
   * (`[]` when none was sent), never rejects for it, and a `warning` names each dropped key. An answer already on its
   * way when the server reports the task's end is still awaited: its acknowledgement resolves `respond()`.
   * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-update-requests)
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
    return this.#offer(inputRequests);
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
      next = parseDetailedTask(await this.#driver.poll(this.taskId));
      if (next.taskId !== this.taskId)
        throw new TaskShapeError(`tasks/get returned task ${next.taskId}, asked for ${this.taskId}`);
    } catch (error) {
      this.#onPollError(
        error instanceof TaskShapeError
          ? new InvalidResponseError('tasks/get', error.message, error.issues, { cause: error })
          : withTaskId(error, this.taskId), // poll errors name their task
      );
      return;
    }
    this.#polls++;
    this.#trace?.polled();
    this.#failures = 0;
    this.#apply(next, false);
    this.#outcome.wake(next);
    if (!this.done) this.#driver.scheduler.scheduleAfter(this, this.pollIntervalMs * this.#pollMultiple);
  }

  /** @internal Applies a pushed DetailedTask (`notifications/tasks`) like a `tasks/get` result; a settled task stays final. */
  applyPushed(task: DetailedTask): void {
    if (this.done || task.taskId !== this.taskId) return;
    this.#apply(task, false);
    this.#outcome.wake(task);
  }

  /** @internal Polls at `multiple` × the floor from now on (acknowledged pushed tasks); re-schedules the next poll. */
  setPollMultiple(multiple: number): void {
    if (this.done || multiple === this.#pollMultiple) return;
    this.#pollMultiple = multiple;
    this.#driver.scheduler.scheduleAfter(this, this.pollIntervalMs * multiple);
  }

  // --- Following ------------------------------------------------------------------------------------------------

  #apply(next: DetailedTask, first: boolean): void {
    if (this.done) return;
    const previous = this.#task;
    this.#task = next;
    if (!first) this.#ttlStart = ttlStart(next, this.#driver.config.now(), this.#ttlStart);
    if (!first && (previous.status !== next.status || previous.statusMessage !== next.statusMessage)) {
      this.#trace?.status(next);
      this.emit('status', next);
    }
    if (next.status === 'input_required') {
      if (Object.keys(next.inputRequests).length === 0 && !first && !this.#driver.backend.questionsOutOfBand)
        this.#violation(`task ${this.taskId} is input_required with no inputRequests`);
      this.#offer(next.inputRequests);
    }
    this.#watchExpiry(this.expiresAt);
    if (!isTerminalStatus(next.status)) return;
    this.emit('terminal', next);
    this.#settle(terminalOutcome(next, this.#init.parseResult));
  }

  /** Applies a state read outside the scheduler's polls (after a -32602 to `tasks/cancel` or `tasks/update`). */
  #applyRead(next: DetailedTask): void {
    this.#trace?.polled();
    this.#apply(next, false);
    this.#outcome.wake(next);
  }

  /** The classified error of a lost task (-32602). */
  #lost(error: unknown, reason: 'unknown' | 'not-yet-visible' = 'unknown'): Error {
    return lostTaskError(
      {
        taskId: this.taskId,
        expiresAt: this.expiresAt,
        now: this.#driver.config.now(),
        task: this.#task,
        reason,
      },
      error,
    );
  }

  #onPollError(error: unknown): void {
    const { config, scheduler } = this.#driver;
    const verdict = pollFailureVerdict(error, {
      expired: this.expiresAt !== null && config.now() >= this.expiresAt,
      firstPolls: this.#init.justCreated && this.#polls === 0,
      notVisible: this.#notVisible,
      failures: this.#failures,
      floorMs: this.pollIntervalMs,
      notYetVisibleRetries: config.polling.notYetVisibleRetries,
      maxPollRetries: config.polling.maxRetries,
    });
    if (verdict.violation)
      this.#violation(`tasks/get answered -32602 for task ${this.taskId} right after it was created`);
    if (verdict.report) this.emit('error', error);
    if (verdict.kind !== 'retry') {
      this.#fail(verdict.kind === 'lost' ? this.#lost(error, verdict.reason) : error);
      return;
    }
    this.#trace?.pollFailed(error, verdict.retryAfterMs);
    if (verdict.notVisible) this.#notVisible++;
    else this.#failures++;
    if (verdict.retryAfterMs !== undefined) {
      // Never sooner than the server asks, but never silently: the wait is a warning hosts can show, and a wait
      // that ends after the task's retention (creation + ttlMs) settles now: nothing can be learnt before then.
      const until = config.now() + verdict.retryAfterMs;
      const expiresAt = this.expiresAt;
      const pauseMs = verdict.pauseMs ?? verdict.retryAfterMs; // bounded (MAX_RETRY_AFTER_MS)
      const bounded = pauseMs < verdict.retryAfterMs && (expiresAt === null || until <= expiresAt);
      this.#warn(
        `task ${redactTaskId(this.taskId)}: the server asked to wait ${verdict.retryAfterMs} ms (Retry-After) before the next tasks/get${bounded ? `; waiting ${pauseMs} ms, this client's limit` : ''}`,
      );
      scheduler.pauseServer(this.serverKey, config.now() + pauseMs); // the server's other tasks wait too, as it asked
      if (expiresAt !== null && until > expiresAt) {
        this.#fail(
          new TaskExpiredError(this.taskId, expiresAt, this.#task, {
            cause: error,
            retryAfterMs: verdict.retryAfterMs,
          }),
        );
        return;
      }
    }
    scheduler.scheduleAfter(this, verdict.delayMs);
  }

  // --- Settling -------------------------------------------------------------------------------------------------

  #fail(error: unknown): void {
    this.#outcome.wake(error instanceof Error ? error : new Error(String(error)));
    this.#settle({ ok: false, error });
  }

  /**
   * Settles once, and stops everything the handle runs: polling, the cancel's `waitMs` timer, the `expiring` timer,
   * update retries, and the retries of `tasks/cancel` when the settling status is the server's terminal one (an
   * update or cancel already on the wire then still gets its reply).
   */
  #settle(outcome: Settled<TResult>): void {
    if (!this.#outcome.settle(outcome, () => this.#slowRecord())) return;
    this.#trace?.end(outcome, this.#task);
    this.#driver.scheduler.unschedule(this);
    clearTimeout(this.#cancelTimer);
    const ended = isTerminalStatus(this.#task.status);
    if (ended) this.#cancelRetries?.abort(TASK_ENDED);
    this.#watchExpiry(null);
    this.#stopUpdates(ended ? 'ended' : 'done', outcome.ok ? undefined : outcome.error);
    this.#outcome.wake(this.#task);
  }

  // --- Cancelling -----------------------------------------------------------------------------------------------

  /**
   * Delivers `tasks/cancel`. A -32602 answer means the task already ended or is gone: the task is read once; a
   * terminal state there settles the handle, a second -32602 is classified (expired / unknown).
   *
   * @throws {@link CancelDeliveryError} when transient failures outlasted the retries, the server's `Retry-After`
   *   would take the next attempt past `DELIVERY_BUDGET_MS` (`retryAfterMs` set), or the server refused;
   *   {@link CancelNotConfirmedError} (`invalidAck`, a `serverViolation` event) when the server's reply was not the
   *   empty acknowledgement (`resultType` other than `"complete"`, ext-tasks § Task Cancellation).
   */
  async #sendCancel(): Promise<void> {
    const { backend, signal: closing } = this.#driver;
    // Retries stop when the client closes, or when the server reports the task's end (a terminal status settles the
    // handle): a cancel of a task the server says has ended is moot, and cancel() resolves.
    const retries = (this.#cancelRetries = new AbortController());
    const onClose = (): void => retries.abort(closing.reason);
    if (closing.aborted) onClose();
    else closing.addEventListener('abort', onClose, { once: true });
    try {
      await deliver(() => backend.ops.cancelTask(this.taskId), undefined, retries.signal);
      this.#trace?.cancelDelivered();
    } catch (failure) {
      if (failure === TASK_ENDED) return;
      this.#trace?.cancelDelivered(failure instanceof DeliveryFailure ? failure.cause : failure);
      if (!(failure instanceof DeliveryFailure)) throw failure; // the client closed
      const error = failure.cause;
      if (isLostTask(error)) return this.#readAfterLostCancel();
      if (error instanceof InvalidResponseError) {
        // The request arrived and the server answered, just not with the acknowledgement (e.g. resultType "task").
        this.#violation(`task ${redactTaskId(this.taskId)}: ${error.message}`);
        throw new CancelNotConfirmedError(this.taskId, this.#task, { cause: error, invalidAck: true });
      }
      throw new CancelDeliveryError(this.taskId, this.#task, failure.attempts, {
        cause: error,
        refused: !failure.transient,
        retryAfterMs: failure.retryAfterMs,
      });
    } finally {
      closing.removeEventListener('abort', onClose);
    }
  }

  async #readAfterLostCancel(): Promise<void> {
    try {
      this.#applyRead(parseDetailedTask(await this.#driver.poll(this.taskId)));
    } catch (error) {
      if (isLostTask(error)) this.#fail(this.#lost(error));
      else this.emit('error', error); // polling goes on and will tell
    }
  }

  // --- Answering ------------------------------------------------------------------------------------------------

  #warn(message: string): void {
    this.emit('warning', message);
    this.#driver.events.warning(message);
  }

  /** A record write that outlived {@link RECORD_FLUSH_WAIT_MS}: `result()` / `cancel()` go on without it, never silently. */
  #slowRecord(): void {
    this.#warn(
      `task ${redactTaskId(this.taskId)}: the store has not finished writing its record after ${RECORD_FLUSH_WAIT_MS} ms; going on without it (the record may be stale)`,
    );
  }

  /**
   * A rule the server broke about this task: told to this handle's listeners, then to the client's (a failing client
   * listener is a failure of caller code about this task, like a handle listener's).
   */
  #violation(detail: string): void {
    this.emit('serverViolation', detail);
    this.reportingHere(() => this.#driver.events.serverViolation(detail));
  }

  /** The input scope of this task: answers go out through the driver's update sender, batched and bounded. */
  #inputScope(): InputScope {
    this.#scope ??= new InputScope(
      {
        method: this.method,
        taskId: this.taskId,
        handlers: this.#driver.config.handlers,
        expiresAt: () => this.expiresAt,
        deliver: (key, response, options) => this.#deliverAnswer(key, response, options),
        emit: (event) =>
          withListenerSink(
            (error, name) => this.listenerFailed(error, name),
            () => {
              this.#trace?.asked(event.key, event.request.method);
              this.emit('inputRequired', event);
              this.#driver.events.inputRequired(event);
            },
          ),
        onHandlerError: (error) => this.emit('error', error),
      },
      this.#init.answeredKeys,
    );
    return this.#scope;
  }

  /**
   * Offers `inputRequests` to the task's scope, unless they break a question limit (see `InputScope.limitBreach`):
   * then none of them is asked, and the task is cancelled and ends with {@link TooManyInputRequestsError}.
   */
  #offer(inputRequests: InputRequests): InputRequiredEvent[] {
    if (this.#overLimit) return [];
    const scope = this.#inputScope();
    const breach = scope.limitBreach(inputRequests);
    if (breach === undefined) return scope.offer(inputRequests);
    this.#abortForLimit(breach);
    return [];
  }

  /**
   * The server asked more questions than the client takes: polling stops, `tasks/cancel` is sent (a
   * `cancelRequested` event), and once it was acknowledged (or failed: a `warning`) `result()` rejects with
   * {@link TooManyInputRequestsError}, its `taskCancel` saying which. A terminal status the server reports first
   * stays the outcome.
   */
  #abortForLimit(breach: InputLimitBreach): void {
    const error = new TooManyInputRequestsError(
      this.method,
      breach.per,
      breach.limit,
      breach.count,
      this.taskId,
    );
    this.#overLimit = error;
    this.#driver.scheduler.unschedule(this); // no more polls (and no more questions) while the cancel goes out
    const settle = (): void => {
      if (this.done)
        this.#warn(
          `task ${redactTaskId(this.taskId)}: it ended before the cancel for ${error.message} took effect`,
        );
      else this.stopFollowing(error);
    };
    this.cancel().then(
      () => {
        error.taskCancel = { kind: 'cancel-requested' };
        settle();
      },
      (failure: unknown) => {
        const cause = failure instanceof Error && failure.cause !== undefined ? failure.cause : failure;
        error.taskCancel =
          failure instanceof CancelNotConfirmedError
            ? { kind: 'cancel-not-confirmed', cause }
            : { kind: 'cancel-not-delivered', refused: cause instanceof McpError, cause };
        this.#warn(
          `task ${redactTaskId(this.taskId)}: tasks/cancel after too many questions failed: ${String(failure)}; it may be running`,
        );
        settle();
      },
    );
  }

  async #deliverAnswer(
    key: string,
    response: Parameters<UpdateSender['send']>[2],
    options?: RespondOptions,
  ): Promise<boolean> {
    const closing = this.#driver.signal;
    if (this.#cancelRequested || this.done || closing.aborted) {
      const why = this.#cancelRequested
        ? 'a cancel was requested'
        : closing.aborted
          ? 'the client was closed'
          : 'the task is no longer followed';
      this.#warn(
        `task ${redactTaskId(this.taskId)}: answer to input request ${JSON.stringify(key)} dropped, not sent: ${why}`,
      );
      return false;
    }
    try {
      await this.#driver.updates.send(this.taskId, key, response, this.#updatesSignal());
    } catch (failure) {
      throw this.#onUpdateFailure(key, failure);
    }
    const action = (response as { action?: unknown }).action;
    this.#trace?.answered(key, typeof action === 'string' ? action : undefined);
    this.emit('answered', key, {
      ...(typeof action === 'string' ? { action } : {}),
      ...(options?.answeredBy !== undefined ? { answeredBy: options.answeredBy } : {}),
      answeredAt: this.#driver.config.now(),
    });
    return true;
  }

  /**
   * The rule for a `tasks/update` that failed: -32602 means the task is gone (read at once, which classifies it);
   * transient failures past the retries fail the handle with {@link InputDeliveryError}; a definitive rejection
   * re-offers the question once (one new `inputRequired` event, same key), and a second one fails the handle.
   * Returns the error `respond()` rejects with.
   */
  #onUpdateFailure(key: string, failure: unknown): unknown {
    if (failure instanceof UpdatesStopped) return this.#stoppedError(key, failure);
    if (!(failure instanceof DeliveryFailure)) return failure;
    const error = failure.cause;
    if (isLostTask(error)) {
      void this.#readAfterLostUpdate(key, error);
      return error;
    }
    return this.#rejected(key, error, failure.transient);
  }

  /** The signal that stops this task's update deliveries; it aborts by itself when the client closes. */
  #updatesSignal(): AbortSignal {
    if (!this.#updates) {
      const controller = new AbortController();
      const closing = this.#driver.signal;
      const onClose = (): void => controller.abort(new UpdatesStopped('closed'));
      if (closing.aborted) onClose();
      else closing.addEventListener('abort', onClose, { once: true });
      this.#updates = { controller, unlisten: () => closing.removeEventListener('abort', onClose) };
    }
    return this.#updates.controller.signal;
  }

  /**
   * Stops the retries of this task's `tasks/update` deliveries at once (a cancel was requested, or the handle settled
   * or stopped following, `cause` its error): nothing more is sent, and each waiting `respond()` rejects with
   * {@link #stoppedError}'s typed error, except that when the server reported the task's end (`'ended'`) an attempt
   * already on the wire is still awaited, so that its acknowledgement resolves `respond()`.
   */
  #stopUpdates(why: 'cancel' | 'done' | 'ended', cause?: unknown): void {
    this.#updates?.controller.abort(new UpdatesStopped(why, { cause }));
    if (why !== 'cancel') this.#updates?.unlisten();
  }

  /**
   * What `respond()` rejects with when its update's retries were stopped: {@link ClientClosedError} (carrying `taskId`)
   * when the client closed or the handle stopped on a close; otherwise {@link InputDeliveryError} naming the key, the
   * reason as `cause`. The handle itself is not failed by this (after a cancel it keeps following).
   */
  #stoppedError(key: string, stopped: UpdatesStopped): Error {
    if (stopped.why === 'closed') return withTaskId(new ClientClosedError(), this.taskId);
    if (stopped.cause instanceof ClientClosedError) return withTaskId(stopped.cause, this.taskId);
    return new InputDeliveryError(this.taskId, key, this.#task, { cause: stopped });
  }

  /**
   * After a -32602 answer to `tasks/update`, the task is read once: gone → classified (expired / unknown); still
   * alive and still asking `key` → the answer was rejected like any definitive rejection (re-offered once, then
   * {@link InputDeliveryError}); anything else → polling goes on.
   */
  async #readAfterLostUpdate(key: string, error: unknown): Promise<void> {
    let next: DetailedTask;
    try {
      next = parseDetailedTask(await this.#driver.poll(this.taskId));
    } catch (failure) {
      if (isLostTask(failure)) this.#fail(this.#lost(failure));
      else this.#driver.scheduler.scheduleAt(this, this.#driver.config.now()); // polling goes on and will tell
      return;
    }
    if (this.done || next.taskId !== this.taskId) return;
    this.#applyRead(next);
    if (this.done || next.status !== 'input_required' || !Object.hasOwn(next.inputRequests, key)) return;
    this.#rejected(key, error, false);
  }

  /** A definitive (or transient past the retries) rejection of the answer to `key`; returns what `respond()` throws. */
  #rejected(key: string, error: unknown, transient: boolean): unknown {
    this.#rejections ??= new Map();
    const rejections = (this.#rejections.get(key) ?? 0) + 1;
    this.#rejections.set(key, rejections);
    const fatal = new InputDeliveryError(this.taskId, key, this.#task, { cause: error });
    if (transient || rejections >= 2) {
      this.#fail(fatal);
      return fatal;
    }
    // After respond()'s own bookkeeping has reopened the key.
    setTimeout(() => {
      if (!this.done) this.#scope?.reoffer(key);
    }, 0);
    return error;
  }

  // --- The `expiring` timer -------------------------------------------------------------------------------------

  /**
   * (Re)arms the `expiring` timer: while the task is `input_required` with a finite TTL, one event (handle, then
   * client) fires when less than `expiringMarginRatio` of the TTL is left. `expiry` null (or a settled handle) just
   * clears the timer. Listeners run guarded: a failure is the task's caller failure, never the timer's.
   */
  #watchExpiry(expiry: number | null): void {
    clearTimeout(this.#expiryTimer);
    this.#expiryTimer = undefined;
    const task = this.#task;
    if (
      expiry === null ||
      this.#expiringSent ||
      this.done ||
      task.status !== 'input_required' ||
      task.ttlMs === null
    )
      return;
    const { config, events } = this.#driver;
    const fireAt = expiry - task.ttlMs * config.expiringMarginRatio;
    const waitMs = Math.max(0, fireAt - config.now());
    if (waitMs > MAX_TIMER_MS) {
      // A server TTL past a timer's range: wait in timer-sized steps (one overflowing timer would fire after 1 ms).
      this.#expiryTimer = setTimeout(() => this.#watchExpiry(expiry), MAX_TIMER_MS);
      (this.#expiryTimer as { unref?: () => void }).unref?.();
      return;
    }
    const timer = setTimeout(() => {
      this.#expiryTimer = undefined;
      const current = this.#task;
      if (this.#expiringSent || this.done || current.status !== 'input_required') return;
      this.#expiringSent = true;
      const event = {
        taskId: this.taskId,
        task: current,
        expiresAt: expiry,
        remainingMs: Math.max(0, expiry - config.now()),
      };
      withListenerSink(
        (error, name) => this.listenerFailed(error, name),
        () => {
          this.emit('expiring', event);
          events.expiring(event);
        },
      );
    }, waitMs);
    (timer as { unref?: () => void }).unref?.();
    this.#expiryTimer = timer;
  }

  // --- A caller failure -----------------------------------------------------------------------------------------

  #abortForCaller(error: unknown, event: string): void {
    const id = redactTaskId(this.taskId);
    const what = `a '${event}' ${event.startsWith('on') ? 'callback' : 'listener'}`;
    if (this.done || isTerminalStatus(this.#task.status) || this.#callerAbort) {
      const when =
        this.#callerAbort && !this.done
          ? 'while the task was being aborted for an earlier failure'
          : "after the task ended (the outcome stays the server's)";
      this.#warn(`task ${id}: ${what} threw ${when}: ${String(error)}`);
      return;
    }
    const reason = failureCarrier(error, what);
    const tagged = withTaskId(reason, this.taskId);
    callerAborts.add(tagged);
    this.#callerAbort = tagged;
    if (this.#init.onAbort === 'detach') {
      this.stopFollowing(tagged);
      return;
    }
    const settle = (outcome: unknown): void => {
      if (this.done)
        this.#warn(
          `task ${id}: it ended before the abort for ${what} that threw took effect: ${String(error)}`,
        );
      else this.stopFollowing(outcome);
    };
    this.cancel().then(
      () => settle(tagged),
      (failure: unknown) => {
        if (failure instanceof CancelDeliveryError) failure.abortReason = reason;
        settle(failure instanceof CancelNotConfirmedError ? tagged : failure);
      },
    );
  }
}

/** The longest `result()` and `cancel()` wait for the record writes they caused before settling anyway (ms). */
export const RECORD_FLUSH_WAIT_MS = 10_000;

/**
 * One task's outcome. Untyped (`unknown`) so that a `TaskHandle<T>` stays assignable to `TaskHandle<unknown>`.
 * Nothing is allocated for it until someone waits or it settles: an idle followed task holds only this object.
 */
class TaskOutcome {
  #settled: Settled<unknown> | undefined;
  /** What {@link recorded} hands out: made when first asked, or when the outcome settles. */
  #recorded: Promise<unknown> | undefined;
  /** Settles {@link #recorded} when it was asked for before the outcome settled. */
  #resolveRecorded: ((value: Promise<unknown>) => void) | undefined;
  /** Run once the outcome settled and its record writes are done ({@link whenRecorded}): usually one function. */
  #afterRecorded: (() => void) | Array<() => void> | undefined;
  #waiters: Array<(task: DetailedTask | Error) => void> | undefined;
  #onSettle: ((outcome: Settled<unknown>) => void) | undefined;
  #flush: (() => Promise<void>) | undefined;

  /**
   * Registers the one recorder of this outcome: `onSettle` runs synchronously when the outcome settles (at once when
   * it already has), so its write is queued before anyone hears of the outcome; `flush` resolves once every write
   * queued so far has finished (a failed write included: the recorder reports failures itself).
   */
  record(onSettle: (outcome: Settled<unknown>) => void, flush: () => Promise<void>): void {
    this.#flush = flush;
    if (this.#settled) onSettle(this.#settled);
    else this.#onSettle = onSettle;
  }

  /** The outcome, settled only once the record writes it causes are done (what `result()` hands out). */
  recorded(): Promise<unknown> {
    if (!this.#recorded) {
      this.#recorded = new Promise<unknown>((resolve) => {
        this.#resolveRecorded = resolve;
      });
      this.#recorded.catch(() => undefined); // failures reach callers of result(); never an unhandled rejection
    }
    return this.#recorded;
  }

  /** Runs `fn` once the outcome settled and its record writes are done (like {@link recorded}, without a promise). */
  whenRecorded(fn: () => void): void {
    const after = this.#afterRecorded;
    if (this.#settled) void this.recorded().then(fn, fn);
    else if (after === undefined) this.#afterRecorded = fn;
    else if (typeof after === 'function') this.#afterRecorded = [after, fn];
    else after.push(fn);
  }

  /**
   * Resolves once the recorder's queued writes are done, or after {@link RECORD_FLUSH_WAIT_MS} when a store never
   * answers (the write goes on in the background; `onSlow` is told); at once without a recorder. Never rejects.
   */
  async flush(onSlow?: () => void): Promise<void> {
    const flushing = this.#flush?.().catch(() => undefined);
    if (!flushing) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slow = await Promise.race([
      flushing.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), RECORD_FLUSH_WAIT_MS))),
    ]);
    clearTimeout(timer);
    if (slow) onSlow?.();
  }

  /** True once settled. */
  get settled(): boolean {
    return this.#settled !== undefined;
  }

  /** Settles the outcome; returns false (and changes nothing) when it was settled already. */
  settle(outcome: Settled<unknown>, onSlowRecord?: () => void): boolean {
    if (this.#settled) return false;
    this.#settled = outcome;
    this.#onSettle?.(outcome);
    this.#onSettle = undefined;
    const recorded = this.#afterFlush(outcome, onSlowRecord);
    recorded.catch(() => undefined);
    const afterRecorded = this.#afterRecorded;
    this.#afterRecorded = undefined;
    if (typeof afterRecorded === 'function') recorded.then(afterRecorded, afterRecorded);
    else for (const fn of afterRecorded ?? []) recorded.then(fn, fn);
    if (this.#resolveRecorded) this.#resolveRecorded(recorded);
    else this.#recorded = recorded;
    this.#resolveRecorded = undefined;
    return true;
  }

  async #afterFlush(outcome: Settled<unknown>, onSlowRecord: (() => void) | undefined): Promise<unknown> {
    await this.flush(onSlowRecord);
    if (outcome.ok) return outcome.value;
    throw outcome.error;
  }

  /** A promise of the next state {@link wake} hands out (rejected when it hands out an error). */
  nextState(): Promise<DetailedTask> {
    return new Promise<DetailedTask>((resolve, reject) => {
      (this.#waiters ??= []).push((t) => (t instanceof Error ? reject(t) : resolve(t)));
    });
  }

  /** Hands `state` to every caller of {@link nextState} so far. */
  wake(state: DetailedTask | Error): void {
    const waiters = this.#waiters;
    if (!waiters) return;
    this.#waiters = undefined;
    for (const wake of waiters) wake(state);
  }
}
