/**
 * Behaviours 7 and 8: a task's expiry is computed from the client's clock only, once, and while a task waits for
 * input its TTL keeps burning (ext-tasks § Task Polling: `ttlMs`).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  TaskExpiredError,
  TaskNotFoundError,
  type ExpiringEvent,
  type InputRequiredEvent,
} from '../../src/index.js';
import { created, detailed, elicit, outcome, queue, rpcError } from '../helpers/unit-fixtures.js';
import { setup, startTask, T0 } from '../helpers/engine-setup.js';

const iso = (ms: number): string => new Date(ms).toISOString();

describe('behaviour 7: expiresAt from the client clock only (ext-tasks § Task Polling)', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('behaviour 7: attach to a task from a server two hours behind: expiresAt = receipt + ttlMs − (lastUpdatedAt − createdAt); a -32602 is "unknown", not "expired"', async () => {
    const serverNow = T0 - 2 * 3_600_000;
    const get = queue([
      detailed({ createdAt: iso(serverNow - 10_000), lastUpdatedAt: iso(serverNow), ttlMs: 60_000 }),
      rpcError(-32602, 'gone'),
    ]);
    const { client } = setup(() => get());
    const handle = await client.task('t1');
    expect(handle.expiresAt).toBe(T0 + 50_000);
    const done = outcome(handle.result());
    await vi.advanceTimersByTimeAsync(1_000);
    expect(done.error).toBeInstanceOf(TaskNotFoundError);
    expect(done.error).not.toBeInstanceOf(TaskExpiredError);
  });

  it('behaviour 7: the age a CreateTaskResult reports is subtracted from the TTL at receipt', async () => {
    const { client } = setup((m) =>
      m === 'tools/call'
        ? created({ createdAt: '2026-08-01T09:00:00Z', lastUpdatedAt: '2026-08-01T09:00:30Z', ttlMs: 60_000 })
        : detailed(),
    );
    const handle = await startTask(client);
    expect(handle.expiresAt).toBe(T0 + 30_000);
    await client.close();
  });

  it('behaviour 7: a task lost after the locally computed expiry is TaskExpiredError at that time', async () => {
    const get = queue([
      detailed({ createdAt: iso(T0 - 7_200_000), lastUpdatedAt: iso(T0 - 7_200_000 + 1_000), ttlMs: 3_000 }),
      rpcError(-32602, 'gone'),
    ]);
    const { client } = setup(() => get());
    const handle = await client.task('t1', { pollIntervalMs: 2_500 });
    expect(handle.expiresAt).toBe(T0 + 2_000);
    const done = outcome(handle.result());
    await vi.advanceTimersByTimeAsync(2_500);
    expect(done.error).toBeInstanceOf(TaskExpiredError);
    expect((done.error as TaskExpiredError).expiredAt).toBe(T0 + 2_000);
  });
});

describe('behaviour 8: while a task waits for input its TTL is burning (ext-tasks § Task Polling, § Task Update Requests)', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  const asking = (m: string) =>
    m === 'tools/call'
      ? created({ ttlMs: 100_000 })
      : detailed({ ttlMs: 100_000, status: 'input_required', inputRequests: { ask: elicit('?') } });

  it('behaviour 8: each inputRequired event carries expiresAt', async () => {
    const { client } = setup(asking);
    const events: InputRequiredEvent[] = [];
    client.on('inputRequired', (e) => events.push(e));
    await startTask(client);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(events[0]?.expiresAt).toBe(T0 + 100_000);
    await client.close();
  });

  it('behaviour 8: one expiring event on handle and client when a task still input_required has less than the margin left', async () => {
    const { client } = setup(asking); // the margin: a fifth of the TTL;
    const onClient: ExpiringEvent[] = [];
    client.on('expiring', (e) => onClient.push(e));
    const handle = await startTask(client);
    const onHandle: ExpiringEvent[] = [];
    handle.on('expiring', (e) => onHandle.push(e));
    await vi.advanceTimersByTimeAsync(79_999);
    expect(onHandle).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(onHandle).toHaveLength(1);
    expect(onClient).toHaveLength(1);
    expect(onHandle[0]).toMatchObject({ taskId: 't1', expiresAt: T0 + 100_000 });
    await vi.advanceTimersByTimeAsync(15_000);
    expect(onHandle).toHaveLength(1);
    await client.close();
  });

  it('behaviour 8: a TTL past the 2^31−1 ms timer limit fires expiring at its time, not after 1 ms (no timer overflow)', async () => {
    const ttlMs = 10 * 2 ** 31;
    const { client } = setup(
      (m) =>
        m === 'tools/call'
          ? created({ ttlMs })
          : detailed({
              ttlMs,
              pollIntervalMs: ttlMs,
              status: 'input_required',
              inputRequests: { ask: elicit('?') },
            }),
      { polling: { maxIntervalMs: 1_000 } },
    );
    const seen: ExpiringEvent[] = [];
    client.on('expiring', (e) => seen.push(e));
    const handle = await startTask(client);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(handle.status).toBe('input_required');
    await vi.advanceTimersByTimeAsync(ttlMs * 0.8 - 1_001); // expiring at 80 % of the TTL
    expect(seen).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ taskId: 't1', expiresAt: T0 + ttlMs });
    await client.close();
  });

  it('behaviour 8: no expiring event for a task that is merely working', async () => {
    const { client } = setup((m) =>
      m === 'tools/call' ? created({ ttlMs: 100_000 }) : detailed({ ttlMs: 100_000 }),
    );
    const seen: ExpiringEvent[] = [];
    client.on('expiring', (e) => seen.push(e));
    await startTask(client);
    await vi.advanceTimersByTimeAsync(95_000);
    expect(seen).toHaveLength(0);
    await client.close();
  });
});
