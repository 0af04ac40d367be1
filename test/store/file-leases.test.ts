/**
 * One follower per task across processes that share one FileTaskStore directory (two CLI sessions, a host and
 * `mcp-tasks watch`): the task's lease in the store lets one of them poll and answer it; another says which one
 * does (TaskFollowedElsewhereError naming the holder), takes over once the holder released it or its lease expired
 * (ext-tasks § Task Polling: one poll per pollIntervalMs). Each FileTaskStore instance stands for one process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamableHttpTransport, TaskClient, TaskFollowedElsewhereError } from '../../src/node.js';
import { FileTaskStore } from '../../src/file-store.js';
import { benchCatalog, createTaskServer, type TaskServer } from '../../src/testing/index.js';

let server: TaskServer | undefined;
let dir: string | undefined;
const clients: TaskClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  server = undefined;
});

async function env(): Promise<{
  process: (leaseMs?: number) => { client: TaskClient; store: FileTaskStore };
}> {
  server = await createTaskServer({ inlineBudgetMs: 0, pollIntervalMs: 50, catalog: benchCatalog().catalog });
  dir = await mkdtemp(join(tmpdir(), 'leases-'));
  const url = server.url;
  const at = dir;
  return {
    process: (leaseMs?: number) => {
      const store = new FileTaskStore(at, leaseMs === undefined ? {} : { leaseMs });
      const client = new TaskClient({ transport: new StreamableHttpTransport(url), store });
      clients.push(client);
      return { client, store };
    },
  };
}

/** Gaps between consecutive `tasks/get` of a task shorter than the poll interval (server clock). */
function early(times: number[], floorMs: number): number {
  return times.slice(1).filter((t, i) => t - (times[i] ?? 0) < floorMs - 1).length;
}

describe('one follower per task across processes sharing a FileTaskStore', () => {
  it('a second process neither attaches nor resumes a task another follows: it names the holder and sends nothing', async () => {
    const e = await env();
    const a = e.process();
    const b = e.process();
    const start = await a.client.startTool('sleep_ms', { ms: 600 });
    if (start.resultType !== 'task') throw new Error('expected a task');
    const taskId = start.task.taskId;
    await new Promise((r) => setTimeout(r, 120)); // a's lease is taken with its first poll
    const pollsBefore = server!.stats.taskGetTimes(taskId).length;
    const attached = await b.client.task(taskId).catch((error: unknown) => error);
    expect(attached).toBeInstanceOf(TaskFollowedElsewhereError);
    expect(attached).toMatchObject({ code: 'TASK_FOLLOWED_ELSEWHERE', taskId });
    expect((attached as TaskFollowedElsewhereError).holder).toMatch(new RegExp(`:${process.pid}:`));
    const resumed = await b.client.resume(taskId);
    await expect(resumed.result()).rejects.toBeInstanceOf(TaskFollowedElsewhereError);
    expect(server!.stats.taskGetTimes(taskId).length - pollsBefore).toBeLessThanOrEqual(3); // a's polls only
    await start.task.result();
    expect(early(server!.stats.taskGetTimes(taskId), 50)).toBe(0);
  });

  it('after the holder closes (its lease released) another process resumes and follows the task', async () => {
    const e = await env();
    const a = e.process();
    const start = await a.client.startTool('sleep_ms', { ms: 500 });
    if (start.resultType !== 'task') throw new Error('expected a task');
    const taskId = start.task.taskId;
    await new Promise((r) => setTimeout(r, 120));
    await a.client.close();
    const b = e.process();
    const handle = await b.client.resume(taskId);
    await expect(handle.result()).resolves.toMatchObject({ structuredContent: { ms: 500 } });
  });

  it('a holder that crashed (its lease never renewed) is taken over once the lease expires', async () => {
    const e = await env();
    const a = e.process();
    const start = await a.client.startTool('sleep_ms', { ms: 400 }, { onAbort: 'detach' });
    if (start.resultType !== 'task') throw new Error('expected a task');
    const taskId = start.task.taskId;
    await a.client.close(); // released…
    const crashed = new FileTaskStore(dir!, { leaseMs: 300 });
    const taken = await crashed.leases.acquire(new StreamableHttpTransport(server!.url).serverKey, taskId); // …then held by a "process" that dies
    expect('lease' in taken).toBe(true);
    const b = e.process();
    const refused = await b.client.task(taskId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TaskFollowedElsewhereError);
    await new Promise((r) => setTimeout(r, 350)); // the dead holder's lease expires
    const handle = await b.client.task(taskId);
    await expect(handle.result()).resolves.toMatchObject({ structuredContent: { ms: 400 } });
  });
});
