/**
 * Idempotency keys across a fleet: the key → task id mapping lives in Redis, claimed with `SET NX`, so a creation
 * re-sent by any worker finds the task another worker created instead of creating a second.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { RedisConnection } from './connection.js';
import type { FleetKeys } from './keys.js';
import { BIND_KEY_SCRIPT, DELETE_IF_SCRIPT } from './scripts.js';

/** What an idempotency key stands for right now. */
export type KeyState =
  /** This worker claimed the key: it sends the creation and then binds the key. `pending` is its claim. */
  | { state: 'claimed'; pending: string }
  /** Another worker is creating the task right now. */
  | { state: 'pending' }
  /** The key is bound to this task. */
  | { state: 'task'; taskId: string };

const TASK_PREFIX = 'task:';
const PENDING_PREFIX = 'pending:';

/** The idempotency keys of one fleet. */
export class IdempotencyKeys {
  readonly #redis: RedisConnection;
  readonly #keys: FleetKeys;

  /** @internal Built by {@link RedisTaskStore}. */
  constructor(redis: RedisConnection, keys: FleetKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  /**
   * Claims `key` for a creation (`SET NX PX pendingMs`), or says who has it. A claim not bound within `pendingMs`
   * (the worker died mid-creation) lapses, and the next worker re-sends the creation with the same key.
   */
  async claim(server: string, key: string, owner: string, pendingMs: number): Promise<KeyState> {
    const pending = `${PENDING_PREFIX}${owner}:${randomUUID()}`;
    const name = this.#keys.idempotency(server, key);
    const set = await this.#redis.send([
      'SET',
      name,
      pending,
      'NX',
      'PX',
      String(Math.max(1, Math.round(pendingMs))),
    ]);
    if (set === 'OK') return { state: 'claimed', pending };
    return this.read(server, key);
  }

  /** What the key stands for now; a lapsed claim reads as `pending` until the next `claim`. */
  async read(server: string, key: string): Promise<KeyState> {
    const value = await this.#redis.send(['GET', this.#keys.idempotency(server, key)]);
    if (typeof value === 'string' && value.startsWith(TASK_PREFIX))
      return { state: 'task', taskId: value.slice(TASK_PREFIX.length) };
    return { state: 'pending' };
  }

  /** Binds the key to `taskId` for `ttlMs` (the task's retention). @returns false when the claim was lost meanwhile. */
  async bind(server: string, key: string, pending: string, taskId: string, ttlMs: number): Promise<boolean> {
    const done = await this.#redis.eval(
      BIND_KEY_SCRIPT,
      [this.#keys.idempotency(server, key)],
      [pending, `${TASK_PREFIX}${taskId}`, Math.max(1, Math.round(ttlMs))],
    );
    return Number(done) === 1;
  }

  /** Gives up a claim (the creation failed before any task existed), so another worker may try. */
  async abandon(server: string, key: string, pending: string): Promise<void> {
    await this.#redis.eval(DELETE_IF_SCRIPT, [this.#keys.idempotency(server, key)], [pending]);
  }
}
