/**
 * `RedisTaskStore`: task records shared by a fleet of workers on one Redis primary, with leases and fencing so that
 * exactly one worker follows a task at a time. Node only: import from `mcp-tasks-client/redis-store`.
 *
 * @module
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { isTerminalStatus } from '../../protocol/tasks.js';
import { parseRecordText, TaskRecordSchema, type TaskRecord } from '../task-record.js';
import { pruneExpired, type TaskStore } from '../task-store.js';
import { RedisConnection, type RedisClientLike } from './connection.js';
import { LeaseLostError, type LeaseLostReason } from './errors.js';
import { FleetChannel } from './fleet-channel.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { FleetKeys, recordId } from './keys.js';
import { CLAIM_SCRIPT, POLL_SCRIPT, PUT_SCRIPT, RELEASE_SCRIPT, RENEW_SCRIPT } from './scripts.js';
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

/**
 * A {@link TaskStore} on Redis for a fleet of workers. Records are validated on read with the same schema as the
 * file store. A worker writes a task's record only while it holds the task's lease; a write whose fence is stale is
 * refused with {@link LeaseLostError}. `put` of a record Redis does not have yet creates it leased to this worker.
 *
 * Task records as in https://github.com/modelcontextprotocol/ext-tasks (the `DetailedTask` a server reported).
 *
 * @example
 * const redis = createClient({ url: 'redis://127.0.0.1:6379' });
 * await redis.connect();
 * const store = new RedisTaskStore({ client: redis, leaseMs: 10_000 });
 */
export class RedisTaskStore implements TaskStore {
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
   * holds a live lease on the task, and a task Redis does not know yet is created leased to this worker.
   * A record with a terminal outcome releases the lease and is announced on the stream once.
   *
   * @throws ZodError when `record` is not a valid {@link TaskRecord}; {@link LeaseLostError} when refused;
   *   {@link StoreUnavailableError} when Redis fails.
   */
  async put(record: TaskRecord): Promise<void> {
    const valid = TaskRecordSchema.parse(record);
    const id = recordId(valid.server, valid.taskId);
    const lease = this.#leases.get(id);
    if (lease && this.#now() >= lease.deadline) this.#refuse(lease, 'expired');
    const newToken = randomUUID();
    const dueInMs = valid.pollIntervalMs ?? FALLBACK_POLL_MS;
    const sentAt = this.#now();
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
        dueInMs,
        valid.outcome?.status ?? '',
        valid.taskId,
        valid.server,
        this.#maxStream,
        valid.outcome === undefined && !isTerminalStatus(valid.status) ? newToken : '',
      ],
    )) as [number, number | string, number?, number?];
    if (reply[0] !== 1) {
      if (lease) this.#refuse(lease, reply[1] as LeaseLostReason);
      throw new LeaseLostError(valid.taskId, reply[1] as LeaseLostReason);
    }
    if (valid.outcome !== undefined) this.#leases.delete(id);
    else if (!lease && reply[3] === 1) {
      this.#leases.set(id, {
        id,
        server: valid.server,
        taskId: valid.taskId,
        token: newToken,
        fence: Number(reply[1]),
        deadline: this.#deadline(sentAt),
      });
    }
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
        token,
        fence: Number(flat[i + 2]),
        deadline: this.#deadline(sentAt),
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
   * Extends `lease` by the lease period and sets the task's next poll `dueInMs` from now.
   *
   * @returns false when the lease is no longer this worker's (it is forgotten here).
   * @throws {@link StoreUnavailableError} when Redis fails (the lease is kept until its deadline).
   */
  async renew(lease: Lease, dueInMs: number): Promise<boolean> {
    const sentAt = this.#now();
    const until = Number(
      await this.#redis.eval(
        RENEW_SCRIPT,
        [this.keys.task(lease.id), this.keys.due],
        [lease.id, lease.token, lease.fence, this.leaseMs, Math.max(0, Math.round(dueInMs))],
      ),
    );
    if (until > 0) {
      lease.deadline = this.#deadline(sentAt);
      return true;
    }
    this.#leases.delete(lease.id);
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
      lease.deadline = this.#deadline(sentAt);
      lease.sendBy = sentAt + this.sendWindowMs;
      return true;
    }
    this.#leases.delete(lease.id);
    return false;
  }

  /** Longest time between fencing a poll ({@link RedisTaskStore.fencePoll}) and sending it, ms: a fifth of the lease. */
  get sendWindowMs(): number {
    return Math.floor(this.leaseMs / 5);
  }

  /** Gives `lease` back (graceful stop): another worker may claim the task at its next poll time. */
  async release(lease: Lease): Promise<void> {
    this.#leases.delete(lease.id);
    await this.#redis.eval(
      RELEASE_SCRIPT,
      [this.keys.task(lease.id), this.keys.due],
      [lease.id, lease.token, lease.fence],
    );
  }

  /** The lease this worker holds on the task, if any. */
  leaseOf(server: string, taskId: string): Lease | undefined {
    return this.#leases.get(recordId(server, taskId));
  }

  /** Forgets a lease locally without telling Redis (it runs out there by itself). */
  forget(lease: Lease): void {
    if (this.#leases.get(lease.id) === lease) this.#leases.delete(lease.id);
  }

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
