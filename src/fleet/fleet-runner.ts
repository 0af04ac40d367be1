/**
 * The fleet engine of one worker: claims due tasks from the shared store, follows each through the client (one
 * `tasks/get` per poll interval), renews its leases, records outcomes (which releases them), takes over tasks whose
 * lease ran out, and bridges questions and answers across the fleet.
 *
 * @module
 */
import { EventEmitter } from 'eventemitter3';
import { delay } from '../internal/abort.js';
import { durationError } from '../internal/duration.js';
import { TaskExpiredError, TaskNotFoundError } from '../errors.js';
import { newRecord, outcomeOf } from '../tasks/task-recorder.js';
import { LeaseLostError } from '../store/redis/errors.js';
import type { TaskRecord } from '../store/task-record.js';
import { FleetQuestions, type FleetQuestion } from './fleet-questions.js';
import { QuestionFeed } from './question-feed.js';
import type { FleetClaim, FleetHost, FleetTask } from './fleet-host.js';
import { startOnce, type FleetStart, type FleetStartOptions } from './fleet-start.js';
import { fenceSend, type Held } from './poll-fence.js';

/** Most tasks claimed in one round trip. */
const CLAIM_BATCH = 100;

/** Options of `client.runFleet()`. */
export interface FleetOptions {
  /** Claim and follow tasks; `false` only listens to the fleet's questions and outcomes (a UI process). @default true */
  claim?: boolean;
  /** How often to look for due or orphaned tasks, ms. Keep it at most one poll interval. @default 1000 */
  claimIntervalMs?: number;
  /** Most tasks this worker follows at once. @default 1000 */
  maxTasks?: number;
}

/** A claim this worker made. */
export interface FleetClaimEvent {
  taskId: string;
  fence: number;
  /** The worker whose lease ran out, when this claim took the task over. */
  previousOwner?: string;
  /** For a takeover: ms between the end of the previous lease and this claim (Redis clock). */
  lateMs?: number;
}

/** Events of a {@link FleetRunner}. */
export interface FleetEvents {
  /** A question of a fleet task (on the lease holder and on every worker that runs the fleet). */
  inputRequired: [question: FleetQuestion];
  /** This worker claimed a task (new, released, or taken over from a dead worker). */
  claimed: [claim: FleetClaimEvent];
  /** A task's outcome was recorded in the store (by any worker). */
  outcome: [detail: { taskId: string; server: string }];
  /** This worker stopped following a task because its lease is gone (another worker follows it). */
  leaseLost: [error: unknown];
  /** A non-fatal problem (Redis unreachable, a record write refused). Never thrown. */
  error: [error: unknown];
}

/**
 * One worker of a fleet. Built by `client.runFleet()`; `stop()` releases its leases so other workers take over at
 * once, without waiting for the lease period.
 */
export class FleetRunner extends EventEmitter<FleetEvents> {
  readonly #host: FleetHost;
  readonly #options: Required<FleetOptions>;
  readonly #held = new Map<string, Held>();
  /**
   * Tasks this client created whose first record the store refused (Redis out of reach), by task id: none of them is
   * polled until it is recorded, leased to this worker (then followed like any held task).
   */
  readonly #unrecorded = new Map<string, FleetTask>();
  /** Claims whose first `tasks/get` (the client's attach) is under way, by task id. */
  readonly #attaching = new Map<string, Held>();
  readonly #questions: FleetQuestions;
  readonly #feed: QuestionFeed;
  readonly #timers: Array<ReturnType<typeof setInterval>> = [];
  readonly #offTask: () => void;
  readonly #subscription: { stop(): Promise<void> };
  #claiming = false;
  #stopped = false;

  /** @internal Built by `client.runFleet()`. */
  constructor(host: FleetHost, options: FleetOptions = {}) {
    super();
    this.#host = host;
    this.#options = {
      claim: options.claim ?? true,
      claimIntervalMs: options.claimIntervalMs ?? 1_000,
      maxTasks: options.maxTasks ?? 1_000,
    };
    const { claimIntervalMs, maxTasks } = this.#options;
    const bad =
      durationError('runFleet', 'claimIntervalMs', claimIntervalMs) ??
      (Number.isInteger(maxTasks) && maxTasks > 0
        ? undefined
        : new TypeError(`runFleet: option "maxTasks" must be a positive integer; got ${String(maxTasks)}`));
    if (bad) throw bad;
    const report = (error: unknown): void => void this.emit('error', error);
    this.#questions = new FleetQuestions(host, report);
    // Questions asked before this process joined are shown once the stream position is fixed.
    this.#feed = new QuestionFeed(host, this.#questions, {
      emit: (q) => void this.emit('inputRequired', q),
      wanted: () => this.listenerCount('inputRequired') > 0,
      onError: report,
    });
    this.#subscription = host.store.channel.subscribe(
      (event) => void this.#onStreamEvent(event).catch(report),
      report,
      { onReady: () => void this.#feed.catchUp().catch(report) },
    );
    this.#offTask = host.onTask((task) => this.#adoptCreated(task));
    host.gatePolls((taskId) => this.gate(taskId));
    // Leases of tasks this worker created are swept too, so a worker that only creates still lets go in time.
    this.#timers.push(
      setInterval(() => void this.#sweep(), Math.max(20, Math.floor(host.store.leaseMs / 8))),
    );
    if (this.#options.claim) {
      this.#timers.push(setInterval(() => void this.#claim(), this.#options.claimIntervalMs));
      void this.#claim();
    }
  }

  /**
   * @internal Called by the client before each `tasks/get` of a task this worker holds: fences the poll in the store
   * (the lease is still ours, the poll time is recorded, and no worker may poll the task again before its interval)
   * and resolves, while the fenced send window is open, with the check the transport runs right before writing the
   * request: a poll that waited past the window (a paused process, a slow Redis, no free connection) is never sent on
   * a lease that may have moved on. A lease found gone is let go of at once.
   *
   * @throws {@link LeaseLostError} when the lease is gone, past its local deadline, or Redis answered too slowly to
   *   fence the send three times running; `StoreUnavailableError` when Redis fails (nothing is sent).
   */
  gate(taskId: string): Promise<() => void> | undefined {
    // A claim lost while its attach was still reading the store: the lease is forgotten here, so refuse by the claim.
    const attaching = this.#attaching.get(taskId);
    if (attaching && this.#held.get(attaching.lease.id) !== attaching)
      throw new LeaseLostError(taskId, 'expired', attaching.lease.fence);
    const unrecorded = this.#unrecorded.get(taskId);
    if (unrecorded) return this.#recordThenFence(unrecorded);
    const lease = this.#host.store.leaseOf(this.#host.serverKey, taskId);
    const held = lease && this.#held.get(lease.id);
    if (!held) return undefined;
    return this.#fence(held);
  }

  #fence(held: Held): Promise<() => void> {
    return fenceSend(
      this.#host,
      held,
      () => this.#held.get(held.lease.id) === held,
      (reason) => this.#lose(held, reason),
    );
  }

  /** Live time of a worker for the fair share: five claim rounds, at most the lease (a dead one's share frees in time). */
  get #liveMs(): number {
    return Math.min(this.#host.store.leaseMs, 5 * this.#options.claimIntervalMs);
  }

  /** Task ids following now. */
  get taskIds(): string[] {
    return [...this.#held.values()].map((h) => h.lease.taskId);
  }

  /**
   * Calls a tool once per `idempotencyKey` across the fleet: the first worker creates the task and follows it;
   * a worker racing on the same key gets the same `taskId` (await it with `client.resultOf(taskId)`).
   * Tasks as in https://github.com/modelcontextprotocol/ext-tasks.
   *
   * @throws what `startTool` throws, and `StoreUnavailableError` when the store fails.
   */
  startTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: FleetStartOptions,
  ): Promise<FleetStart> {
    return startOnce(this.#host, (task) => this.#adoptCreated(task), name, args, options);
  }

  /**
   * Stops claiming and following. Leases are released, so other workers take the tasks over at their next poll
   * time; the tasks keep running on the server. Resolves when the releases are sent.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    this.#offTask();
    const held = [...this.#held.values()];
    this.#held.clear();
    for (const h of held) h.task?.stopFollowing(new Error('fleet worker stopped'));
    // A poll of ours may still be on its way to the server: the next holder's first poll is one interval from now.
    const giveBack = async (h: Held): Promise<void> => {
      await this.#host.store.renew(h.lease, h.task?.pollIntervalMs ?? 1_000).catch(() => false);
      await this.#host.store.release(h.lease).catch(() => undefined);
    };
    await Promise.all(held.map(giveBack));
    await this.#subscription.stop();
  }

  #adoptCreated(task: FleetTask): void {
    if (this.#stopped) return;
    const lease = this.#host.store.leaseOf(this.#host.serverKey, task.taskId);
    if (!lease) {
      // Its first record was refused (Redis out of reach): nobody else can claim it, and it is not polled here
      // until it is recorded under this worker's lease (see `gate`).
      this.#unrecorded.set(task.taskId, task);
      const forget = (): void => void this.#unrecorded.delete(task.taskId);
      task.result().then(forget, forget);
      return;
    }
    if (this.#held.has(lease.id)) return;
    const now = this.#host.now();
    const held: Held = { lease, task, intervalMs: task.pollIntervalMs, lastRenew: now, lastPoll: now };
    this.#held.set(lease.id, held);
    this.#watch(held, task);
  }

  /**
   * The poll of a task whose first record was refused: records it first (a task Redis does not know is created
   * leased to this worker), holds it, then fences the poll like any other. While Redis stays out of reach the poll
   * waits (nothing is sent; each failed write is an `error` event) and the write is tried again every claim
   * interval, so the task is never polled unrecorded, by anyone. The caller's abort still ends its wait.
   *
   * @throws {@link LeaseLostError} when another worker recorded the task meanwhile, or this worker stopped.
   */
  async #recordThenFence(task: FleetTask): Promise<() => void> {
    const { store, serverKey } = this.#host;
    let lease = store.leaseOf(serverKey, task.taskId); // a later record write of the engine may have created it
    while (!lease && !this.#stopped && !task.done) {
      const now = this.#host.now();
      const record = newRecord(task.task, now, task.localCreatedAt, {
        server: serverKey,
        method: task.method,
      });
      try {
        await store.put(record);
        lease = store.leaseOf(serverKey, task.taskId);
        break;
      } catch (error) {
        if (error instanceof LeaseLostError) break; // another worker holds it: it is theirs to poll
        this.emit('error', error);
        await delay(this.#options.claimIntervalMs);
        lease = store.leaseOf(serverKey, task.taskId);
      }
    }
    if (!lease) throw new LeaseLostError(task.taskId, 'leased'); // recorded meanwhile by another worker
    this.#unrecorded.delete(task.taskId);
    if (this.#stopped) throw new LeaseLostError(task.taskId, 'expired', lease.fence);
    const now = this.#host.now();
    const held: Held = { lease, task, intervalMs: task.pollIntervalMs, lastRenew: now, lastPoll: now };
    this.#held.set(lease.id, held);
    this.#watch(held, task);
    return this.#fence(held);
  }

  async #claim(): Promise<void> {
    if (this.#claiming || this.#stopped) return;
    this.#claiming = true;
    try {
      for (;;) {
        const room = Math.min(CLAIM_BATCH, this.#options.maxTasks - this.#held.size);
        if (room <= 0) break;
        const claims = await this.#host.store.claim(room, this.#held.size, this.#liveMs);
        for (const claim of claims) void this.#follow(claim);
        if (claims.length < room || this.#stopped) break;
      }
    } catch (error) {
      this.emit('error', error);
    } finally {
      this.#claiming = false;
    }
  }

  async #follow(claim: FleetClaim): Promise<void> {
    const { lease, record } = claim;
    const now = this.#host.now();
    const held: Held = { lease, intervalMs: record.pollIntervalMs ?? 1_000, lastRenew: now, lastPoll: now };
    this.#held.set(lease.id, held);
    const event: FleetClaimEvent = { taskId: lease.taskId, fence: lease.fence };
    if (claim.previousOwner !== undefined) event.previousOwner = claim.previousOwner;
    if (claim.lateMs !== undefined) event.lateMs = claim.lateMs;
    this.emit('claimed', event);
    let task: FleetTask;
    this.#attaching.set(lease.taskId, held);
    try {
      task = await this.#host.attach(record.taskId, {
        method: record.method,
        localCreatedAt: record.localCreatedAt,
        ttlMs: record.ttlMs,
        answeredKeys: record.answeredKeys,
      });
    } catch (error) {
      await this.#attachFailed(held, record, error);
      return;
    } finally {
      if (this.#attaching.get(lease.taskId) === held) this.#attaching.delete(lease.taskId);
    }
    if (this.#stopped || this.#held.get(lease.id) !== held) {
      task.stopFollowing(new Error('fleet worker stopped'));
      return;
    }
    held.task = task;
    held.lastPoll = this.#host.now();
    // The client's task engine records the task from here on (one writer per task): no second recorder.
    this.#watch(held, task);
  }

  /** The first `tasks/get` failed: a lost task's outcome is recorded; anything else gives the lease back. */
  async #attachFailed(held: Held, record: TaskRecord, error: unknown): Promise<void> {
    if (this.#held.get(held.lease.id) !== held) return; // the lease was lost meanwhile (reported as leaseLost)
    this.#held.delete(held.lease.id);
    const now = this.#host.now();
    if (error instanceof TaskExpiredError || error instanceof TaskNotFoundError) {
      const outcome =
        error instanceof TaskExpiredError
          ? ({ status: 'expired' } as const)
          : ({ status: 'unknown' } as const);
      await this.#host.store
        .put({ ...record, outcome, updatedAt: now })
        .catch((e: unknown) => this.emit('error', e));
      return;
    }
    this.emit('error', error);
    await this.#host.store.release(held.lease).catch((e: unknown) => this.emit('error', e));
  }

  /** Notes every poll, answers questions, and lets go when the task settles. */
  #watch(held: Held, task: FleetTask): void {
    const id = held.lease.id;
    task.on(
      'inputRequired',
      (event) => void this.#feed.heldAsked(id, event).catch((e: unknown) => this.emit('error', e)),
    );
    this.#feed.holding(id, task);
    const afterPoll = (): void => {
      if (task.done || this.#held.get(id) !== held) return;
      held.lastPoll = this.#host.now();
      task.refresh().then(afterPoll, () => undefined);
    };
    task.refresh().then(afterPoll, () => undefined);
    task.result().then(
      () => this.#settled(held, false),
      (error: unknown) => this.#settled(held, outcomeOf({ ok: false, error }) === undefined),
    );
  }

  /** The outcome write releases the lease; a task left without an outcome (transport trouble) is given back. */
  #settled(held: Held, giveBack: boolean): void {
    if (this.#held.get(held.lease.id) !== held) return;
    this.#held.delete(held.lease.id);
    this.#questions.drop(held.lease.id);
    if (giveBack) this.#host.store.release(held.lease).catch((e: unknown) => this.emit('error', e));
  }

  async #renew(held: Held): Promise<void> {
    const dueInMs = (held.task?.pollIntervalMs ?? held.intervalMs) - (this.#host.now() - held.lastPoll);
    try {
      const ok = await this.#host.store.renew(held.lease, Math.max(0, dueInMs));
      held.lastRenew = this.#host.now();
      if (!ok) this.#lose(held, 'stale');
    } catch (error) {
      this.emit('error', error); // kept until its deadline; the sweep lets it go then
    }
  }

  /** Lets go of leases past their local deadline, and renews those that no poll renewed lately. */
  async #sweep(): Promise<void> {
    const now = this.#host.now();
    const every = this.#host.store.leaseMs / 3;
    const due: Held[] = [];
    for (const held of this.#held.values()) {
      if (now >= held.lease.deadline) this.#lose(held, 'expired');
      else if (held.task && now - held.lastRenew >= every) due.push(held);
    }
    await Promise.all(due.map((h) => this.#renew(h)));
  }

  #lose(held: Held, reason: 'stale' | 'expired'): void {
    if (this.#held.get(held.lease.id) !== held) return;
    this.#held.delete(held.lease.id);
    this.#questions.drop(held.lease.id);
    this.#host.store.forget(held.lease);
    const error = new LeaseLostError(held.lease.taskId, reason, held.lease.fence);
    held.task?.stopFollowing(error);
    this.emit('leaseLost', error);
  }

  async #onStreamEvent(event: {
    type: 'question' | 'answer' | 'outcome';
    id: string;
    taskId: string;
    server: string;
    key?: string;
  }): Promise<void> {
    if (event.type === 'outcome') {
      this.#feed.ended(event.id);
      this.emit('outcome', { taskId: event.taskId, server: event.server });
      return;
    }
    if (event.key === undefined) return;
    if (event.type === 'answer') {
      if (this.#held.has(event.id)) await this.#questions.answered(event.id, event.taskId, event.key);
    } else await this.#feed.announced(event.id, event.server, event.taskId, event.key);
  }
}
