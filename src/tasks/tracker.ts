/**
 * The task engine: the one owner of a task's life. It creates handles for new tasks (recording them first),
 * attaches to tasks created elsewhere, restores stored ones, keeps the live set, decides what an abort (or a wait
 * that ended without the server's word) does to a task the caller holds no handle for, runs the caller's code that
 * belongs to one call (`'task'` listeners, `onTask`, `onProgress`) through one guard, keeps a malformed creation
 * result that still names a task from orphaning it, and is the one writer of task records.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md)
 *
 * @module
 */
import { feedQueuedAnswers } from './queued-answer-feed.js';
import {
  CancelDeliveryError,
  CancelNotConfirmedError,
  ClientClosedError,
  InvalidResponseError,
  redactTaskId,
  TaskDetachedError,
  TaskFollowedElsewhereError,
  TooManyInputRequestsError,
  type TaskCancelOutcome,
} from '../errors.js';
import { allowManyListeners, delay } from '../internal/abort.js';
import { creatingSpanOf } from '../internal/telemetry.js';
import { isOwnAbortReason, raceAbort, withTaskId } from '../internal/race-abort.js';
import {
  callGuarded,
  failureCarrier,
  withListenerSink,
  type ListenerSink,
} from '../internal/safe-emitter.js';
import { jsonFingerprint } from '../internal/deep-json.js';
import { printableExcerpt, safeJson } from '../protocol/printable.js';
import { MAX_CANCEL_NAME_HEADER_BYTES, taskIdProblem } from '../protocol/task-id.js';
import {
  isTerminalStatus,
  parseCreateTaskResult,
  parseDetailedTask,
  TaskShapeError,
  TaskStatusSchema,
  type DetailedTask,
} from '../protocol/tasks.js';
import { TASK_RECORD_VERSION, type TaskRecord } from '../store/task-record.js';
import { LeaseLostError } from '../store/redis/errors.js';
import type { FollowLease, TaskLeases } from '../store/task-store.js';
import { encodeHeaderValue } from '../transport/header-encoding.js';
import type { EraBackend } from './backend.js';
import {
  classifyPollError,
  expiresAt,
  isLostTask,
  lostTaskError,
  settledFromRecord,
  type PollIntervalPolicy,
} from './decisions.js';
import { deliver, DeliveryFailure } from './delivery.js';
import type { PushFollowable } from './push/push-tracker.js';
import { parserFor } from './result-parsers.js';
import type { PollScheduler } from './scheduler.js';
import type { EngineConfig } from './config.js';
import {
  isCallerAbort,
  RECORD_FLUSH_WAIT_MS,
  TaskHandle,
  type EngineEvents,
  type ForeignTaskId,
  type TaskDriver,
} from './task-handle.js';
import { newRecord, outcomeOf, recordHandle } from './task-recorder.js';
import { UpdateSender } from './update-sender.js';

/** What the push tracker is told: a task starts and stops being followed. */
export interface PushFollower {
  follow(handle: PushFollowable): void;
  unfollow(taskId: string): void;
}

/** The engine-wide parts a follow-up of a failed wait reads. */
type Engine = Pick<TaskDriver, 'config' | 'events'>;

// --- A malformed creation result ---------------------------------------------------------------------------------

/**
 * A `CreateTaskResult` failed validation. When it still carries a usable `taskId`, that task may be running: it is
 * cancelled (`onAbort: 'cancel'`, one delivered `tasks/cancel`) or recorded (`'detach'`) before the caller learns.
 * An id this client refuses (control characters, over MAX_TASK_ID_BYTES, U+FFFD, lone surrogates) cannot be recorded
 * or followed: with `'cancel'` it still gets its `tasks/cancel`, sent with the raw id, when its encoded `Mcp-Name`
 * header value is at most {@link MAX_CANCEL_NAME_HEADER_BYTES}; otherwise (or with `'detach'`) a `warning` reports
 * it, escaped.
 *
 * @returns the {@link InvalidResponseError} to throw, with `taskId` when it is usable, `taskIdEscaped` whenever a
 *   string id was named, and `taskCancel` saying what became of that task.
 */
export async function orphanGuard(
  driver: TaskDriver,
  method: string,
  params: Record<string, unknown>,
  created: Record<string, unknown>,
  policy: 'cancel' | 'detach' | undefined,
  error: TaskShapeError,
): Promise<InvalidResponseError> {
  const raw = created.taskId !== undefined ? created : ((created.task ?? {}) as Record<string, unknown>);
  const named = typeof raw.taskId === 'string' && raw.taskId.length > 0 ? raw.taskId : undefined;
  const taskId = named !== undefined && taskIdProblem(named) === undefined ? named : undefined;
  // A taskId that is no string (a number, an object...): the spec makes it a string, but sending the server's own
  // value back is the only way to cancel the work it may have started; it is reported as its JSON text.
  const foreign =
    raw.taskId !== undefined && raw.taskId !== null && typeof raw.taskId !== 'string'
      ? (raw.taskId as ForeignTaskId)
      : undefined;
  const taskIdEscaped =
    named !== undefined
      ? printableExcerpt(named, 256)
      : foreign !== undefined
        ? printableExcerpt(safeJson(JSON.stringify(foreign)), 256)
        : undefined;
  let taskCancel: TaskCancelOutcome | undefined;
  if (foreign !== undefined && taskIdEscaped !== undefined)
    taskCancel = await cancelForeign(driver, method, foreign, taskIdEscaped, policy);
  else if (named !== undefined && taskId === undefined)
    taskCancel = await cancelUnusable(driver, method, named, policy);
  else if (taskId !== undefined && policy === 'detach')
    taskCancel = await recordDetached(driver, method, params, raw, taskId);
  else if (taskId !== undefined) {
    taskCancel = await cancelNamed(driver, taskId);
    if (taskCancel.kind !== 'cancel-requested')
      driver.events.warning(
        `${method}: tasks/cancel for the malformed task ${redactTaskId(taskId)} ${failedHow(taskCancel)}`,
      );
  }
  return new InvalidResponseError(method, error.message, error.issues, {
    cause: error,
    taskId,
    taskIdEscaped,
    taskCancel,
  });
}

/** Records a usable task left running (`onAbort: 'detach'`) in the store, or warns when there is none. */
async function recordDetached(
  driver: TaskDriver,
  method: string,
  params: Record<string, unknown>,
  raw: Record<string, unknown>,
  taskId: string,
): Promise<TaskCancelOutcome> {
  if (driver.config.store) {
    const status = TaskStatusSchema.safeParse(raw.status);
    const now = driver.config.now();
    const record: TaskRecord = {
      version: TASK_RECORD_VERSION,
      server: driver.config.transport.serverKey,
      method,
      name: typeof params.name === 'string' ? params.name : undefined,
      taskId,
      localCreatedAt: now,
      ttlMs: typeof raw.ttlMs === 'number' && Number.isFinite(raw.ttlMs) ? raw.ttlMs : null,
      status: status.success && status.data !== 'input_required' ? status.data : 'working',
      answeredKeys: [],
      receivedAt: now,
      updatedAt: now,
    };
    await driver.config.store
      .put(record)
      .catch((e: unknown) =>
        driver.events.warning(`task store: could not write ${redactTaskId(taskId)}: ${String(e)}`),
      );
  } else {
    driver.events.warning(
      `${method}: malformed CreateTaskResult for task ${redactTaskId(taskId)}; it may be running (no store to record it)`,
    );
  }
  return { kind: 'not-sent', reason: 'detached' };
}

/**
 * Cancels (`'cancel'` policy: one delivered `tasks/cancel` carrying the value exactly as the server sent it) or
 * reports (`'detach'`) a task named by a `taskId` that is no string; a `warning` names it by its escaped JSON text
 * unless the cancel was acknowledged.
 */
async function cancelForeign(
  driver: TaskDriver,
  method: string,
  foreign: ForeignTaskId,
  shown: string,
  policy: 'cancel' | 'detach' | undefined,
): Promise<TaskCancelOutcome> {
  if (policy === 'detach') {
    driver.events.warning(
      `${method}: the server named task ${shown} with a taskId that is no string; it may be running, left running (onAbort: detach)`,
    );
    return { kind: 'not-sent', reason: 'detached' };
  }
  const outcome = await cancelNamed(driver, foreign);
  if (outcome.kind !== 'cancel-requested')
    driver.events.warning(
      `${method}: tasks/cancel for the task ${shown} (a taskId that is no string) ${failedHow(outcome)}`,
    );
  return outcome;
}

/**
 * The fingerprint of a creation request: its method and params, `_meta` aside (a re-send carries other `_meta`). A
 * follower keeps this number, not the params, so an idle task holds no copy of its request.
 */
function creationFingerprint(method: string, params: Record<string, unknown>): number {
  const { _meta: _, ...plain } = params;
  return jsonFingerprint([method, plain]);
}

/** One delivered `tasks/cancel` for `taskId` (bounded retries), told as a {@link TaskCancelOutcome}. */
async function cancelNamed(driver: TaskDriver, taskId: string | ForeignTaskId): Promise<TaskCancelOutcome> {
  try {
    await deliver(() => driver.backend.ops.cancelTask(taskId), undefined, driver.signal);
    return { kind: 'cancel-requested' };
  } catch (failure) {
    if (!(failure instanceof DeliveryFailure))
      return { kind: 'cancel-not-delivered', refused: false, cause: failure }; // the client closed
    // The request arrived and the server answered, just not with the acknowledgement (e.g. resultType "task").
    if (failure.cause instanceof InvalidResponseError)
      return { kind: 'cancel-not-confirmed', cause: failure.cause };
    return { kind: 'cancel-not-delivered', refused: !failure.transient, cause: failure.cause };
  }
}

/** The tail of a warning about a `tasks/cancel` that was not acknowledged. */
function failedHow(outcome: TaskCancelOutcome): string {
  const cause = 'cause' in outcome ? outcome.cause : undefined;
  const why = String((cause as Error | undefined)?.message ?? cause);
  if (outcome.kind === 'cancel-not-confirmed')
    return `reached the server, but its reply was not an acknowledgement: ${why}; it may be running`;
  return `${outcome.kind === 'cancel-not-delivered' && outcome.refused ? 'was refused' : 'could not be delivered'}: ${why}; it may be running`;
}

/**
 * Cancels (raw id, `'cancel'` policy, encoded `Mcp-Name` within {@link MAX_CANCEL_NAME_HEADER_BYTES}) or reports
 * (escaped) a task named by an id this client refuses.
 */
async function cancelUnusable(
  driver: TaskDriver,
  method: string,
  named: string,
  policy: 'cancel' | 'detach' | undefined,
): Promise<TaskCancelOutcome> {
  const shown = printableExcerpt(named, 64);
  const headerBytes = encodeHeaderValue(named).length; // ASCII: verbatim printable ASCII or base64
  if (policy === 'detach' || headerBytes > MAX_CANCEL_NAME_HEADER_BYTES) {
    const why =
      policy === 'detach'
        ? 'left running (onAbort: detach)'
        : `not cancelled: the id takes ${headerBytes} bytes in the Mcp-Name header, over ${MAX_CANCEL_NAME_HEADER_BYTES}`;
    driver.events.warning(
      `${method}: the server named task "${shown}" with an id this client refuses (${taskIdProblem(named)}); it may be running, ${why}`,
    );
    return { kind: 'not-sent', reason: policy === 'detach' ? 'detached' : 'id-too-long' };
  }
  const outcome = await cancelNamed(driver, named);
  if (outcome.kind !== 'cancel-requested')
    driver.events.warning(
      `${method}: tasks/cancel for the task "${shown}" (an id this client refuses) ${failedHow(outcome)}`,
    );
  return outcome;
}

// --- A wait that ended without the server's word; an abort's bounded cancel -----------------------------------

/** True when `error` is the server's word on the task (or a local end that already names and handles it). */
function isSettledByServer(handle: TaskHandle<unknown>, error: unknown): boolean {
  if (outcomeOf({ ok: false, error }) !== undefined) return true;
  if (
    error instanceof ClientClosedError ||
    error instanceof CancelNotConfirmedError ||
    error instanceof CancelDeliveryError
  )
    return true;
  if (isCallerAbort(error)) return true; // a caller failure: already cancelled (or detached) by the handle itself
  if (error instanceof TooManyInputRequestsError) return true; // the handle cancelled it already
  // The task's lease is another process's now: the task is theirs to follow, never ours to cancel.
  if (error instanceof TaskFollowedElsewhereError || error instanceof LeaseLostError) return true;
  return isTerminalStatus(handle.task.status);
}

/**
 * What the call rejects with after its task's wait failed with `error`: `error` carrying `taskId`. When the server
 * had not settled the task: after transient poll failures, or with `'detach'`, it is left running (recorded when a
 * store is set, otherwise a `warning` names it); otherwise `'cancel'` (the default) marks the record
 * `cancelRequested` and sends one delivered `tasks/cancel`, waiting for it at most `abortGraceMs`: the delivery goes
 * on in the background and a failed one is a `warning`.
 */
export async function afterFollowFailure(
  engine: Engine,
  driver: TaskDriver | undefined,
  handle: TaskHandle<unknown>,
  policy: 'cancel' | 'detach' | undefined,
  error: unknown,
  drained: () => Promise<void>,
): Promise<unknown> {
  const tagged = withTaskId(error, handle.taskId);
  if (isSettledByServer(handle, error)) return tagged;
  const id = redactTaskId(handle.taskId);
  if (policy === 'detach' || !driver || classifyPollError(error).kind === 'transient') {
    if (!engine.config.store)
      engine.events.warning(
        `${handle.method}: stopped following task ${id} (${String(error)}); it may still be running`,
      );
    return tagged;
  }
  await drained();
  const store = engine.config.store;
  if (store) {
    const record = await store.get(handle.taskId, driver.config.transport.serverKey).catch(() => undefined);
    if (record && !record.outcome)
      await store
        .put({ ...record, cancelRequested: true, updatedAt: engine.config.now() })
        .catch((e: unknown) => engine.events.warning(`task store: could not write ${id}: ${String(e)}`));
  }
  // The failure already happened: the caller hears of it within abortGraceMs, whatever the cancel's delivery is
  // still doing; the delivery goes on in the background and its failure is a warning.
  const cancelling = deliver(
    () => driver.backend.ops.cancelTask(handle.taskId),
    undefined,
    driver.signal,
  ).then(
    () => undefined,
    (failure: unknown) =>
      engine.events.warning(
        `${handle.method}: tasks/cancel for task ${id} (its wait failed) was not delivered: ${String((failure as Error).cause ?? failure)}`,
      ),
  );
  await withinGrace(engine.config.limits.abortGraceMs, cancelling);
  return tagged;
}

/** Resolves with `work`'s value, or with {@link LATE} once `graceMs` (ms) passed first (`work` goes on). */
async function withinGrace<T>(graceMs: number | undefined, work: Promise<T>): Promise<T | typeof LATE> {
  if (graceMs === undefined) return work;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), graceMs)));
  const first = await Promise.race([work, waited]);
  clearTimeout(timer);
  return first;
}

/** What {@link withinGrace} resolves with when the grace ran out first. */
const LATE = Symbol('late');

/**
 * Waits for an abort's `cancelling` (resolving to what the call rejects with) at most `engine.config.limits.abortGraceMs` (ms); then
 * resolves with `tagged` (the abort reason carrying `taskId`) and lets the delivery go on: a final failure becomes a
 * `warning` event naming the task (its record keeps `cancelRequested`, resumable).
 */
export async function boundedCancel(
  engine: Engine,
  taskId: string,
  cancelling: Promise<Thrown>,
  tagged: unknown,
): Promise<Thrown> {
  const first = await withinGrace(engine.config.limits.abortGraceMs, cancelling);
  if (first !== LATE) return first;
  void cancelling.then(({ error }) => {
    if (error !== tagged)
      engine.events.warning(
        `tasks/cancel for task ${redactTaskId(taskId)} (the caller aborted) ${cancelFailure(error)}; its record keeps cancelRequested`,
      );
  });
  return { error: tagged };
}

/** True when an abort reason is a {@link ClientClosedError}; false for one whose prototype cannot be read (a revoked Proxy). */
function isClosedReason(reason: unknown): boolean {
  try {
    return reason instanceof ClientClosedError;
  } catch {
    return false;
  }
}

/**
 * What a call rejects with, boxed: a caller's abort reason may be a thenable (or a Proxy whose `then` throws), and a
 * promise resolved with it would adopt it (wait on it for ever, or reject with its trap's error) instead of passing
 * it on.
 */
export interface Thrown {
  readonly error: unknown;
}

/** The {@link ClientClosedError} a call rejects with when close() aborted it and its `tasks/cancel` failed (`cause`). */
export function closedWithCause(taskId: string, failure: unknown): ClientClosedError {
  const closed = new ClientClosedError(undefined, { cause: failure });
  closed.taskId = taskId;
  return closed;
}

/** What became of a failed `tasks/cancel`, truthfully: a close cut it short (it may have been sent), or it failed. */
function cancelFailure(result: unknown): string {
  const failure = result instanceof ClientClosedError && result.cause !== undefined ? result.cause : result; // unwrap closedWithCause
  const closed =
    failure instanceof ClientClosedError ||
    (failure instanceof Error && failure.cause instanceof ClientClosedError);
  return closed
    ? 'got no answer before the client closed (it may have reached the server)'
    : `failed: ${String(failure)}`;
}

// --- The caller's code of one call ------------------------------------------------------------------------------

/** What a throwing callback left the engine: the error to abort the call with. */
export interface CallbackFailure {
  readonly error: unknown;
}

/**
 * The caller failures of one call: kept until the engine takes them ({@link take}), then routed to `late` (the
 * task's handle) once one is set with {@link routeTo}.
 */
export class CallFailures {
  #first: unknown;
  #failed = false;
  #late: ListenerSink | undefined;
  readonly sink: ListenerSink = (error, event) => {
    if (this.#late) this.#late(error, event);
    else if (!this.#failed) {
      this.#failed = true;
      this.#first = error;
    }
  };

  /** `fn` guarded: its failures come here. */
  guard<A extends unknown[]>(
    fn: ((...args: A) => unknown) | undefined,
    name: string,
  ): ((...args: A) => void) | undefined {
    if (fn === undefined) return undefined;
    return (...args: A) => callGuarded(fn as (...a: never[]) => unknown, undefined, args, name, this.sink);
  }

  /** The first failure so far (then forgotten), as a {@link CallbackFailure}. */
  take(): CallbackFailure | undefined {
    if (!this.#failed) return undefined;
    const error = this.#first;
    this.#failed = false;
    this.#first = undefined;
    return { error: failureCarrier(error) };
  }

  /** From now on, failures go to `late`. */
  routeTo(late: ListenerSink): void {
    this.#late = late;
  }
}

/**
 * Runs `emitTask(handle)` then `onTask(handle)` (in that order; the second is skipped when the first failed), each
 * guarded. A failure that happens synchronously is returned; one that comes later (a rejected promise) goes to
 * `late`.
 *
 * @returns `undefined` when both returned, else the {@link CallbackFailure} with what was thrown (a thrown
 *   non-object is wrapped in an `Error` with it as `cause`).
 */
export function runTaskCallbacks<H>(
  handle: H,
  emitTask: (handle: H) => void,
  onTask: ((handle: H) => unknown) | undefined,
  late: ListenerSink,
  failures = new CallFailures(),
): CallbackFailure | undefined {
  withListenerSink(failures.sink, () => emitTask(handle));
  let thrown = failures.take();
  if (!thrown && onTask) {
    callGuarded(onTask as (...a: never[]) => unknown, undefined, [handle], 'onTask', failures.sink);
    thrown = failures.take();
  }
  failures.routeTo(late);
  return thrown;
}

// --- The engine ----------------------------------------------------------------------------------------------------

/** What the caller said about a new task. */
export interface CreateOptions<T> {
  /** What an abort does to a task the caller holds no handle for. @default 'cancel' */
  onAbort?: 'cancel' | 'detach';
  pollIntervalMs?: number;
  idempotencyKey?: string;
  onTask?: (handle: TaskHandle<T>) => unknown;
  /** The call's other caller failures so far (`onProgress`): one is an abort like a throwing `onTask`. */
  failures?: CallFailures;
  /** Reads the task's result; @default the method's own parser. */
  parseResult?: (raw: Record<string, unknown>) => T;
}

/** Options of {@link TaskTracker.attach}. */
export interface AttachFacts {
  method?: string;
  /** Local start of the TTL (epoch ms), when known from a record. */
  localCreatedAt?: number;
  ttlMs?: number | null;
  answeredKeys?: Iterable<string>;
  pollIntervalMs?: number;
}

/** A followed task: its one handle, and how many callers await it now. */
interface Follower {
  readonly handle: TaskHandle<unknown>;
  waiters: number;
  /** Resolves once the handle may be handed out (its first record written). */
  readonly ready: Promise<void>;
  /**
   * The request that created the task, when this client created it (see `create`): its method and the
   * {@link creationFingerprint} of its request, compared only when the server gives the same id again (two fields,
   * no object: this is kept per idle task).
   */
  creationMethod?: string;
  creationFingerprint?: number;
  /** The task's lease in a shared store, while held. */
  lease?: FollowLease;
  /** The lease being taken: polls wait for it. */
  leasing?: Promise<void>;
  /** When the lease was last renewed (a fenced poll renews it too), epoch ms. */
  renewedAt?: number;
  /** A renewal is on its way. */
  renewing?: boolean;
}

/** The engine of one client. */
export class TaskTracker {
  /** The client's resolved options, by reference. */
  readonly config: EngineConfig;
  /** The client's events. */
  readonly events: EngineEvents;
  readonly #scheduler: PollScheduler;
  readonly #policy: PollIntervalPolicy;
  /** Told when a task starts and stops being followed (push notifications). */
  readonly #push: PushFollower | undefined;
  readonly #drivers = new WeakMap<EraBackend, TaskDriver>();
  readonly #drains = new WeakMap<TaskHandle<unknown>, () => Promise<void>>();
  /** The driver of each handle {@link create} made (a failed unified wait cancels through it). */
  readonly #created = new WeakMap<TaskHandle<unknown>, TaskDriver>();
  /** Record writers whose writes may still be queued (close() waits for them). */
  readonly #writers = new Map<() => Promise<void>, string>(); // each drain and its task's id
  /**
   * The follower registry: the one live handle of each task (by task id; the engine serves one server). A second
   * call, attach or resume that yields a followed task shares its handle, so the task is polled once per interval.
   */
  readonly #followers = new Map<string, Follower>();
  readonly #closing = new AbortController();
  /** The one timer renewing this engine's leases in a shared store, while any is held. */
  #renewing: ReturnType<typeof setInterval> | undefined;

  /**
   * @param config - the client's resolved options, kept by reference.
   * @param scheduler - the client's poll scheduler.
   * @param push - the push tracker, when push notifications are on.
   * @param events - where the engine's client events go.
   */
  constructor(
    config: EngineConfig,
    scheduler: PollScheduler,
    push: PushFollower | undefined,
    events: EngineEvents,
  ) {
    this.config = config;
    this.events = events;
    this.#scheduler = scheduler;
    this.#push = push;
    this.#policy = {
      defaultMs: config.polling.intervalMs,
      minMs: config.polling.minIntervalMs,
      maxMs: config.polling.maxIntervalMs,
    };
    allowManyListeners(this.#closing.signal); // every task delivering an answer or a cancel listens to it
  }

  /** True once {@link close} ran. */
  get closed(): boolean {
    return this.#closing.signal.aborted;
  }

  /** The driver of `backend`'s handles (one per backend): references to the configuration, the backend, the engine. */
  driverFor(backend: EraBackend): TaskDriver {
    let driver = this.#drivers.get(backend);
    if (!driver) {
      driver = {
        config: this.config,
        backend,
        policy: this.#policy,
        scheduler: this.#scheduler,
        updates: new UpdateSender(backend.ops, this.config.limits.maxConcurrentUpdates),
        signal: this.#closing.signal,
        events: this.events,
        poll: (taskId) => this.#poll(backend, taskId),
      };
      this.#drivers.set(backend, driver);
    }
    return driver;
  }

  /**
   * Takes a new task from a `CreateTaskResult`: records it (before anyone sees the handle), starts following it,
   * and, when the caller aborted while the creation was in flight, cancels or keeps it per `onAbort`.
   *
   * @throws {@link InvalidResponseError} (with `taskId` when the result still named one: that task was cancelled
   *   or recorded); the abort reason, carrying `taskId`, when the caller aborted; what a `'task'` listener or
   *   `onTask` threw, carrying `taskId` (handled like an abort: `onAbort` applies); {@link CancelDeliveryError}.
   */
  async create<T>(
    backend: EraBackend,
    method: string,
    params: Record<string, unknown>,
    created: Record<string, unknown>,
    options: CreateOptions<T>,
    abort?: { reason: unknown },
  ): Promise<TaskHandle<T>> {
    let task: DetailedTask;
    let terminal = false;
    try {
      task = parseCreateTaskResult(created, {
        onNested: () =>
          this.events.serverViolation(
            `${method}: CreateTaskResult nested under "task" (the specification makes it flat)`,
          ),
        onTerminal: () => (terminal = true),
      });
    } catch (error) {
      if (!(error instanceof TaskShapeError)) throw error;
      throw await orphanGuard(this.driverFor(backend), method, params, created, options.onAbort, error);
    }
    const followed = this.#followers.get(task.taskId);
    if (followed) {
      if (
        followed.creationFingerprint !== undefined &&
        followed.creationFingerprint !== creationFingerprint(method, params)
      ) {
        // One task id for two different creations: the server's word is that both calls are one task, but this
        // call's own work (other arguments) has no id to follow or cancel by, and the task's result answers the
        // other request. This call fails rather than return another request's result; the task is left to the
        // call that created it (cancelling it would cancel that call's work).
        const shown = printableExcerpt(task.taskId, 256);
        this.events.serverViolation(
          `${method}: the server gave task ${shown} to two different requests (one task id for two creations)`,
        );
        throw new InvalidResponseError(
          method,
          `the server gave task ${shown}, created by an earlier ${followed.creationMethod} with other parameters, to this request; its own work cannot be identified`,
          undefined,
          {
            taskId: task.taskId,
            taskIdEscaped: shown,
            taskCancel: { kind: 'not-sent', reason: 'id-in-use' },
          },
        );
      }
      // The server gave a task this client already follows (an idempotent re-send): one follower, shared, handed
      // out once its creator recorded it.
      await followed.ready;
      if (abort) throw (await this.afterAbort(followed.handle, options.onAbort, abort.reason)).error;
      return followed.handle as TaskHandle<T>;
    }
    const driver = this.driverFor(backend);
    const receivedAt = this.config.now();
    const name =
      typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
    const handle = new TaskHandle<T>(driver, {
      task,
      method,
      receivedAt,
      parseResult: options.parseResult ?? (parserFor(method) as (raw: Record<string, unknown>) => T),
      justCreated: true,
      pollIntervalMs: options.pollIntervalMs,
      firstPoll: terminal ? 'now' : 'after-interval',
      onAbort: options.onAbort,
      name,
      createdIn: creatingSpanOf(created),
    });
    backend.track(handle as TaskHandle<unknown>);
    this.#created.set(handle as TaskHandle<unknown>, driver);
    // Followed before any caller code runs: a throwing callback is an abort of the call, never an orphan. A second
    // call yielding the same task waits until its first record is written.
    let recorded = (): void => undefined;
    this.#follow(handle, new Promise<void>((resolve) => (recorded = resolve)));
    const follower = this.#followers.get(task.taskId);
    if (follower) {
      follower.creationMethod = method;
      follower.creationFingerprint = creationFingerprint(method, params);
    }
    const store = this.config.store;
    if (store) {
      const { _meta: _, ...plain } = params;
      const record = newRecord(task, receivedAt, handle.localCreatedAt, {
        server: this.config.transport.serverKey,
        method,
        name,
        params: this.config.redactParams(method, plain),
        idempotencyKey: options.idempotencyKey,
        traceparent: handle.traceparent,
      });
      await store
        .put(record)
        .catch((error: unknown) =>
          this.events.warning(`task store: could not write ${redactTaskId(task.taskId)}: ${String(error)}`),
        );
      this.#record(handle, record);
    }
    recorded(); // the task may be shared from here on
    // Caller code runs guarded: what fails now aborts the call here, what fails later (a rejection) goes to the handle.
    const late = (error: unknown, event: string): void => handle.listenerFailed(error, event);
    const thrown =
      options.failures?.take() ??
      runTaskCallbacks(
        handle,
        (h) => this.events.task(h as TaskHandle<unknown>),
        options.onTask,
        late,
        options.failures,
      );
    options.failures?.routeTo(late);
    handle.start();
    if (this.closed) handle.stopFollowing(new ClientClosedError()); // closed while the creation was on its way
    if (abort && thrown)
      this.events.warning(
        `${method}: a task callback threw for task ${redactTaskId(task.taskId)} after the call was aborted: ${String(thrown.error)}`,
      );
    if (abort ?? thrown)
      throw (
        await this.afterAbort(
          handle,
          options.onAbort,
          abort ? abort.reason : thrown?.error,
          abort ? 'abort' : 'callback',
        )
      ).error;
    return handle;
  }

  /**
   * What an abort does to a task whose caller holds no handle: `'cancel'` delivers `tasks/cancel` (then stops
   * following: the outcome stays the server's to report, the record resumable); `'detach'` leaves it running.
   *
   * A task another caller still awaits (a second call or attach that shares its follower) is not cancelled: this
   * caller's call rejects with the abort reason and the task goes on for the others; the last caller's abort (or an
   * explicit `cancel()`) cancels it.
   *
   * The caller waits at most `abortGraceMs` for the cancel's delivery; after that the call rejects with the abort
   * reason (carrying `taskId`) while `tasks/cancel` keeps being delivered in the background: if that finally fails,
   * a `warning` event names the task and its record stays resumable with `cancelRequested`.
   *
   * With `'detach'` the call rejects with {@link TaskDetachedError} (`cause`: the caller's abort reason, left as it
   * is); an error of ours (`ClientClosedError`, `RequestTimeoutError`) or what the call's own callback threw
   * (`from: 'callback'`) carries `taskId` instead.
   *
   * @returns the error the call rejects with (boxed: a caller's reason may be a thenable, which a promise must never
   *   resolve with): the abort reason carrying `taskId`, {@link TaskDetachedError}, or {@link CancelDeliveryError}.
   */
  async afterAbort(
    handle: TaskHandle<unknown>,
    policy: 'cancel' | 'detach' | undefined,
    reason: unknown,
    from: 'abort' | 'callback' = 'abort',
  ): Promise<Thrown> {
    if (policy === 'detach') {
      // The rejection names the task left running. A caller's abort reason is never written to (one reason may be
      // shared by many calls, each with a task of its own); our own errors (a close's ClientClosedError, a
      // maxTotalTimeoutMs RequestTimeoutError: one per call) and what this call's own callback threw carry `taskId`
      // themselves, unless they cannot (a frozen error, or one that already names another task).
      const own = from === 'callback' || isOwnAbortReason(reason);
      const tagged = own ? withTaskId(reason, handle.taskId) : undefined;
      return {
        error:
          (tagged as { taskId?: unknown } | null | undefined)?.taskId === handle.taskId
            ? tagged
            : new TaskDetachedError(handle.method, handle.taskId, handle.task, { cause: reason }),
      };
    }
    const tagged = withTaskId(reason, handle.taskId);
    if (this.#awaited(handle)) return { error: tagged };
    const cancelling = handle.cancel().then(
      (): Thrown => {
        handle.stopFollowing(new CancelNotConfirmedError(handle.taskId, handle.task, { cause: reason }));
        return { error: tagged };
      },
      (error: unknown): Thrown => {
        if (error instanceof CancelDeliveryError) error.abortReason = reason;
        handle.stopFollowing(error);
        // The cancel reached the server (its reply was no valid acknowledgement, a serverViolation event says so).
        return {
          error:
            error instanceof CancelNotConfirmedError
              ? tagged
              : isClosedReason(reason)
                ? closedWithCause(handle.taskId, error)
                : error,
        };
      },
    );
    // Abort latency: the caller waits at most abortGraceMs for the cancel; it is then delivered in the background.
    return boundedCancel(this, handle.taskId, cancelling, tagged);
  }

  /**
   * Waits for `handle`'s outcome; an abort acts per `policy` (see {@link afterAbort}), and so does a wait that
   * ended without the server's word (polls failed for good, an invalid `tasks/get`): the rejection then carries
   * `taskId`. Records are on disk first.
   */
  async waitFor<T>(
    handle: TaskHandle<T>,
    signal: AbortSignal | undefined,
    policy: 'cancel' | 'detach' | undefined,
  ): Promise<T> {
    const h = handle as TaskHandle<unknown>;
    const leave = this.#await(h);
    try {
      return await raceAbort(handle.result(), signal);
    } catch (error) {
      leave(); // this caller no longer waits: an abort cancels only when nobody else does
      if (signal?.aborted && error === signal.reason && !handle.done)
        throw (await this.afterAbort(h, policy, signal.reason)).error;
      throw await afterFollowFailure(this, this.#created.get(h), h, policy, error, () => this.drained(h));
    } finally {
      leave();
      await this.drained(handle as TaskHandle<unknown>);
    }
  }

  /**
   * Attaches to a task created elsewhere: one `tasks/get` now, then polling; recorded when a store is set.
   *
   * A task this client already follows is not attached again: its handle is shared (one follower per task). With
   * a store shared by several processes, the task's lease is taken first.
   *
   * @throws {@link TaskNotFoundError} / {@link TaskExpiredError} when the server does not know it (a stored
   *   record of it then keeps that verdict); {@link InvalidResponseError}; {@link TaskFollowedElsewhereError}
   *   (nothing sent) when another process sharing the store follows it.
   */
  async attach<T>(backend: EraBackend, taskId: string, facts: AttachFacts): Promise<TaskHandle<T>> {
    const followed = this.#followers.get(taskId);
    if (followed) return followed.handle as TaskHandle<T>; // already followed here: its polls serve this caller too
    const lease = await this.#acquire(taskId); // another process follows it: say which
    try {
      return await this.#attachLeased<T>(backend, taskId, facts, lease);
    } catch (error) {
      if (lease) await this.config.store?.leases?.release(lease).catch(() => undefined);
      throw error;
    }
  }

  async #attachLeased<T>(
    backend: EraBackend,
    taskId: string,
    facts: AttachFacts,
    lease: FollowLease | undefined,
  ): Promise<TaskHandle<T>> {
    const driver = this.driverFor(backend);
    const store = this.config.store;
    const stored = store
      ? await store.get(taskId, this.config.transport.serverKey).catch(() => undefined)
      : undefined;
    const method = facts.method ?? stored?.method ?? 'tools/call';
    let first: DetailedTask;
    try {
      const intervalMs = facts.pollIntervalMs ?? stored?.pollIntervalMs ?? this.#policy.defaultMs;
      first = parseDetailedTask(await this.#send(backend, taskId, lease, intervalMs));
    } catch (error) {
      if (error instanceof TaskShapeError)
        throw new InvalidResponseError('tasks/get', error.message, error.issues, { cause: error });
      if (!isLostTask(error)) throw error;
      const start = facts.localCreatedAt ?? stored?.localCreatedAt;
      const ttl = facts.ttlMs !== undefined ? facts.ttlMs : stored?.ttlMs;
      const lost = lostTaskError(
        {
          taskId,
          expiresAt: start !== undefined && ttl !== undefined ? expiresAt(start, ttl) : undefined,
          now: this.config.now(),
        },
        error,
      );
      if (stored && store)
        await store
          .put({
            ...stored,
            outcome: { status: lost.code === 'TASK_EXPIRED' ? 'expired' : 'unknown' },
            updatedAt: this.config.now(),
          })
          .catch(() => undefined);
      throw lost;
    }
    const raced = this.#followers.get(taskId);
    if (raced) {
      if (lease && raced.lease !== lease) await store?.leases?.release(lease).catch(() => undefined);
      return raced.handle as TaskHandle<T>; // another attach of the task finished first
    }
    const receivedAt = this.config.now();
    const handle = new TaskHandle<T>(driver, {
      task: first,
      method,
      receivedAt,
      ttlStartAt: facts.localCreatedAt,
      parseResult: parserFor(method) as (raw: Record<string, unknown>) => T,
      justCreated: false,
      answeredKeys: facts.answeredKeys ?? stored?.answeredKeys,
      cancelRequested: stored?.cancelRequested,
      pollIntervalMs: facts.pollIntervalMs,
      firstPoll: 'after-interval',
      name: stored?.name,
      firstSpan: stored?.traceparent,
    });
    backend.track(handle as TaskHandle<unknown>);
    if (store) {
      const record: TaskRecord = stored
        ? { ...stored, outcome: undefined }
        : newRecord(first, receivedAt, handle.localCreatedAt, {
            server: this.config.transport.serverKey,
            method,
            traceparent: handle.traceparent,
          });
      this.#record(handle, record);
    }
    this.#follow(handle, Promise.resolve(), lease).start();
    return handle;
  }

  /**
   * A handle for a stored task. With a stored outcome it starts settled and never polls; otherwise it polls at
   * once, so a lost task, a transient fault and a live task all take the normal path.
   */
  restore<T>(backend: EraBackend, record: TaskRecord): TaskHandle<T> {
    const followed = this.#followers.get(record.taskId);
    if (followed && !record.outcome) return followed.handle as TaskHandle<T>; // one follower per task
    const parse = parserFor(record.method) as (raw: Record<string, unknown>) => T;
    const status =
      record.status === 'input_required' || isTerminalStatus(record.status) ? 'working' : record.status;
    const task = {
      taskId: record.taskId,
      status,
      ttlMs: record.ttlMs,
      statusMessage: record.statusMessage,
      pollIntervalMs: record.pollIntervalMs,
    } as DetailedTask;
    const handle = new TaskHandle<T>(this.driverFor(backend), {
      task,
      method: record.method,
      receivedAt: record.receivedAt ?? record.localCreatedAt,
      ttlStartAt: record.localCreatedAt,
      parseResult: parse,
      justCreated: false,
      answeredKeys: record.answeredKeys,
      cancelRequested: record.cancelRequested,
      firstPoll: 'now',
      outcome: record.outcome ? settledFromRecord(record, parse) : undefined,
      name: record.name,
      firstSpan: record.traceparent,
    });
    if (!record.outcome) this.#record(this.#follow(handle), record);
    handle.start();
    return handle;
  }

  /** Resolves once every record write queued so far for `handle` (its outcome included, once known) is done. */
  async drained(handle: TaskHandle<unknown>): Promise<void> {
    await this.#drains.get(handle)?.();
  }

  /**
   * Stops following every task: each waiter rejects with {@link ClientClosedError}; records stay resumable. Resolves
   * once every queued record write has landed and every lease is released, or after {@link RECORD_FLUSH_WAIT_MS} when
   * the store does not answer (a `warning` names each task concerned).
   */
  async close(): Promise<void> {
    this.#closing.abort(new ClientClosedError());
    const followers = [...this.#followers.values()];
    for (const { handle } of followers)
      handle.stopFollowing(withTaskId(new ClientClosedError(), handle.taskId)); // one each
    this.#followers.clear();
    if (this.#renewing !== undefined) clearInterval(this.#renewing);
    this.#renewing = undefined;
    // The holder's last writes land first, then the leases go back: both within RECORD_FLUSH_WAIT_MS (the bound
    // `result()` has too), so a store that never answers does not hold close() forever.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, RECORD_FLUSH_WAIT_MS)));
    const writing = new Map(this.#writers);
    await Promise.race([
      Promise.all([...writing.keys()].map((drain) => drain().then(() => void writing.delete(drain)))),
      timeUp,
    ]);
    const releasing = new Set(followers.filter((f) => f.lease));
    await Promise.race([
      Promise.all(followers.map((f) => this.#release(f).then(() => void releasing.delete(f)))),
      timeUp,
    ]);
    clearTimeout(timer);
    // Never silent: a record that may be stale, a lease that keeps other processes off the task until it runs out.
    for (const taskId of writing.values())
      this.events.warning(
        `close(): the store has not finished writing the record of task ${redactTaskId(taskId)} after ${RECORD_FLUSH_WAIT_MS} ms; it may be stale`,
      );
    for (const { handle } of releasing)
      this.events.warning(
        `close(): the store has not released the lease of task ${redactTaskId(handle.taskId)} after ${RECORD_FLUSH_WAIT_MS} ms; other processes may follow it once the lease runs out`,
      );
  }

  /**
   * Registers `handle` as its task's one follower until it settles. Its polls wait for the task's lease in a shared
   * store (taken here unless `lease` is already held; a store out of reach is asked again until it answers, so a
   * task is never polled without its lease); `ready` resolves once it may be shared. The lease is released once the
   * task's last record write landed.
   */
  #follow<T>(
    handle: TaskHandle<T>,
    ready: Promise<void> = Promise.resolve(),
    lease?: FollowLease,
  ): TaskHandle<T> {
    const key = handle.taskId;
    // Every field in the literal (the creation's ones too, set later for a created task): one object shape, all
    // fields in the object, nothing allocated beside it (this is kept per idle task).
    const follower: Follower = {
      handle: handle as TaskHandle<unknown>,
      waiters: 0,
      ready,
      lease,
      creationMethod: undefined,
      creationFingerprint: undefined,
    };
    this.#followers.set(key, follower);
    const leases = this.config.store?.leases;
    if (lease) this.#held(follower, leases);
    else if (leases) {
      const leasing = this.#acquireFor(follower, leases).then((taken) => {
        if (follower.leasing === leasing) follower.leasing = undefined;
        follower.lease = taken;
        if (this.#followers.get(key) !== follower || this.closed) void this.#release(follower);
        else this.#held(follower, leases);
      });
      leasing.catch(() => undefined); // reported by the poll that waits for it
      follower.leasing = leasing;
    }
    this.#push?.follow(handle);
    const forget = (): void => {
      this.#push?.unfollow(handle.taskId);
      if (this.#followers.get(key) === follower) this.#followers.delete(key);
      void this.drained(follower.handle).then(() => this.#release(follower));
    };
    handle.whenSettled(forget);
    return handle;
  }

  /**
   * One `tasks/get` of a followed task: it waits for the task's lease in a shared store (refused with
   * {@link TaskFollowedElsewhereError} when another process holds it), then passes the store's poll fence, if any.
   * A refusal sends nothing.
   */
  #poll(backend: EraBackend, taskId: string): Promise<Record<string, unknown>> {
    const follower = this.#followers.get(taskId);
    const leasing = follower?.leasing;
    if (leasing) return leasing.then(() => this.#poll(backend, taskId)); // the lease first (then it is cleared)
    return this.#send(backend, taskId, follower?.lease, follower?.handle.pollIntervalMs ?? 0, follower);
  }

  /**
   * Sends one `tasks/get`, fenced by the store ({@link TaskLeases.beforePoll}) when `lease` is held there: the
   * store's check runs right before the request is written. Unfenced, the request goes out synchronously (no extra
   * hop).
   */
  #send(
    backend: EraBackend,
    taskId: string,
    lease: FollowLease | undefined,
    intervalMs: number,
    follower?: Follower,
  ): Promise<Record<string, unknown>> {
    const leases = this.config.store?.leases;
    if (!lease || !leases?.beforePoll) return backend.ops.getTask(taskId);
    return leases.beforePoll(lease, intervalMs).then((writeCheck) => {
      if (follower) follower.renewedAt = this.config.now(); // a fenced poll renews the lease
      return backend.ops.getTask(taskId, writeCheck);
    });
  }

  /**
   * Takes the task's lease in the shared store, when the store has leases.
   * @throws {@link TaskFollowedElsewhereError} naming the holder; the store's error when it fails.
   */
  async #acquire(taskId: string): Promise<FollowLease | undefined> {
    const leases = this.config.store?.leases;
    if (!leases) return undefined;
    const attempt = await leases.acquire(this.config.transport.serverKey, taskId);
    if ('lease' in attempt) return attempt.lease;
    throw new TaskFollowedElsewhereError(taskId, attempt.holder, attempt.expiresAt);
  }

  /**
   * Takes a follower's lease, asking again while the store is out of reach (a `warning` each time): its polls wait,
   * so the task is polled by nobody until it is leased. A task whose first record write failed meanwhile is recorded
   * once its lease is held.
   * @throws {@link TaskFollowedElsewhereError}; {@link ClientClosedError} when the client closes meanwhile; the
   *   store's error once the task settled.
   */
  async #acquireFor(follower: Follower, leases: TaskLeases): Promise<FollowLease | undefined> {
    const { handle } = follower;
    const retryMs = Math.min(1_000, Math.max(50, Math.floor(leases.leaseMs / 8)));
    for (let failed = false; ; failed = true) {
      try {
        const lease = await this.#acquire(handle.taskId);
        if (failed && lease) await this.#recordMissing(handle);
        return lease;
      } catch (error) {
        if (error instanceof TaskFollowedElsewhereError || handle.done) throw error;
        this.events.warning(
          `task store: could not take the lease of ${redactTaskId(handle.taskId)} (it is not polled until then): ${String(error)}`,
        );
        await delay(retryMs, this.#closing.signal);
      }
    }
  }

  /** Writes the record of a followed task the store does not have (its first write failed). */
  async #recordMissing(handle: TaskHandle<unknown>): Promise<void> {
    const store = this.config.store;
    const server = this.config.transport.serverKey;
    if (!store || (await store.get(handle.taskId, server).catch(() => undefined))) return;
    const record = newRecord(handle.task, this.config.now(), handle.localCreatedAt, {
      server,
      method: handle.method,
    });
    await store
      .put(record)
      .catch((e: unknown) =>
        this.events.warning(`task store: could not write ${redactTaskId(handle.taskId)}: ${String(e)}`),
      );
  }

  /** Gives a follower's lease back (once). */
  async #release(follower: Follower): Promise<void> {
    const lease = follower.lease;
    follower.lease = undefined;
    if (lease) await this.config.store?.leases?.release(lease).catch(() => undefined);
  }

  /** Notes a lease just taken, and keeps it renewed. */
  #held(follower: Follower, leases: TaskLeases | undefined): void {
    follower.renewedAt = this.config.now();
    this.#renewLeases(leases);
  }

  /**
   * Keeps every held lease while any is held (one timer for the engine, every eighth of the lease period): a lease no
   * poll or renewal extended for a third of the period is renewed; one found taken by another process stops its
   * follower with {@link TaskFollowedElsewhereError}; one past its `expiresAt` without renewal (the store out of
   * reach, a paused process) stops its follower with {@link LeaseLostError}: another process may follow it now.
   */
  #renewLeases(leases: TaskLeases | undefined): void {
    if (!leases || this.#renewing !== undefined || this.closed) return;
    const round = (): void => {
      const held = [...this.#followers.values()].filter((f) => f.lease);
      if (held.length === 0) {
        clearInterval(this.#renewing);
        this.#renewing = undefined;
        return;
      }
      const now = this.config.now();
      for (const follower of held) {
        const lease = follower.lease;
        if (!lease) continue;
        if (now >= lease.expiresAt) {
          void this.#release(follower);
          follower.handle.stopFollowing(new LeaseLostError(lease.taskId, 'expired'));
        } else if (!follower.renewing && now - (follower.renewedAt ?? 0) >= leases.leaseMs / 3)
          void this.#renew(follower, lease, leases);
      }
    };
    this.#renewing = setInterval(round, Math.max(20, Math.floor(leases.leaseMs / 8)));
    (this.#renewing as { unref?: () => void }).unref?.();
  }

  async #renew(follower: Follower, lease: FollowLease, leases: TaskLeases): Promise<void> {
    follower.renewing = true;
    const sentAt = this.config.now();
    const kept = await leases.renew(lease).catch((error: unknown) => {
      this.events.warning(
        `task store: could not renew the lease of ${redactTaskId(lease.taskId)}: ${String(error)}`,
      );
      return undefined; // kept until it expires; the next round tries again
    });
    follower.renewing = false;
    if (kept) follower.renewedAt = sentAt;
    else if (kept === false && follower.lease === lease) {
      follower.lease = undefined;
      follower.handle.stopFollowing(
        new TaskFollowedElsewhereError(lease.taskId, 'another process', lease.expiresAt),
      );
    }
  }

  /** Counts a caller awaiting `handle`; the returned function (idempotent) says it no longer does. */
  #await(handle: TaskHandle<unknown>): () => void {
    const follower = this.#followers.get(handle.taskId);
    if (follower?.handle !== handle) return () => undefined;
    follower.waiters++;
    let waiting = true;
    return () => {
      if (waiting) follower.waiters--;
      waiting = false;
    };
  }

  /** True while some caller still awaits `handle` (its follower is shared). */
  #awaited(handle: TaskHandle<unknown>): boolean {
    const follower = this.#followers.get(handle.taskId);
    return follower?.handle === handle && follower.waiters > 0;
  }

  #record(handle: TaskHandle<unknown>, record: TaskRecord): void {
    const store = this.config.store;
    if (!store) return;
    const drain = recordHandle(store, handle, record, this.config.now, (error) =>
      this.events.warning(`task store: ${String(error)}`),
    );
    this.#drains.set(handle, drain);
    if (store.queuedAnswers)
      feedQueuedAnswers(store.queuedAnswers, handle, record.server, (error) =>
        this.events.warning(`queued answer: ${String(error)}`),
      );
    this.#writers.set(drain, handle.taskId);
    const done = (): void => void drain().then(() => this.#writers.delete(drain));
    handle.whenSettled(done);
  }
}
