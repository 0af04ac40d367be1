/**
 * A worker that starts `deploy_release` (which asks `confirm`) through its fleet, prints one JSON line when its
 * fleet shows the question, and then waits to be killed (fleet-late-join.test.ts):
 *
 *   asking-worker.ts <redisUrl> <prefix> <serverUrl> <workerId> <leaseMs>
 */
import { createClient } from 'redis';
import { StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { RedisTaskStore } from '../../src/redis-store.js';

const [redisUrl, prefix, serverUrl, workerId, leaseArg] = process.argv.slice(2);
const emit = (event: Record<string, unknown>): void =>
  void process.stdout.write(`${JSON.stringify({ ...event, workerId })}\n`);

const redis = createClient({ url: redisUrl });
redis.on('error', () => undefined);
await redis.connect();
const store = new RedisTaskStore({
  client: redis,
  prefix: prefix!,
  leaseMs: Number(leaseArg),
  workerId: workerId!,
});
const client = new TaskClient({
  transport: new StreamableHttpTransport(serverUrl!),
  store,
});
client.on('warning', () => undefined);
client.on('inputRequired', () => undefined); // declares elicitation; this worker never answers
const fleet = client.runFleet({ claimIntervalMs: 50 });
fleet.on('inputRequired', (q) => emit({ event: 'question', taskId: q.taskId, key: q.key }));
fleet.on('error', (e) => emit({ event: 'error', message: String(e) }));
const start = await fleet.startTool('deploy_release', { version: '7.0.0' }, { idempotencyKey: 'deploy-7' });
emit({ event: 'started', ...start });
setTimeout(() => process.exit(3), 120_000).unref();
