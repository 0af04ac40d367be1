/**
 * `RedisTaskStore`: task records shared by a fleet of workers on one Redis primary, with leases and fencing so that
 * exactly one worker follows a task at a time. Node only: import from `mcp-tasks-client/redis-store`.
 *
 * @module
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { parseRecordText, TaskRecordSchema, type TaskRecord } from '../task-record.js';
import { delay } from '../../internal/abort.js';
import {
  pruneExpired,
  type FollowLease,
  type LeaseAttempt,
  type TaskLeases,
  type TaskStore,
} from '../task-store.js';
import { RedisConnection, type RedisClientLike } from './connection.js';
import { LeaseLostError, type LeaseLostReason } from './errors.js';
import { FleetChannel } from './fleet-channel.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { FleetKeys, recordId } from './keys.js';
import {
  ACQUIRE_SCRIPT,
  CLAIM_SCRIPT,
  POLL_SCRIPT,
  PUT_SCRIPT,
  RELEASE_SCRIPT,
  RENEW_SCRIPT,
} from './scripts.js';
import {
  DEFAULT_FLEET_PREFIX,
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_STREAM_LENGTH,
  FALLBACK_POLL_MS,
  OptionsSchema,
  type ClaimedTask,
  type Lease,
  type RedisTaskStoreOptions,
} from './options.js';

/** Fence attempts before a worker whose Redis answers too slowly lets the lease go. */
const FENCE_ATTEMPTS = 3;

/**
 * A {@link TaskStore} on Redis for a fleet of workers. Records are validated on read with the same schema as the
 * file store. Its `TaskStore.leases` (the store itself, as `leases`) are the ones every store's follower takes: the
 * client's engine acquires a task's lease before following it, fences each poll in Redis right before it is sent,
 * renews and releases it; a fleet worker's claims hand it leases the same way. A worker writes a task's record only
 * while it holds the task's lease; a write whose fence is stale is refused with {@link LeaseLostError}.
 *
 * Task records as in https://github.com/modelcontextprotocol/ext-tasks (the `DetailedTask` a server reported).
 *
 * @example
 * const redis = createClient({ url: 'redis://127.0.0.1:6379' });
 * await redis.connect();
 * const store = new RedisTaskStore({ client: redis, leaseMs: 10_000 });
 */
export class RedisTaskStore implements TaskStore, TaskLeases {
  readonly keys: FleetKeys;
  readonly leaseMs: number;
  /** This worker's name in leases. */
  workerId: string;
  /** Questions, answers and outcomes across the fleet. */
  readonly channel: FleetChannel;
  /** Idempotency key → task id, across the fleet. */
  readonly idempotency: IdempotencyKeys;
  readonly #redis: RedisConnection;
  readonly #leases = new Map<string, Lease>();
  /** Leases being taken, by record id: a record write waits for its task's so it carries the lease. */
  readonly #acquiring = new Map<string, Promise<unknown>>();
  readonly #onInvalid: (id: string, reason: string) => void;
  readonly #now: () => number;
  readonly #maxStream: number;

  /** @throws TypeError when an option is invalid (the message names it and the value). */
  constructor(options: RedisTaskStoreOptions) {
    const parsed = OptionsSchema.safeParse(options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new TypeError(
        `RedisTaskStore: option "${issue?.path.join('.') ?? ''}" is invalid (${issue?.message})`,
      );
    }
    this.#redis = new RedisConnection(options.client);
    this.keys = new FleetKeys(options.prefix ?? DEFAULT_FLEET_PREFIX);
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}`;
    this.#onInvalid = options.onInvalid ?? (() => undefined);
    this.#now = options.now ?? Date.now;
    this.#maxStream = options.maxStreamLength ?? DEFAULT_MAX_STREAM_LENGTH;
    this.channel = new FleetChannel(this.#redis, this.keys, this.#maxStream);
    this.idempotency = new IdempotencyKeys(this.#redis, this.keys);
  }

  /** The follower leases of this store: the store itself (one lease table, shared with the fleet's claims). */
  get leases(): TaskLeases {
    return this;
  }

  /** Redis commands this store sent so far (a script counts as one). */
  get commandCount(): number {
    return this.#redis.commands;
  }

  /** The node-redis client this store uses. */
  get client(): RedisClientLike {
    return this.#redis.client;
  }

  /**
   * Writes the record. With a lease held here the write is fenced; without one it is accepted only while nobody
   * holds a live lease on the task (a task Redis does not know yet is created unleased: any worker may claim it).
   * A record with a terminal outcome releases the lease and is announced on the stream once.
   *
   * @throws ZodError when `record` is not a valid {@link TaskRecord}; {@link LeaseLostError} when refused;
   *   {@link StoreUnavailableError} when Redis fails.
   */
  async put(record: TaskRecord): Promise<void> {
    const valid = TaskRecordSchema.parse(record);
    const id = recordId(valid.server, valid.taskId);
    await this.#acquiring.get(id)?.catch(() => undefined); // a lease being taken: the write carries it
    const lease = this.#leases.get(id);
    if (lease && this.#now() >= lease.expiresAt) this.#refuse(lease, 'expired');
    const reply = (await this.#redis.eval(
      PUT_SCRIPT,
      [this.keys.task(id), this.keys.due, this.keys.tasks, this.keys.fence, this.keys.events],
      [
        id,
        JSON.stringify(valid),
        lease?.token ?? '',
        lease ? String(lease.fence) : '',
        this.workerId,
        this.leaseMs,
        valid.pollIntervalMs ?? FALLBACK_POLL_MS,
        valid.outcome?.status ?? '',
        valid.taskId,
        valid.server,
        this.#maxStream,
      ],
    )) as [number, number | string, number?];
    if (reply[0] !== 1) {
      if (lease) this.#refuse(lease, reply[1] as LeaseLostReason);
      throw new LeaseLostError(valid.taskId, reply[1] as LeaseLostReason);
    }
    if (valid.outcome !== undefined) this.#leases.delete(id);
  }

  /** The record of one task, or `undefined`. */
  async get(taskId: string, server?: string): Promise<TaskRecord | undefined> {
    if (server !== undefined) {
      const id = recordId(server, taskId);
      return this.#parse(id, await this.#redis.send(['HGET', this.keys.task(id), 'record']));
    }
    return (await this.list()).find((r) => r.taskId === taskId);
  }

  /** Every record, optionally only those of one server. */
  async list(): Promise<TaskRecord[]> {
    const ids = ((await this.#redis.send(['SMEMBERS', this.keys.tasks])) as string[]).sort();
    const records: TaskRecord[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const batch = ids.slice(i, i + 500);
      const texts = await Promise.all(
        batch.map((id) => this.#redis.send(['HGET', this.keys.task(id), 'record'])),
      );
      batch.forEach((id, j) => {
        const record = this.#parse(id, texts[j]);
        if (record) records.push(record);
      });
    }
    return records;
  }

  /** Deletes the record of one task. */
  async delete(taskId: string, server?: string): Promise<void> {
    const targets =
      server !== undefined ? [{ server, taskId }] : (await this.list()).filter((r) => r.taskId === taskId);
    for (const t of targets) {
      const id = recordId(t.server, t.taskId);
      await this.#redis.send(['DEL', this.keys.task(id), this.keys.questions(id), this.keys.answers(id)]);
      await this.#redis.send(['ZREM', this.keys.due, id]);
      await this.#redis.send(['SREM', this.keys.tasks, id]);
      this.#leases.delete(id);
    }
  }

  /** Deletes the records whose TTL has passed; resolves with how many. */
  prune(now: number = Date.now()): Promise<number> {
    return pruneExpired(this, now);
  }

  /**
   * Claims up to `limit` tasks that are due and whose lease is free or ran out (a takeover), atomically, and never
   * more than this worker's fair share: ⌈open tasks ÷ live workers⌉ minus `held` (the tasks it follows now). A
   * worker counts as live for `liveMs` after its last claim round.
   *
   * @throws {@link StoreUnavailableError} when Redis fails.
   */
  async claim(limit: number, held = 0, liveMs: number = this.leaseMs): Promise<ClaimedTask[]> {
    if (limit <= 0) return [];
    const token = randomUUID();
    const sentAt = this.#now();
    const args = [
      this.keys.prefix,
      limit,
      token,
      this.workerId,
      this.leaseMs,
      held,
      Math.max(1, Math.round(liveMs)),
    ];
    const flat = (await this.#redis.eval(
      CLAIM_SCRIPT,
      [this.keys.due, this.keys.fence, this.keys.workers],
      args,
    )) as Array<string | number>;
    const claimed: ClaimedTask[] = [];
    for (let i = 0; i + 4 < flat.length; i += 5) {
      const id = String(flat[i]);
      const record = this.#parse(id, flat[i + 1]);
      if (!record) continue;
      const lease: Lease = {
        id,
        server: record.server,
        taskId: record.taskId,
        owner: this.workerId,
        token,
        fence: Number(flat[i + 2]),
        expiresAt: this.#deadline(sentAt),
      };
      this.#leases.set(id, lease);
      const task: ClaimedTask = { lease, record };
      if (flat[i + 3] !== '') task.previousOwner = String(flat[i + 3]);
      if (flat[i + 4] !== '') task.lateMs = Number(flat[i + 4]);
      claimed.push(task);
    }
    return claimed;
  }

  /**
   * Takes the lease of a task for this worker: the one this worker already holds (a claim it made), or a fresh one
   * when no other holder's lease runs, also for a task Redis has no record of yet (a task this worker just created).
   * The first poll on a lease taken over waits for the previous holder's next poll time (see {@link beforePoll}).
   *
   * @returns the lease, or the holder's worker id and when its lease ends (local clock).
   * @throws {@link StoreUnavailableError} when Redis fails.
   */
  acquire(server: string, taskId: string): Promise<LeaseAttempt> {
    const id = recordId(server, taskId);
    const held = this.#leases.get(id);
    if (held && this.#now() < held.expiresAt) return Promise.resolve({ lease: held });
    if (held) this.forget(held);
    const taking = this.#acquire(id, server, taskId);
    this.#acquiring.set(id, taking);
    const done = (): void => {
      if (this.#acquiring.get(id) === taking) this.#acquiring.delete(id);
    };
    taking.then(done, done);
    return taking;
  }

  async #acquire(id: string, server: string, taskId: string): Promise<LeaseAttempt> {
    const token = randomUUID();
    const sentAt = this.#now();
    const reply = (await this.#redis.eval(
      ACQUIRE_SCRIPT,
      [this.keys.task(id), this.keys.due, this.keys.fence],
      [id, token, this.workerId, this.leaseMs],
    )) as [number, number | string, number];
    if (reply[0] !== 1)
      return { holder: String(reply[1]) || 'unknown', expiresAt: sentAt + Number(reply[2]) };
    const lease: Lease = {
      id,
      server,
      taskId,
      owner: this.workerId,
      token,
      fence: Number(reply[1]),
      expiresAt: this.#deadline(sentAt),
    };
    if (Number(reply[2]) > 0) lease.notBefore = sentAt + Number(reply[2]);
    this.#leases.set(id, lease);
    return { lease };
  }

  /**
   * Extends `lease` by the lease period and sets the task's next poll at least `dueInMs` from now (never earlier than
   * a fenced poll set it).
   *
   * @returns false when the lease is no longer this worker's (it is forgotten here).
   * @throws {@link StoreUnavailableError} when Redis fails (the lease is kept until its deadline).
   */
  async renew(lease: FollowLease, dueInMs = 0): Promise<boolean> {
    const mine = lease as Lease;
    const sentAt = this.#now();
    const until = Number(
      await this.#redis.eval(
        RENEW_SCRIPT,
        [this.keys.task(mine.id), this.keys.due],
        [mine.id, mine.token, mine.fence, this.leaseMs, Math.max(0, Math.round(dueInMs))],
      ),
    );
    if (until > 0) {
      mine.expiresAt = this.#deadline(sentAt);
      return true;
    }
    this.forget(mine);
    return false;
  }

  /**
   * Fences one poll of the task: call it right before sending `tasks/get`. Redis checks that `lease` is still this
   * worker's and has not ended, extends it, records the poll, and sets the task's earliest next poll by ANY worker
   * to `intervalMs` + {@link RedisTaskStore.sendWindowMs} from now. The poll may be sent only while
   * `lease.sendBy` (local clock) has not passed, so a takeover's first poll is never less than `intervalMs` after it.
   *
   * @returns false when the lease is no longer this worker's (it is forgotten here).
   * @throws {@link StoreUnavailableError} when Redis fails (nothing may be sent then).
   */
  async fencePoll(lease: Lease, intervalMs: number): Promise<boolean> {
    const sentAt = this.#now();
    const args = [
      lease.id,
      lease.token,
      lease.fence,
      this.leaseMs,
      Math.max(0, Math.round(intervalMs)),
      this.sendWindowMs,
    ];
    const until = Number(
      await this.#redis.eval(POLL_SCRIPT, [this.keys.task(lease.id), this.keys.due], args),
    );
    if (until > 0) {
      lease.expiresAt = this.#deadline(sentAt);
      lease.sendBy = sentAt + this.sendWindowMs;
      lease.intervalMs = intervalMs;
      return true;
    }
    this.forget(lease);
    return false;
  }

  /**
   * The poll gate of a lease held here (see `TaskStore.leases.beforePoll`): waits for the previous holder's next poll
   * time on a lease just taken over, then fences the poll ({@link fencePoll}) and resolves, while the fenced send
   * window is open, with the check the transport runs right before writing the request: a poll that waited past the
   * window (no free connection, a paused process) is never sent on a lease that may have moved on, and the lease is
   * let go. A fence answered after its window is tried again, three times at most.
   *
   * @throws {@link LeaseLostError} `stale` when Redis says the lease is another worker's; `expired` when the local
   *   deadline passed, the lease was let go meanwhile, or the fence answered too late three times running;
   *   {@link StoreUnavailableError} when Redis fails (nothing is sent).
   */
  async beforePoll(lease: FollowLease, intervalMs: number): Promise<() => void> {
    const mine = lease as Lease;
    const wait = (mine.notBefore ?? 0) - this.#now();
    if (wait > 0) await delay(wait);
    mine.notBefore = undefined;
    const held = (): boolean => this.#leases.get(mine.id) === mine;
    for (let attempt = 0; attempt < FENCE_ATTEMPTS && held(); attempt++) {
      if (this.#now() >= mine.expiresAt) break;
      if (!(await this.fencePoll(mine, intervalMs)))
        throw new LeaseLostError(mine.taskId, 'stale', mine.fence);
      if (!held()) break;
      const sendBy = mine.sendBy ?? 0;
      if (this.#now() < sendBy)
        return () => {
          if (this.#now() < sendBy && held()) return;
          this.forget(mine);
          throw new LeaseLostError(mine.taskId, 'expired', mine.fence);
        };
    }
    this.forget(mine);
    throw new LeaseLostError(mine.taskId, 'expired', mine.fence);
  }

  /** Longest time between fencing a poll ({@link RedisTaskStore.fencePoll}) and sending it, ms: a fifth of the lease. */
  get sendWindowMs(): number {
    return Math.floor(this.leaseMs / 5);
  }

  /**
   * Gives `lease` back: another worker may claim the task at its next poll time, one poll interval from now at the
   * earliest (a poll of this worker may still be on its way). No error when it is gone.
   *
   * @throws {@link StoreUnavailableError} when Redis fails (the lease then runs out by itself).
   */
  async release(lease: FollowLease): Promise<void> {
    const mine = lease as Lease;
    if (this.#leases.get(mine.id) !== mine) return; // let go already (an outcome write, a lost fence)
    this.forget(mine);
    await this.#redis.eval(
      RELEASE_SCRIPT,
      [this.keys.task(mine.id), this.keys.due],
      [mine.id, mine.token, mine.fence, Math.max(0, Math.round(mine.intervalMs ?? 0))],
    );
  }

  /**
   * The id of a task's record in this store (a hash of the server identity and `taskId`): the key its questions and
   * answers travel under.
   * @internal
   */
  recordIdOf(server: string, taskId: string): string {
    return recordId(server, taskId);
  }

  /** The lease this worker holds on the task, if any. */
  leaseOf(server: string, taskId: string): Lease | undefined {
    return this.#leases.get(recordId(server, taskId));
  }

  /** Forgets a lease locally without telling Redis (it runs out there by itself). */
  forget(lease: Lease): void {
    if (this.#leases.get(lease.id) === lease) this.#leases.delete(lease.id);
  }

  /** This worker's local deadline of a lease renewed at `sentAt`: 80 % of the lease period later. */
  #deadline(sentAt: number): number {
    return sentAt + Math.floor(this.leaseMs * 0.8);
  }

  #refuse(lease: Lease, reason: LeaseLostReason): never {
    this.forget(lease);
    throw new LeaseLostError(lease.taskId, reason, lease.fence);
  }

  #parse(id: string, text: unknown): TaskRecord | undefined {
    if (text === null || text === undefined) return undefined;
    return parseRecordText(String(text), (reason) => this.#onInvalid(id, reason));
  }
}
