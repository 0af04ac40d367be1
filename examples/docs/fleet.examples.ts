/**
 * docs/fleet.md's quick start as a program that type-checks and runs: test/docs/snippets.test.ts runs it against
 * the reference server and a real redis-server (both URLs below are replaced by the test's), and it exits on its own.
 */
const url = 'http://127.0.0.1:3000/mcp';

// #region quick-start
import { createClient } from 'redis';
import { StreamableHttpTransport, TaskClient } from 'mcp-tasks-client';
import { RedisTaskStore } from 'mcp-tasks-client/redis-store';

const redis = createClient({ url: 'redis://127.0.0.1:6379' });
await redis.connect();
const store = new RedisTaskStore({ client: redis, prefix: 'my-fleet', leaseMs: 30_000 });
const client = new TaskClient({
  transport: new StreamableHttpTransport(url),
  store, // its workerId (default `<hostname>:<pid>`) names this worker in leases
  capabilities: { elicitation: { form: {} } },
}); // fleet listeners do not declare it: declare what the fleet answers

const fleet = client.runFleet(); // claim, follow, renew, release, take over
fleet.on('inputRequired', (q) => q.respond({ action: 'accept', content: { confirm: true } }));
const start = await fleet.startTool(
  'deploy_release',
  { version: '1.2.3' },
  { idempotencyKey: 'deploy-1.2.3' },
);
if (start.resultType === 'task') console.log(await client.resultOf(start.taskId)); // whoever follows it
await client.close(); // stops the worker and releases its leases
await redis.quit(); // the store does not own the Redis connection: close it, or the process keeps running
// #endregion quick-start
