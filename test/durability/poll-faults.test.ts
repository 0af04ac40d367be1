/**
 * Transient faults while polling: 429 + `Retry-After: 2` and 503 bursts on
 * `tasks/get`, injected by a fault proxy that also records when each poll arrived. The client waits as told, never
 * polls a task sooner than `pollIntervalMs`, and the tasks still resolve. Past the retry budget the wait rejects with
 * the last transport error and the record stays resumable.
 */
import { describe, expect, it } from 'vitest';
import {
  HttpError,
  MemoryTaskStore,
  StreamableHttpTransport,
  type TaskClient,
  type TaskClientOptions,
  type TaskHandle,
} from '../../src/index.js';
import { serviceUnavailable, tooManyRequests } from '../helpers/fault-proxy.js';
import { textOf, useProxiedServer } from './fixtures.js';

const POLL_MS = 200;

const env = useProxiedServer({ pollIntervalMs: POLL_MS, ttlMs: 60_000, inlineBudgetMs: 20 });
const newClient = (options: Partial<TaskClientOptions> = {}): TaskClient => env.newClient(options);

describe('polling through 429 and 503', () => {
  it('honours Retry-After for the whole server, backs off on 503, keeps the floor, and resolves', async () => {
    // What the client did, seen from the client: when each tasks/get left and when its answer came back. (The
    // proxy's arrival times would also count a poll that was already on the wire when the 429 came back.) The times
    // are Date.now(), the clock the client schedules on: it starts a poll only once Date.now() reached the due time
    // it set after reading the previous answer, so each gap below is a lower bound the client guarantees exactly,
    // whatever the machine's load (a timer that fires early polls nothing).
    const log: Array<{ taskId: string; sentAt: number; answeredAt: number; status: number }> = [];
    const fetchLogged: typeof fetch = async (input, init) => {
      const message = JSON.parse(String(init?.body)) as { method?: string; params?: { taskId?: string } };
      const sentAt = Date.now();
      const res = await fetch(input, init);
      if (message.method === 'tasks/get')
        log.push({
          taskId: String(message.params?.taskId),
          sentAt,
          answeredAt: Date.now(),
          status: res.status,
        });
      return res;
    };
    const client = newClient({
      transport: new StreamableHttpTransport(env.proxy.url, { fetch: fetchLogged }),
    });
    let a = '';
    let b = '';
    // A's 2nd poll gets 429 + Retry-After: 2; its 4th to 6th polls get 503.
    env.proxy.rule({
      method: 'tasks/get',
      when: (x) => x.taskId === a && x.index === 1,
      action: tooManyRequests(2),
    });
    env.proxy.rule({
      method: 'tasks/get',
      when: (x) => x.taskId === a && x.index >= 3 && x.index <= 5,
      action: serviceUnavailable(),
    });

    const first = client.callTool('reindex_corpus', { documents: 1_500 }, { onTask: (h) => (a = h.taskId) }); // ≈ 3 s of work
    await new Promise((r) => setTimeout(r, POLL_MS / 2)); // B's polls fall between A's
    const second = client.callTool('reindex_corpus', { documents: 1_000 }, { onTask: (h) => (b = h.taskId) });
    const [ra, rb] = await Promise.all([first, second]);
    expect(textOf(ra)).toBe('Indexed 1500 documents');
    expect(textOf(rb)).toBe('Indexed 1000 documents');

    const polls = env.proxy.of('tasks/get', a);
    expect(polls.map((p) => p.action).slice(0, 7)).toEqual([
      'forward',
      'respond',
      'forward',
      'respond',
      'respond',
      'respond',
      'forward',
    ]);

    // Retry-After: 2 → once the 429 is back, no tasks/get leaves for any task of this server for 2 s.
    const ofA = log.filter((p) => p.taskId === a);
    const tooMany = ofA.find((p) => p.status === 429)!.answeredAt;
    // One poll of the other task may already have been leaving while the 429 was being read (the client cannot
    // know before it has read it): at most that one, never one of A's.
    const during = log.filter((p) => p.sentAt > tooMany && p.sentAt < tooMany + 2_000);
    expect(during.filter((p) => p.taskId === a)).toEqual([]);
    expect(during.length).toBeLessThanOrEqual(1);
    const afterTooMany = ofA.find((p) => p.sentAt > tooMany)!;
    expect(afterTooMany.sentAt - tooMany).toBeGreaterThanOrEqual(2_000);

    // Never two polls of one task closer than pollIntervalMs (from the previous answer); 503s back off exponentially.
    for (const id of [a, b]) {
      const mine = log.filter((p) => p.taskId === id);
      for (let i = 1; i < mine.length; i++)
        expect(mine[i]!.sentAt - mine[i - 1]!.answeredAt).toBeGreaterThanOrEqual(POLL_MS);
    }
    const burst = ofA
      .slice(3, 7)
      .map((p, i, all) => (i === 0 ? 0 : p.sentAt - all[i - 1]!.answeredAt))
      .slice(1);
    expect(burst[0]).toBeGreaterThanOrEqual(POLL_MS);
    expect(burst[1]).toBeGreaterThanOrEqual(2 * POLL_MS);
    expect(burst[2]).toBeGreaterThanOrEqual(4 * POLL_MS);

    // The server saw only the forwarded polls.
    expect(env.server.stats.taskGetTimes(a)).toHaveLength(polls.filter((p) => p.action === 'forward').length);
  });

  it('past maxPollRetries rejects with the last transport error, keeps the record resumable, and resume finishes it', async () => {
    const store = new MemoryTaskStore();
    const client = newClient({ store });
    const remove = env.proxy.rule({ method: 'tasks/get', action: serviceUnavailable() });
    const errors: unknown[] = [];
    let handle: TaskHandle<unknown> | undefined;
    const error = await client
      .callTool(
        'reindex_corpus',
        { documents: 500 },
        {
          onTask: (h) => {
            handle = h;
            h.on('error', (e) => errors.push(e));
          },
        },
      )
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(503);
    expect(env.proxy.of('tasks/get')).toHaveLength(6); // the first poll and 5 retries
    expect(errors.length).toBeGreaterThanOrEqual(1);
    const taskId = handle!.taskId;
    const record = await store.get(taskId);
    expect(record).toBeDefined();
    expect(record!.outcome).toBeUndefined();

    remove();
    const resumed = await client.resume(taskId);
    expect(textOf((await resumed.result()) as { content: Array<Record<string, unknown>> })).toBe(
      'Indexed 500 documents',
    );
    await expect.poll(async () => (await store.get(taskId))?.outcome?.status).toBe('completed');
    expect(env.server.stats.count('tools/call')).toBeGreaterThanOrEqual(1);
  });
});

describe('resuming through faults', () => {
  it('resumeAll() re-attaches every task even when one first poll meets a 503', async () => {
    const store = new MemoryTaskStore();
    const first = newClient({ store });
    const ids: string[] = [];
    for (const documents of [300, 400]) {
      const start = await first.startTool('reindex_corpus', { documents });
      if (start.resultType !== 'task') throw new Error('expected a task');
      ids.push(start.task.taskId);
    }
    await first.close();
    env.proxy.rule({
      method: 'tasks/get',
      when: (x) => x.taskId === ids[0],
      action: serviceUnavailable(),
      times: 1,
    });
    const handles = await newClient({ store }).resumeAll();
    expect(handles.map((h) => h.taskId).sort()).toEqual([...ids].sort());
    const results = await Promise.all(handles.map((h) => h.result()));
    expect(results.map((r) => textOf(r)).sort()).toEqual(['Indexed 300 documents', 'Indexed 400 documents']);
  });
});
