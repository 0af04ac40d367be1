/**
 * The task engine: the one owner of a task's life. It creates handles for new tasks (recording them first),
 * attaches to tasks created elsewhere, restores stored ones, keeps the live set, decides what an abort does to a
 * task the caller holds no handle for, and is the one writer of task records.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md)
 *
 * @module
 */
import {
  CancelDeliveryError,
  CancelNotConfirmedError,
  ClientClosedError,
  InvalidResponseError,
  redactTaskId,
  TaskFollowedElsewhereError,
} from '../errors.js';
import { allowManyListeners } from '../internal/abort.js';
import { raceAbort, withTaskId } from '../internal/race-abort.js';
import {
  isTerminalStatus,
  parseCreateTaskResult,
  parseDetailedTask,
  TaskShapeError,
  type DetailedTask,
} from '../protocol/tasks.js';
import type { TaskRecord } from '../store/task-record.js';
import type { FollowLease } from '../store/task-store.js';
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
import type { PollGate, TaskDriver } from './task-driver.js';
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

/** A followed task: its one handle, and how many callers await it now. */
interface Follower {
  readonly handle: TaskHandle<unknown>;
  waiters: number;
  /** Resolves once the handle may be handed out (its first record written). */
  readonly ready: Promise<void>;
  /** The task's lease in a shared store, while held. */
  lease?: FollowLease;
  /** The lease being taken: polls wait for it. */
  leasing?: Promise<void>;
}

/** The registry key of a task: a task id is unique on its server only. */
function followerKey(server: string, taskId: string): string {
  return `${server}\n${taskId}`;
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
  /**
   * The follower registry: the one live handle of each task on each server (key: server, task id). A second call,
   * attach or resume that yields a followed task shares its handle, so the task is polled once per interval.
   */
  readonly #followers = new Map<string, Follower>();
  readonly #closing = new AbortController();
  #gate: PollGate | undefined;
  #renewing: ReturnType<typeof setInterval> | undefined;

  constructor(context: TrackerContext) {
    this.#ctx = context;
    allowManyListeners(this.#closing.signal); // every task delivering an answer or a cancel listens to it
  }

  /**
   * @internal The poll gate every `tasks/get` of this engine passes (see {@link PollGate}); a fleet worker sets it.
   */
  setPollGate(gate: PollGate | undefined): void {
    this.#gate = gate;
  }

  /** True once {@link close} ran. */
  get closed(): boolean {
    return this.#closing.signal.aborted;
  }

  /** The driver of `backend`'s handles (one per backend). */
  driverFor(backend: EraBackend): TaskDriver {
    let driver = this.#drivers.get(backend);
    if (!driver) {
      const server = this.#ctx.serverKey;
      driver = buildDriver(backend, this.#ctx, this.#closing.signal, (id) => this.#gatePoll(server, id));
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
    const followed = this.#followers.get(followerKey(driver.serverKey, task.taskId));
    if (followed) {
      // The server gave a task this client already follows (an idempotent re-send): one follower, shared, handed
      // out once its creator recorded it.
      await followed.ready;
      if (abort) throw await this.afterAbort(followed.handle, options.onAbort, abort.reason);
      return followed.handle as TaskHandle<T>;
    }
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
    let recorded = (): void => undefined;
    this.#follow(handle, new Promise<void>((resolve) => (recorded = resolve)));
    handle.on('serverViolation', (detail) => this.#ctx.emit.serverViolation(detail));
    try {
      await this.#recordCreated(handle, task, method, params, receivedAt, options.idempotencyKey);
    } finally {
      recorded(); // the task may be shared from here on
    }
    // Followed (above) before any caller code runs: a throwing callback is an abort of the call, never an orphan.
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
   * A task another caller still awaits (a second call or attach that shares its follower) is not cancelled: this
   * caller's call rejects with the abort reason and the task goes on for the others; the last caller's abort (or an
   * explicit `cancel()`) cancels it.
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
    if (policy === 'detach' || this.#awaited(handle)) return tagged;
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
    const leave = this.#await(h);
    try {
      return await raceAbort(handle.result(), signal);
    } catch (error) {
      leave();
      if (signal?.aborted && error === signal.reason && !handle.done)
        throw await this.afterAbort(h, policy, signal.reason);
      throw await afterFollowFailure(this.#ctx, this.#created.get(h), h, policy, error, () =>
        this.drained(h),
      );
    } finally {
      leave();
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
    const followed = this.#followers.get(followerKey(driver.serverKey, taskId));
    if (followed) return followed.handle as TaskHandle<T>; // already followed here: its polls serve this caller too
    const lease = await this.#acquire(driver.serverKey, taskId); // another process follows it: say which
    try {
      return await this.#attachLeased<T>(backend, driver, taskId, facts, lease);
    } catch (error) {
      if (lease) await this.#ctx.store?.leases?.release(lease).catch(() => undefined);
      throw error;
    }
  }

  async #attachLeased<T>(
    backend: EraBackend,
    driver: TaskDriver,
    taskId: string,
    facts: AttachFacts,
    lease: FollowLease | undefined,
  ): Promise<TaskHandle<T>> {
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
    const raced = this.#followers.get(followerKey(driver.serverKey, taskId));
    if (raced) {
      if (lease) await store?.leases?.release(lease).catch(() => undefined);
      return raced.handle as TaskHandle<T>; // another attach of the task finished first
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
    this.#follow(handle, Promise.resolve(), lease).start();
    return handle;
  }

  /**
   * A handle for a stored task. With a stored outcome it starts settled and never polls; otherwise it polls at
   * once, so a lost task, a transient fault and a live task all take the normal path.
   */
  restore<T>(backend: EraBackend, record: TaskRecord): TaskHandle<T> {
    const followed = this.#followers.get(followerKey(record.server, record.taskId));
    if (followed && !record.outcome) return followed.handle as TaskHandle<T>;
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
    const followers = [...this.#followers.values()];
    for (const { handle } of followers)
      handle.stopFollowing(withTaskId(new ClientClosedError(), handle.taskId)); // one each
    this.#followers.clear();
    if (this.#renewing !== undefined) clearInterval(this.#renewing);
    await Promise.all([
      ...[...this.#writers].map((drain) => drain()),
      ...followers.map((f) => this.#release(f)),
    ]);
  }

  #follow<T>(
    handle: TaskHandle<T>,
    ready: Promise<void> = Promise.resolve(),
    lease?: FollowLease,
  ): TaskHandle<T> {
    const key = followerKey(handle.serverKey, handle.taskId);
    const follower: Follower = { handle: handle as TaskHandle<unknown>, waiters: 0, ready, lease };
    this.#followers.set(key, follower);
    if (lease) this.#renewLeases();
    else if (this.#ctx.store?.leases) {
      // Polls wait for the task's lease in the shared store: one follower across the processes sharing it.
      const leasing = this.#acquire(handle.serverKey, handle.taskId).then((taken) => {
        follower.lease = taken;
        if (follower.leasing === leasing) follower.leasing = undefined;
        if (this.#followers.get(key) !== follower || this.closed) void this.#release(follower);
        else this.#renewLeases();
      });
      leasing.catch(() => undefined); // reported by the poll that waits for it
      follower.leasing = leasing;
    }
    this.#ctx.push?.follow(handle);
    const forget = (): void => {
      this.#ctx.push?.unfollow(handle.taskId);
      if (this.#followers.get(key) === follower) this.#followers.delete(key);
      void this.#release(follower);
    };
    handle.result().then(forget, forget);
    return handle;
  }

  /**
   * The engine's poll gate: a task's poll waits for its lease in the shared store (refused with
   * {@link TaskFollowedElsewhereError} when another process holds it), then passes the fleet's gate, if any.
   */
  #gatePoll(server: string, taskId: string): ReturnType<PollGate> {
    const leasing = this.#followers.get(followerKey(server, taskId))?.leasing;
    if (!leasing) return this.#gate?.(taskId);
    return leasing.then(() => this.#gate?.(taskId));
  }

  /**
   * Takes the task's lease in the shared store, when the store has leases.
   * @throws {@link TaskFollowedElsewhereError} naming the holder; the store's error when it fails.
   */
  async #acquire(server: string, taskId: string): Promise<FollowLease | undefined> {
    const leases = this.#ctx.store?.leases;
    if (!leases) return undefined;
    const attempt = await leases.acquire(server, taskId);
    if ('lease' in attempt) return attempt.lease;
    throw new TaskFollowedElsewhereError(taskId, attempt.holder, attempt.expiresAt);
  }

  /** Gives a follower's lease back (once). */
  async #release(follower: Follower): Promise<void> {
    const lease = follower.lease;
    follower.lease = undefined;
    if (lease) await this.#ctx.store?.leases?.release(lease).catch(() => undefined);
  }

  /**
   * Renews every held lease each third of the lease period while any is held (one timer for the engine); a lease
   * found taken by another process stops its follower with {@link TaskFollowedElsewhereError}.
   */
  #renewLeases(): void {
    const leases = this.#ctx.store?.leases;
    if (!leases || this.#renewing !== undefined) return;
    const renewAll = async (): Promise<void> => {
      const held = [...this.#followers.values()].filter((f) => f.lease);
      if (held.length === 0) {
        clearInterval(this.#renewing);
        this.#renewing = undefined;
        return;
      }
      for (const follower of held) {
        const lease = follower.lease;
        if (!lease) continue;
        const kept = await leases.renew(lease).catch((error: unknown) => {
          this.#ctx.emit.warning(
            `task store: could not renew the lease of ${redactTaskId(lease.taskId)}: ${String(error)}`,
          );
          return true; // kept until it expires; the next round tries again
        });
        if (!kept && follower.lease === lease) {
          follower.lease = undefined;
          follower.handle.stopFollowing(
            new TaskFollowedElsewhereError(lease.taskId, 'another process', lease.expiresAt),
          );
        }
      }
    };
    this.#renewing = setInterval(() => void renewAll(), Math.max(50, Math.floor(leases.leaseMs / 3)));
    (this.#renewing as { unref?: () => void }).unref?.();
  }

  /** Counts a caller awaiting `handle`; the returned function (idempotent) says it no longer does. */
  #await(handle: TaskHandle<unknown>): () => void {
    const follower = this.#followers.get(followerKey(handle.serverKey, handle.taskId));
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
    const follower = this.#followers.get(followerKey(handle.serverKey, handle.taskId));
    return follower?.handle === handle && follower.waiters > 0;
  }

  /** Writes the first record of a task this client created (a failed write is a `warning`), then records its changes. */
  async #recordCreated(
    handle: TaskHandle<unknown>,
    task: DetailedTask,
    method: string,
    params: Record<string, unknown>,
    receivedAt: number,
    idempotencyKey: string | undefined,
  ): Promise<void> {
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
        server: handle.serverKey,
        method,
        name,
        params: this.#ctx.redactParams(method, plain),
        idempotencyKey: idempotencyKey,
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
  }

  #record(handle: TaskHandle<unknown>, record: TaskRecord): void {
    const store = this.#ctx.store;
    if (!store) return;
    const drain = recordHandle(store, handle, record, this.#ctx.now, (error) =>
      this.#ctx.emit.warning(`task store: ${String(error)}`),
    );
    this.#drains.set(handle, drain);
    this.#writers.add(drain);
    const done = (): void => void drain().then(() => this.#writers.delete(drain));
    handle.result().then(done, done);
  }
}
