/**
 * The task engine: the one owner of a task's life. It creates handles for new tasks (recording them first),
 * attaches to tasks created elsewhere, restores stored ones, keeps the live set, decides what an abort does to a
 * task the caller holds no handle for, and is the one writer of task records.
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
} from '../errors.js';
import { raceAbort, withTaskId } from '../internal/race-abort.js';
import {
  isTerminalStatus,
  parseCreateTaskResult,
  parseDetailedTask,
  TaskShapeError,
  type DetailedTask,
} from '../protocol/tasks.js';
import type { TaskRecord } from '../store/task-record.js';
import type { EraBackend } from './backend.js';
import { expiresAt } from './expiry.js';
import { afterFollowFailure, boundedCancel, closedWithCause } from './follow-failure.js';
import { isLostTask, lostTaskError } from './lost-task.js';
import { parserFor } from './result-parsers.js';
import { settledFromRecord } from './stored-outcome.js';
import { runTaskCallbacks, type CallFailures } from './task-callbacks.js';
import { TaskHandle } from './task-handle.js';
import { newRecord, recordHandle } from './task-recorder.js';
import { orphanGuard, type TrackerContext } from './tracker-context.js';
import type { TaskDriver } from './task-driver.js';
import { buildDriver } from './driver-factory.js';

export type { TrackerContext } from './tracker-context.js';

/** What the caller said about a new task. */
export interface CreateOptions<T> {
  /** What an abort does to a task the caller holds no handle for. @default 'cancel' */
  onAbort?: 'cancel' | 'detach';
  pollIntervalMs?: number;
  idempotencyKey?: string;
  onTask?: (handle: TaskHandle<T>) => unknown;
  /** The call's other caller failures so far (`onProgress`): one is an abort like a throwing `onTask`. */
  failures?: CallFailures;
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

/** The engine of one client. */
export class TaskTracker {
  readonly #ctx: TrackerContext;
  readonly #drivers = new WeakMap<EraBackend, TaskDriver>();
  readonly #drains = new WeakMap<TaskHandle<unknown>, () => Promise<void>>();
  /** The driver of each handle {@link create} made (a failed unified wait cancels through it). */
  readonly #created = new WeakMap<TaskHandle<unknown>, TaskDriver>();
  /** Record writers whose writes may still be queued (close() waits for them). */
  readonly #writers = new Set<() => Promise<void>>();
  readonly #live = new Set<TaskHandle<unknown>>();
  readonly #closing = new AbortController();

  constructor(context: TrackerContext) {
    this.#ctx = context;
  }

  /** True once {@link close} ran. */
  get closed(): boolean {
    return this.#closing.signal.aborted;
  }

  /** The driver of `backend`'s handles (one per backend). */
  driverFor(backend: EraBackend): TaskDriver {
    let driver = this.#drivers.get(backend);
    if (!driver) {
      driver = buildDriver(backend, this.#ctx, this.#closing.signal);
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
          this.#ctx.emit.serverViolation(
            `${method}: CreateTaskResult nested under "task" (the specification makes it flat)`,
          ),
        onTerminal: () => (terminal = true),
      });
    } catch (error) {
      if (!(error instanceof TaskShapeError)) throw error;
      throw await orphanGuard(
        this.#ctx,
        this.driverFor(backend),
        method,
        params,
        created,
        options.onAbort,
        error,
      );
    }
    const driver = this.driverFor(backend);
    const receivedAt = this.#ctx.now();
    const handle = new TaskHandle<T>(driver, {
      task,
      method,
      receivedAt,
      parseResult: parserFor(method) as (raw: Record<string, unknown>) => T,
      justCreated: true,
      pollIntervalMs: options.pollIntervalMs,
      firstPoll: terminal ? 'now' : 'after-interval',
      onAbort: options.onAbort,
    });
    backend.track(handle as TaskHandle<unknown>);
    this.#created.set(handle as TaskHandle<unknown>, driver);
    handle.on('serverViolation', (detail) => this.#ctx.emit.serverViolation(detail));
    const store = this.#ctx.store;
    if (store) {
      const { _meta: _, ...plain } = params;
      const name =
        typeof params.name === 'string'
          ? params.name
          : typeof params.uri === 'string'
            ? params.uri
            : undefined;
      const record = newRecord(task, receivedAt, handle.localCreatedAt, {
        server: driver.serverKey,
        method,
        name,
        params: this.#ctx.redactParams(method, plain),
        idempotencyKey: options.idempotencyKey,
      });
      await store
        .put(record)
        .catch((error: unknown) =>
          this.#ctx.emit.warning(
            `task store: could not write ${redactTaskId(task.taskId)}: ${String(error)}`,
          ),
        );
      this.#record(handle, record);
    }
    // Followed before any caller code runs: a throwing callback is an abort of the call, never an orphan.
    this.#follow(handle);
    // Caller code runs guarded: what fails now aborts the call here, what fails later (a rejection) goes to the handle.
    const late = (error: unknown, event: string): void => handle.listenerFailed(error, event);
    const thrown =
      options.failures?.take() ??
      runTaskCallbacks(
        handle,
        (h) => this.#ctx.emit.task(h as TaskHandle<unknown>),
        options.onTask,
        late,
        options.failures,
      );
    options.failures?.routeTo(late);
    handle.start();
    if (this.closed) handle.stopFollowing(new ClientClosedError()); // closed while the creation was on its way
    if (abort && thrown)
      this.#ctx.emit.warning(
        `${method}: a task callback threw for task ${redactTaskId(task.taskId)} after the call was aborted: ${String(thrown.error)}`,
      );
    if (abort ?? thrown)
      throw await this.afterAbort(handle, options.onAbort, abort ? abort.reason : thrown?.error);
    return handle;
  }

  /**
   * What an abort does to a task whose caller holds no handle: `'cancel'` delivers `tasks/cancel` (then stops
   * following: the outcome stays the server's to report, the record resumable); `'detach'` leaves it running.
   *
   * The caller waits at most `abortGraceMs` for the cancel's delivery; after that the call rejects with the abort
   * reason (carrying `taskId`) while `tasks/cancel` keeps being delivered in the background: if that finally fails,
   * a `warning` event names the task and its record stays resumable with `cancelRequested`.
   *
   * @returns the error the call rejects with: the abort reason carrying `taskId`, or {@link CancelDeliveryError}.
   */
  async afterAbort(
    handle: TaskHandle<unknown>,
    policy: 'cancel' | 'detach' | undefined,
    reason: unknown,
  ): Promise<unknown> {
    const tagged = withTaskId(reason, handle.taskId);
    if (policy === 'detach') return tagged;
    const cancelling = handle.cancel().then(
      () => {
        handle.stopFollowing(new CancelNotConfirmedError(handle.taskId, handle.task, { cause: reason }));
        return tagged;
      },
      (error: unknown) => {
        if (error instanceof CancelDeliveryError) error.abortReason = reason;
        handle.stopFollowing(error);
        // The cancel reached the server (its reply was no valid acknowledgement, a serverViolation event says so).
        return error instanceof CancelNotConfirmedError
          ? tagged
          : reason instanceof ClientClosedError
            ? closedWithCause(handle.taskId, error)
            : error;
      },
    );
    // Abort latency: the caller waits at most abortGraceMs for the cancel; it is then delivered in the background.
    return boundedCancel(this.#ctx, handle.taskId, cancelling, tagged);
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
    try {
      return await raceAbort(handle.result(), signal);
    } catch (error) {
      if (signal?.aborted && error === signal.reason && !handle.done)
        throw await this.afterAbort(h, policy, signal.reason);
      throw await afterFollowFailure(this.#ctx, this.#created.get(h), h, policy, error, () =>
        this.drained(h),
      );
    } finally {
      await this.drained(handle as TaskHandle<unknown>);
    }
  }

  /**
   * Attaches to a task created elsewhere: one `tasks/get` now, then polling; recorded when a store is set.
   *
   * @throws {@link TaskNotFoundError} / {@link TaskExpiredError} when the server does not know it (a stored
   *   record of it then keeps that verdict); {@link InvalidResponseError}.
   */
  async attach<T>(backend: EraBackend, taskId: string, facts: AttachFacts): Promise<TaskHandle<T>> {
    const driver = this.driverFor(backend);
    const store = this.#ctx.store;
    const stored = store ? await store.get(taskId, driver.serverKey).catch(() => undefined) : undefined;
    const method = facts.method ?? stored?.method ?? 'tools/call';
    let first: DetailedTask;
    try {
      first = parseDetailedTask(await driver.getTask(taskId));
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
          now: this.#ctx.now(),
        },
        error,
      );
      if (stored && store)
        await store
          .put({
            ...stored,
            outcome: { status: lost.code === 'TASK_EXPIRED' ? 'expired' : 'unknown' },
            updatedAt: this.#ctx.now(),
          })
          .catch(() => undefined);
      throw lost;
    }
    const receivedAt = this.#ctx.now();
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
    });
    backend.track(handle as TaskHandle<unknown>);
    if (store) {
      const record: TaskRecord = stored
        ? { ...stored, outcome: undefined }
        : newRecord(first, receivedAt, handle.localCreatedAt, { server: driver.serverKey, method });
      this.#record(handle, record);
    }
    this.#follow(handle).start();
    return handle;
  }

  /**
   * A handle for a stored task. With a stored outcome it starts settled and never polls; otherwise it polls at
   * once, so a lost task, a transient fault and a live task all take the normal path.
   */
  restore<T>(backend: EraBackend, record: TaskRecord): TaskHandle<T> {
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
   * once every queued record write has landed.
   */
  async close(): Promise<void> {
    this.#closing.abort(new ClientClosedError());
    for (const handle of this.#live) handle.stopFollowing(withTaskId(new ClientClosedError(), handle.taskId)); // one each
    this.#live.clear();
    await Promise.all([...this.#writers].map((drain) => drain()));
  }

  #follow<T>(handle: TaskHandle<T>): TaskHandle<T> {
    this.#live.add(handle as TaskHandle<unknown>);
    this.#ctx.push?.follow(handle);
    const forget = (): boolean => {
      this.#ctx.push?.unfollow(handle.taskId);
      return this.#live.delete(handle as TaskHandle<unknown>);
    };
    handle.settled().then(forget, forget);
    return handle;
  }

  #record(handle: TaskHandle<unknown>, record: TaskRecord): void {
    const store = this.#ctx.store;
    if (!store) return;
    const drain = recordHandle(store, handle, record, this.#ctx.now, (error) =>
      this.#ctx.emit.warning(`task store: ${String(error)}`),
    );
    this.#drains.set(handle, drain);
    if (store.queuedAnswers)
      feedQueuedAnswers(store.queuedAnswers, handle, record.server, (error) =>
        this.#ctx.emit.warning(`queued answer: ${String(error)}`),
      );
    this.#writers.add(drain);
    const done = (): void => void drain().then(() => this.#writers.delete(drain));
    handle.settled().then(done, done);
  }
}
