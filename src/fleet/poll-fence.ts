/**
 * The send-time fence of a fleet worker's polls: before each `tasks/get` the store confirms the lease, records the
 * poll and moves the task's earliest next poll by any worker one interval (plus the send window) ahead; the poll
 * goes out only while that window is open. Tasks as in https://github.com/modelcontextprotocol/ext-tasks.
 *
 * @module
 * @internal
 */
import { LeaseLostError } from '../store/redis/errors.js';
import type { FleetHost, FleetLease, FleetTask } from './fleet-host.js';

/** A task this worker holds the lease of. */
export interface Held {
  lease: FleetLease;
  task?: FleetTask;
  /** The poll interval known before the task is attached (the record's), ms. */
  intervalMs: number;
  lastRenew: number;
  lastPoll: number;
}

/** Fence attempts before a worker whose Redis answers too slowly lets the lease go. */
const FENCE_ATTEMPTS = 3;

/**
 * Fences one poll of `held`. Resolves when the poll may be sent now, with the check the transport runs right before
 * it writes the request: past the fenced send window (the poll waited for a connection, or the process was paused)
 * the check lets the lease go and throws {@link LeaseLostError}, so the poll is never written. `stillHeld` says
 * whether the runner still follows the task, `lose` lets the lease go (reported as `leaseLost`).
 *
 * @throws {@link LeaseLostError} `stale` when Redis says the lease is another worker's; `expired` when the local
 *   deadline passed, the task was let go meanwhile, or the fence's answer came back after its send window
 *   {@link FENCE_ATTEMPTS} times; `StoreUnavailableError` when Redis fails (nothing is sent).
 */
export async function fenceSend(
  host: FleetHost,
  held: Held,
  stillHeld: () => boolean,
  lose: (reason: 'stale' | 'expired') => void,
): Promise<() => void> {
  const { lease } = held;
  for (let attempt = 0; attempt < FENCE_ATTEMPTS; attempt++) {
    if (host.now() >= lease.deadline) break;
    const ok = await host.store.fencePoll(lease, held.task?.pollIntervalMs ?? held.intervalMs);
    if (!ok) {
      lose('stale');
      throw new LeaseLostError(lease.taskId, 'stale', lease.fence);
    }
    if (!stillHeld()) throw new LeaseLostError(lease.taskId, 'expired', lease.fence);
    const now = host.now();
    held.lastRenew = now;
    const sendBy = lease.sendBy ?? 0;
    if (now < sendBy) {
      return () => {
        if (host.now() < sendBy && stillHeld()) return;
        if (stillHeld()) lose('expired');
        throw new LeaseLostError(lease.taskId, 'expired', lease.fence);
      };
    }
  }
  lose('expired');
  throw new LeaseLostError(lease.taskId, 'expired', lease.fence);
}
