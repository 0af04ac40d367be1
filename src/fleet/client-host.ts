/**
 * Builds the fleet engine's {@link FleetHost} from a client's public API, so `TaskClient` only delegates:
 * `runFleet()` and `resultOf()` are one line each there.
 *
 * @module
 * @internal
 */
import type { TaskStore } from '../store/task-store.js';
import { isFleetStore, type FleetAttachOptions, type FleetHost, type FleetTask } from './fleet-host.js';

/** The public surface of `TaskClient` the fleet uses. */
export interface FleetClient {
  task(taskId: string, options: FleetAttachOptions): Promise<FleetTask>;
  startTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: { idempotencyKey: string },
  ): Promise<{ resultType: 'complete'; result: unknown } | { resultType: 'task'; task: FleetTask }>;
  on(event: 'task', listener: (task: FleetTask) => void): unknown;
  off(event: 'task', listener: (task: FleetTask) => void): unknown;
}

/** What the client knows besides its methods. */
export interface FleetClientFacts {
  store: TaskStore | undefined;
  serverKey: string;
  now: () => number;
}

/**
 * The host of a client in fleet mode.
 *
 * @throws TypeError when the client's store has no leases (use `RedisTaskStore` from `mcp-tasks-client/redis-store`).
 */
export function fleetHostOf(client: FleetClient, facts: FleetClientFacts, method: string): FleetHost {
  const store = facts.store;
  if (!isFleetStore(store))
    throw new TypeError(
      `TaskClient.${method}: fleet mode needs a shared store with leases (option "store": a RedisTaskStore)`,
    );
  return {
    serverKey: facts.serverKey,
    store,
    workerId: store.workerId,
    now: facts.now,
    attach: (taskId, options) => client.task(taskId, options),
    startTool: (name, args, idempotencyKey) => client.startTool(name, args, { idempotencyKey }),
    onTask: (listener) => {
      client.on('task', listener);
      return () => void client.off('task', listener);
    },
  };
}
