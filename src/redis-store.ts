/**
 * Node-only entry point `mcp-tasks-client/redis-store`: task records shared by a fleet of workers on Redis, with
 * leases and fencing. Needs the `redis` package (node-redis, an optional peer dependency). See docs/fleet.md.
 *
 * @example
 * import { createClient } from 'redis';
 * import { RedisTaskStore } from 'mcp-tasks-client/redis-store';
 * const redis = createClient({ url: 'redis://127.0.0.1:6379' });
 * await redis.connect();
 * const store = new RedisTaskStore({ client: redis, leaseMs: 10_000 });
 * const client = new TaskClient({ transport, store, workerId: 'worker-1' });
 * const fleet = client.runFleet();
 *
 * @module
 */
export { RedisTaskStore } from './store/redis/redis-task-store.js';
export { DEFAULT_FLEET_PREFIX, DEFAULT_LEASE_MS, DEFAULT_MAX_STREAM_LENGTH } from './store/redis/options.js';
export type { ClaimedTask, Lease, RedisTaskStoreOptions } from './store/redis/options.js';
export type { RedisClientLike } from './store/redis/connection.js';
export { LeaseLostError, StoreUnavailableError } from './store/redis/errors.js';
export type { LeaseLostReason } from './store/redis/errors.js';
export { FleetChannel } from './store/redis/fleet-channel.js';
export type { FleetEvent, FleetSubscription } from './store/redis/fleet-channel.js';
export type { OpenQuestion } from './store/redis/open-questions.js';
export { IdempotencyKeys } from './store/redis/idempotency-keys.js';
export type { KeyState } from './store/redis/idempotency-keys.js';
