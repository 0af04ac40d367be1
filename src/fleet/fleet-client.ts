/**
 * What a fleet worker drives: the client's public task API, on a client whose store is a `RedisTaskStore`. The
 * fleet sits on top of the client; the client's engine follows every task through the store's leases, the same way
 * for every store, and the fleet only claims tasks, hands them to the client, and bridges questions and outcomes.
 *
 * @module
 * @internal
 */
import type { RedisTaskStore } from '../store/redis/redis-task-store.js';
import type { TaskStore } from '../store/task-store.js';
import type { TaskHandle } from '../tasks/task-handle.js';

/** The part of `TaskClient` a fleet worker uses (its public methods). */
export interface FleetClient {
  /** `client.task(taskId, options)`: attaches to a task this worker claimed (taking its lease). */
  task(
    taskId: string,
    options: { method: string; localCreatedAt: number; ttlMs: number | null; answeredKeys: string[] },
  ): Promise<TaskHandle<unknown>>;
  /** `client.startTool(name, args, { idempotencyKey })`. */
  startTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: { idempotencyKey: string },
  ): Promise<{ resultType: 'complete'; result: unknown } | { resultType: 'task'; task: TaskHandle<unknown> }>;
  on(event: 'task', listener: (task: TaskHandle<unknown>) => void): unknown;
  off(event: 'task', listener: (task: TaskHandle<unknown>) => void): unknown;
}

/**
 * The client's store as a fleet's store (claims, questions, idempotency keys besides its leases).
 *
 * @throws TypeError when it is not one (use `RedisTaskStore` from `mcp-tasks-client/redis-store`).
 */
export function fleetStoreOf(store: TaskStore | undefined, method: string): RedisTaskStore {
  const s = store as Partial<RedisTaskStore> | undefined;
  if (typeof s?.claim === 'function' && s.channel !== undefined && s.idempotency !== undefined && s.leases)
    return s as RedisTaskStore;
  throw new TypeError(
    `TaskClient.${method}: fleet mode needs a shared store with leases (option "store": a RedisTaskStore)`,
  );
}
