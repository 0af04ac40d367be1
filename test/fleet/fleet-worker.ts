/**
 * A fleet worker in its own process, for the kill -9, SIGSTOP and Redis-restart tests (fleet-crash.test.ts):
 *
 *   fleet-worker.ts <redisUrl> <prefix> <serverUrl> <workerId> <leaseMs> <claimIntervalMs>
 *
 * Runs `client.runFleet()` until killed. Every line on stdout is one JSON event: ready, claimed, put (a record write
 * Redis accepted), refused (a write refused: stale fence, lease lost), leaseLost, error, and every 100 ms `held` (the
 * task ids it follows now), so tests wait for what the worker does rather than for time. With FLEET_DEBUG=1 it also
 * reports every poll fence (`fence`: ok, sentAt, answered at, sendBy).
 */
import { createClient } from 'redis';
import { StreamableHttpTransport, TaskClient, type TaskRecord } from '../../src/node.js'; // the Node entry: undici underneath, as Node users get it
import { RedisTaskStore } from '../../src/redis-store.js';

const [redisUrl, prefix, serverUrl, workerId, leaseArg, claimArg] = process.argv.slice(2);
const emit = (event: Record<string, unknown>): void =>
  void process.stdout.write(`${JSON.stringify({ ...event, workerId })}\n`);

const redis = createClient({
  url: redisUrl,
  socket: { reconnectStrategy: (n: number) => Math.min(50 * n, 300) },
});
redis.on('error', () => undefined);
await redis.connect();
const store = new RedisTaskStore({
  client: redis,
  prefix: prefix!,
  leaseMs: Number(leaseArg),
  workerId: workerId!,
});
const put = store.put.bind(store);
store.put = async (record: TaskRecord): Promise<void> => {
  const sentAt = Date.now();
  try {
    await put(record);
    emit({
      event: 'put',
      taskId: record.taskId,
      outcome: record.outcome?.status ?? null,
      sentAt,
      at: Date.now(),
    });
  } catch (error) {
    emit({
      event: 'refused',
      taskId: record.taskId,
      reason: (error as { reason?: string }).reason ?? String(error),
    });
    throw error;
  }
};
if (process.env.FLEET_DEBUG) {
  const fence = store.fencePoll.bind(store);
  store.fencePoll = async (lease, intervalMs) => {
    const sentAt = Date.now();
    const ok = await fence(lease, intervalMs);
    emit({ event: 'fence', taskId: lease.taskId, ok, sentAt, at: Date.now(), sendBy: lease.sendBy });
    return ok;
  };
}
const client = new TaskClient({
  transport: new StreamableHttpTransport(serverUrl!),
  store,
});
client.on('warning', () => undefined);
const fleet = client.runFleet({ claimIntervalMs: Number(claimArg) });
fleet.on('claimed', (c) => emit({ event: 'claimed', ...c, at: Date.now() }));
fleet.on('leaseLost', (e) => emit({ event: 'leaseLost', taskId: (e as { taskId?: string }).taskId }));
fleet.on('error', (e) => emit({ event: 'error', message: String(e) }));
emit({ event: 'ready' });
setInterval(() => emit({ event: 'held', taskIds: fleet.taskIds, at: Date.now() }), 100).unref();
setTimeout(() => process.exit(3), 120_000).unref();
process.on('SIGTERM', () => void fleet.stop().then(() => process.exit(0)));
