/**
 * The reference server in its own process for the HTTP phases, so the client's heap, RSS and event loop are measured
 * without the server's. Started by `bench/lib/child.ts` with its options as JSON in argv[2]; talks over IPC.
 */
import { benchCatalog, createTaskServer, type TaskServerOptions } from '../src/testing/index.js';
import type { ServerReply, ServerRequest, TaskTimes } from './lib/child.js';

const options = JSON.parse(process.argv[2] ?? '{}') as TaskServerOptions;
const bench = benchCatalog();
const server = await createTaskServer({ ...options, catalog: bench.catalog });

const send = (message: ServerReply): void => {
  process.send?.(message);
};

process.on('message', (raw) => {
  const message = raw as ServerRequest;
  if (message.type === 'collect') {
    const tasks: TaskTimes[] = message.tasks.map(({ taskId, key }) => ({
      taskId,
      createdAtMs: server.core.registry.get(taskId)?.createdAtMs ?? Number.NaN,
      completedAtMs: bench.completions.get(key)?.completedAt ?? Number.NaN,
      gets: server.stats.taskGetTimes(taskId),
      updates: server.stats.taskUpdates(taskId).length,
      cancels: server.stats.taskCancels(taskId).length,
      serverStatus: server.core.registry.get(taskId)?.run.status ?? null,
    }));
    send({
      type: 'collected',
      tasks,
      counts: { ...server.stats.counts(), 'tasks created': server.core.registry.size },
    });
  } else if (message.type === 'reset') {
    server.stats.reset();
    send({ type: 'reset-done' });
  } else if (message.type === 'exit') {
    void server.close().then(() => process.exit(0));
  }
});
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
send({ type: 'ready', url: server.url });
