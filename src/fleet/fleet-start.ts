/**
 * Creating a task once across a fleet: the idempotency key → task id mapping lives in the shared store. The first
 * worker to claim the key (`SET NX`) sends the creation (with the key, so a server that honours keys dedupes too)
 * and binds the key to the new task; a worker racing on the same key waits for the binding and gets that task.
 *
 * @module
 */
import { delay } from '../internal/abort.js';
import { durationError } from '../internal/duration.js';
import { OutcomeUnknownError } from '../errors.js';
import type { RedisTaskStore } from '../store/redis/redis-task-store.js';
import type { TaskHandle } from '../tasks/task-handle.js';
import type { FleetClient } from './fleet-client.js';

/** Default time a worker may take to create a task before its claim on the key lapses, ms. */
export const DEFAULT_CREATION_CLAIM_MS = 30_000;
/** Longest pause between two looks at a key another worker is creating, ms (the wait starts at 25 and doubles). */
const MAX_KEY_WAIT_MS = 200;
/** Retention of a key whose task has no `ttlMs`, ms (one day). */
const UNLIMITED_KEY_TTL_MS = 86_400_000;

/** Options of `fleet.startTool`. */
export interface FleetStartOptions {
  /** The key that makes the creation happen once across the fleet. Required. */
  idempotencyKey: string;
  /** How long a worker may take to create the task before another worker may re-send it, ms. @default DEFAULT_CREATION_CLAIM_MS */
  creationClaimMs?: number;
  /** Aborts the wait for another worker's creation (not the task). */
  signal?: AbortSignal;
}

/** What `fleet.startTool` gives: the inline result, or the task's id and whether this worker created it. */
export type FleetStart =
  | { resultType: 'complete'; result: unknown }
  | { resultType: 'task'; taskId: string; created: boolean };

/**
 * Starts `name` once per `idempotencyKey` across the fleet. The new task is followed by this worker (it holds the
 * lease); a task another worker created is followed there: await it with `client.resultOf(taskId)`.
 *
 * @throws TypeError without a key; {@link OutcomeUnknownError} when another worker's creation neither bound the key
 *   nor lapsed in twice `creationClaimMs`; the client's errors for the creation itself; `signal.reason` on abort.
 */
export async function startOnce(
  client: FleetClient,
  store: RedisTaskStore,
  serverKey: string,
  adopt: (task: TaskHandle<unknown>) => void,
  name: string,
  args: Record<string, unknown> | undefined,
  options: FleetStartOptions,
): Promise<FleetStart> {
  const key = options?.idempotencyKey;
  if (typeof key !== 'string' || key.length === 0)
    throw new TypeError(
      `fleet.startTool: idempotencyKey must be a non-empty string, got ${JSON.stringify(key)}`,
    );
  const claimMs = options.creationClaimMs ?? DEFAULT_CREATION_CLAIM_MS;
  const bad = durationError('fleet.startTool', 'creationClaimMs', claimMs);
  if (bad) throw bad;
  const keys = store.idempotency;
  const giveUpAt = Date.now() + 2 * claimMs;
  for (let wait = 25; ; wait = Math.min(wait * 2, MAX_KEY_WAIT_MS)) {
    const state = await keys.claim(serverKey, key, store.workerId, claimMs);
    if (state.state === 'task') return { resultType: 'task', taskId: state.taskId, created: false };
    if (state.state === 'claimed') {
      let created;
      try {
        created = await client.startTool(name, args, { idempotencyKey: key });
      } catch (error) {
        await keys.abandon(serverKey, key, state.pending).catch(() => undefined);
        throw error;
      }
      if (created.resultType === 'complete') {
        await keys.abandon(serverKey, key, state.pending);
        return { resultType: 'complete', result: created.result };
      }
      const task = created.task;
      const ttl = task.task.ttlMs;
      await keys.bind(
        serverKey,
        key,
        state.pending,
        task.taskId,
        typeof ttl === 'number' ? ttl : UNLIMITED_KEY_TTL_MS,
      );
      adopt(task);
      return { resultType: 'task', taskId: task.taskId, created: true };
    }
    if (Date.now() >= giveUpAt) throw new OutcomeUnknownError('tools/call');
    await delay(wait, options.signal);
  }
}
