/**
 * Options and lease shapes of the Redis task store.
 *
 * @module
 */
import { z } from 'zod';
import { durationSchema } from '../../internal/duration.js';
import type { TaskRecord } from '../task-record.js';
import type { FollowLease } from '../task-store.js';
import type { RedisClientLike } from './connection.js';

/** Default lease period, ms: a dead worker's tasks are claimed by another within this time. */
export const DEFAULT_LEASE_MS = 30_000;
/** Default key prefix: one fleet per prefix. */
export const DEFAULT_FLEET_PREFIX = 'mcp-tasks';
/** Default cap on the event stream's length (approximate, `XADD MAXLEN ~`). */
export const DEFAULT_MAX_STREAM_LENGTH = 10_000;
/** Poll interval assumed for a record that carries none, ms. */
export const FALLBACK_POLL_MS = 1_000;

/** Options of {@link RedisTaskStore}. */
export interface RedisTaskStoreOptions {
  /** A connected node-redis client (`createClient({ url })` from the `redis` package, then `await client.connect()`). */
  client: RedisClientLike;
  /** Key prefix naming the fleet; workers sharing it share tasks. @default DEFAULT_FLEET_PREFIX */
  prefix?: string;
  /** Lease period, ms: a whole number, at least 100, at most 2^31 − 1. @default DEFAULT_LEASE_MS (30000) */
  leaseMs?: number;
  /** This worker's name in leases (shown to operators). @default `<hostname>:<pid>` */
  workerId?: string;
  /** Called for each stored record that is not valid JSON or not a task record; it is skipped. @default ignore */
  onInvalid?: (id: string, reason: string) => void;
  /** Local clock, epoch ms (lease deadlines as this worker sees them). @default Date.now */
  now?: () => number;
  /** Approximate cap on the event stream's entries. @default DEFAULT_MAX_STREAM_LENGTH */
  maxStreamLength?: number;
}

/** @internal */
export const OptionsSchema = z.strictObject({
  client: z.custom<RedisClientLike>(
    (v) => v !== null && typeof v === 'object' && typeof (v as RedisClientLike).sendCommand === 'function',
    {
      message: 'client must be a node-redis client (sendCommand)',
    },
  ),
  prefix: z
    .string()
    .min(1)
    .regex(/^[\w.:-]+$/, 'letters, digits and . _ : - only')
    .optional(),
  leaseMs: durationSchema({ atLeast: 100, integer: true }).optional(),
  workerId: z.string().min(1).max(200).optional(),
  onInvalid: z
    .custom<(id: string, reason: string) => void>((v) => typeof v === 'function', {
      message: 'onInvalid must be a function',
    })
    .optional(),
  now: z
    .custom<() => number>((v) => typeof v === 'function', { message: 'now must be a function' })
    .optional(),
  maxStreamLength: z.number().int().min(100).optional(),
});

/**
 * A lease this worker holds on one task (the store's follow lease). `fence` grows with every lease taken in
 * the fleet; `expiresAt` is this worker's local deadline (80 % of the lease period after the last renewal or fenced
 * poll was sent), after which it acts as if the lease were gone.
 */
export interface Lease extends FollowLease {
  readonly id: string;
  readonly token: string;
  readonly fence: number;
  /** Local time (epoch ms) until which a poll fenced by `fencePoll` may be sent; unset before the first fence. */
  sendBy?: number;
  /** Local time (epoch ms) before which the first poll may not be sent: the previous holder's next poll time. */
  notBefore?: number;
  /** The poll interval of the last fenced poll, ms (a release keeps the next poll that far away). */
  intervalMs?: number;
}

/** A task this worker just claimed. */
export interface ClaimedTask {
  lease: Lease;
  record: TaskRecord;
  /** The worker whose lease ran out, when this claim is a takeover. */
  previousOwner?: string;
  /** For a takeover: ms between the end of the previous lease and this claim (Redis clock). */
  lateMs?: number;
}
