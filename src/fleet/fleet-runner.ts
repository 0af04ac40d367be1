/**
 * The fleet engine of one worker: claims due tasks from the shared store and hands each to the client, whose engine
 * follows it on the lease the claim took (the same lease path as every store's: fenced polls, renewals, release);
 * takes over tasks whose lease ran out, and bridges questions, answers and outcomes across the fleet.
 *
 * @module
 */
import { EventEmitter } from 'eventemitter3';
import { durationError } from '../internal/duration.js';
import { TaskExpiredError, TaskFollowedElsewhereError, TaskNotFoundError } from '../errors.js';
import { LeaseLostError } from '../store/redis/errors.js';
import type { ClaimedTask } from '../store/redis/options.js';
import type { RedisTaskStore } from '../store/redis/redis-task-store.js';
import type { TaskHandle } from '../tasks/task-handle.js';
import type { FleetClient } from './fleet-client.js';
import { FleetQuestions, type FleetQuestion } from './fleet-questions.js';
import { QuestionFeed } from './question-feed.js';
import { startOnce, type FleetStart, type FleetStartOptions } from './fleet-start.js';

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
  readonly #client: FleetClient;
  readonly #store: RedisTaskStore;
  readonly #serverKey: string;
  readonly #options: Required<FleetOptions>;
  /** The tasks this worker follows (claimed, or created by its client), by task id. */
  readonly #held = new Map<string, TaskHandle<unknown> | 'attaching'>();
  readonly #questions: FleetQuestions;
  readonly #feed: QuestionFeed;
  readonly #timers: Array<ReturnType<typeof setInterval>> = [];
  readonly #offTask: () => void;
  readonly #subscription: { stop(): Promise<void> };
  #claiming = false;
  #stopped = false;

  /**
   * @internal Built by `client.runFleet()`.
   * @param serverKey - the identity of the client's server (the fleet's records are keyed by it).
   */
  constructor(client: FleetClient, store: RedisTaskStore, serverKey: string, options: FleetOptions = {}) {
    super();
    this.#client = client;
    this.#store = store;
    this.#serverKey = serverKey;
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
    this.#questions = new FleetQuestions(store.channel, serverKey, report);
    // Questions asked before this process joined are shown once the stream position is fixed.
    this.#feed = new QuestionFeed(store.channel, serverKey, this.#questions, {
      emit: (q) => void this.emit('inputRequired', q),
      wanted: () => this.listenerCount('inputRequired') > 0,
      onError: report,
    });
    this.#subscription = store.channel.subscribe(
      (event) => void this.#onStreamEvent(event).catch(report),
      report,
      { onReady: () => void this.#feed.catchUp().catch(report) },
    );
    const adopt = (task: TaskHandle<unknown>): void => this.#adopt(task);
    client.on('task', adopt);
    this.#offTask = () => void client.off('task', adopt);
    if (this.#options.claim) {
      this.#timers.push(setInterval(() => void this.#claim(), this.#options.claimIntervalMs));
      void this.#claim();
    }
  }

  /** Live time of a worker for the fair share: five claim rounds, at most the lease (a dead one's share frees in time). */
  get #liveMs(): number {
    return Math.min(this.#store.leaseMs, 5 * this.#options.claimIntervalMs);
  }

  /** Task ids following now. */
  get taskIds(): string[] {
    return [...this.#held.keys()];
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
    return startOnce(
      this.#client,
      this.#store,
      this.#serverKey,
      (task) => this.#adopt(task),
      name,
      args,
      options,
    );
  }

  /**
   * Stops claiming and following. Leases are released, so other workers take the tasks over at their next poll
   * time (one poll interval after this worker's last poll at the earliest); the tasks keep running on the server.
   * Resolves when the releases are sent.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    this.#offTask();
    const held = [...this.#held.entries()];
    this.#held.clear();
    const giveBack = async ([taskId, task]: (typeof held)[number]): Promise<void> => {
      if (task !== 'attaching') task.stopFollowing(new Error('fleet worker stopped'));
      const lease = this.#store.leaseOf(this.#serverKey, taskId);
      if (lease) await this.#store.release(lease).catch(() => undefined);
    };
    await Promise.all(held.map(giveBack));
    await this.#subscription.stop();
  }

  /** A task this worker's client created: followed here (its lease taken by the client's engine). */
  #adopt(task: TaskHandle<unknown>): void {
    if (this.#stopped || this.#held.has(task.taskId)) return;
    this.#held.set(task.taskId, task);
    this.#watch(task);
  }

  async #claim(): Promise<void> {
    if (this.#claiming || this.#stopped) return;
    this.#claiming = true;
    try {
      for (;;) {
        const room = Math.min(CLAIM_BATCH, this.#options.maxTasks - this.#held.size);
        if (room <= 0) break;
        const claims = await this.#store.claim(room, this.#held.size, this.#liveMs);
        for (const claim of claims) void this.#follow(claim);
        if (claims.length < room || this.#stopped) break;
      }
    } catch (error) {
      this.emit('error', error);
    } finally {
      this.#claiming = false;
    }
  }

  /** Hands a claimed task to the client: its attach takes the lease this claim holds and follows the task on it. */
  async #follow(claim: ClaimedTask): Promise<void> {
    const { lease, record } = claim;
    this.#held.set(lease.taskId, 'attaching');
    const event: FleetClaimEvent = { taskId: lease.taskId, fence: lease.fence };
    if (claim.previousOwner !== undefined) event.previousOwner = claim.previousOwner;
    if (claim.lateMs !== undefined) event.lateMs = claim.lateMs;
    this.emit('claimed', event);
    let task: TaskHandle<unknown>;
    try {
      task = await this.#client.task(record.taskId, {
        method: record.method,
        localCreatedAt: record.localCreatedAt,
        ttlMs: record.ttlMs,
        answeredKeys: record.answeredKeys,
      });
    } catch (error) {
      if (this.#held.get(lease.taskId) === 'attaching') this.#held.delete(lease.taskId);
      if (isLeaseLoss(error)) this.emit('leaseLost', error);
      else if (error instanceof TaskExpiredError || error instanceof TaskNotFoundError) {
        // The server lost the task: its outcome is recorded (the engine writes it too when it read the record).
        const outcome = { status: error instanceof TaskExpiredError ? 'expired' : 'unknown' } as const;
        await this.#store
          .put({ ...record, outcome, updatedAt: Date.now() })
          .catch((e: unknown) => this.emit('error', e));
      } else this.emit('error', error);
      return;
    }
    if (this.#stopped || this.#held.get(lease.taskId) !== 'attaching') {
      task.stopFollowing(new Error('fleet worker stopped'));
      return;
    }
    this.#held.set(lease.taskId, task);
    this.#watch(task);
  }

  /** Answers the task's questions across the fleet, and lets go of it when it settles (or its lease moves on). */
  #watch(task: TaskHandle<unknown>): void {
    const id = this.#store.recordIdOf(this.#serverKey, task.taskId);
    task.on(
      'inputRequired',
      (event) => void this.#feed.heldAsked(id, event).catch((e: unknown) => this.emit('error', e)),
    );
    this.#feed.holding(id, task);
    const settled = (error?: unknown): void => {
      if (this.#held.get(task.taskId) !== task) return;
      this.#held.delete(task.taskId);
      this.#questions.drop(id);
      if (isLeaseLoss(error)) this.emit('leaseLost', error);
    };
    task.result().then(() => settled(), settled);
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
      if (event.server === this.#serverKey && this.#held.has(event.taskId))
        await this.#questions.answered(event.id, event.taskId, event.key);
    } else await this.#feed.announced(event.id, event.server, event.taskId, event.key);
  }
}

/** True when `error` says the task's lease is another holder's now (the task is theirs to follow). */
function isLeaseLoss(error: unknown): boolean {
  return error instanceof LeaseLostError || error instanceof TaskFollowedElsewhereError;
}
