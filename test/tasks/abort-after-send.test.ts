/**
 * Behaviours 3 and 9: work we may have started is never orphaned. An abort after the creation request left keeps
 * reading its response; a malformed creation result that still names a task is cancelled or recorded.
 * (MCP 2026-07-28 basic/patterns/cancellation; ext-tasks § Task Cancellation)
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidResponseError, OutcomeUnknownError, TaskDetachedError } from '../../src/index.js';
import { DEFAULT_ABORT_GRACE_MS } from '../../src/tasks/abort-grace.js';
import { AbortableTransport, created, deferred, detailed, flush, outcome } from '../helpers/unit-fixtures.js';
import { setup, T0 } from '../helpers/engine-setup.js';

describe('behaviour 3: an abort after the creation request left never orphans a task (ext-tasks § Task Cancellation)', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it("behaviour 3: onAbort 'cancel': the response is still read; its task gets one tasks/cancel; the rejection is the abort reason with the taskId", async () => {
    const gate = deferred<Record<string, unknown>>();
    const { transport, client } = setup(
      (m) => (m === 'tools/call' ? gate.promise : m === 'tasks/cancel' ? {} : detailed()),
      {},
      AbortableTransport,
    );
    const controller = new AbortController();
    const reason = new Error('user gave up');
    const done = outcome(client.callTool('job', {}, { signal: controller.signal }));
    await flush();
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(100);
    gate.resolve(created());
    await vi.advanceTimersByTimeAsync(100);
    expect(done.error).toBe(reason);
    expect((done.error as { taskId?: string }).taskId).toBe('t1');
    expect(transport.of('tasks/cancel').map((s) => s.message.params?.taskId)).toEqual(['t1']);
  });

  it("behaviour 3: onAbort 'detach': the late task is recorded in the store, not cancelled", async () => {
    const gate = deferred<Record<string, unknown>>();
    const { transport, client, store } = setup(
      (m) => (m === 'tools/call' ? gate.promise : detailed()),
      {},
      AbortableTransport,
    );
    const controller = new AbortController();
    const done = outcome(client.callTool('job', {}, { signal: controller.signal, onAbort: 'detach' }));
    await flush();
    const reason = new Error('detach');
    controller.abort(reason);
    gate.resolve(created());
    await vi.advanceTimersByTimeAsync(100);
    expect(done.error).toBeInstanceOf(TaskDetachedError); // with a store too: one shape for a detached call
    expect(done.error).toMatchObject({ taskId: 't1', cause: reason });
    expect(transport.of('tasks/cancel')).toHaveLength(0);
    expect((await store.get('t1'))?.taskId).toBe('t1');
    await client.close();
  });

  it('behaviour 3: no response within the abort grace → OutcomeUnknownError', async () => {
    const { client } = setup(
      (m) => (m === 'tools/call' ? new Promise<never>(() => undefined) : detailed()),
      {},
      AbortableTransport,
    );
    const controller = new AbortController();
    const reason = new Error('stop');
    const done = outcome(client.callTool('job', {}, { signal: controller.signal }));
    await flush();
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(DEFAULT_ABORT_GRACE_MS - 1);
    expect(done.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done.error).toBeInstanceOf(OutcomeUnknownError);
    expect((done.error as OutcomeUnknownError).cause).toBe(reason);
  });

  it('behaviour 3: 500 calls aborted during their creation burst leave zero tasks that nobody cancelled or recorded', async () => {
    let n = 0;
    const { transport, client } = setup(
      (m) => {
        if (m === 'tasks/cancel') return {};
        if (m === 'tasks/get') return detailed();
        const id = `task-${n++}`;
        return new Promise((resolve) => setTimeout(() => resolve(created({ taskId: id })), (n * 7) % 400));
      },
      {},
      AbortableTransport,
    );
    const controller = new AbortController();
    const calls = Array.from({ length: 500 }, () =>
      outcome(client.callTool('job', {}, { signal: controller.signal })),
    );
    await vi.advanceTimersByTimeAsync(200);
    controller.abort(new Error('burst over'));
    await vi.advanceTimersByTimeAsync(DEFAULT_ABORT_GRACE_MS + 1_000);
    expect(calls.every((c) => c.settled)).toBe(true);
    const cancelled = new Set(transport.of('tasks/cancel').map((s) => s.message.params?.taskId));
    const createdIds = Array.from({ length: n }, (_, i) => `task-${i}`);
    expect(n).toBe(500);
    expect(createdIds.filter((id) => !cancelled.has(id))).toEqual([]);
    await client.close();
  });
});

describe('behaviour 9: a malformed creation result that names a task is not orphaned (ext-tasks § Task Creation)', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('behaviour 9: a wrong-typed field beside a usable taskId → InvalidResponseError carrying the taskId, and tasks/cancel is sent', async () => {
    const { transport, client } = setup((m) =>
      m === 'tools/call' ? created({ ttlMs: 'ten minutes' }) : m === 'tasks/cancel' ? {} : detailed(),
    );
    const error = await client.callTool('job').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).taskId).toBe('t1');
    await flush();
    expect(transport.of('tasks/cancel').map((s) => s.message.params?.taskId)).toEqual(['t1']);
  });

  it("behaviour 9: with onAbort 'detach' the malformed task is recorded in the store instead", async () => {
    const { transport, client, store } = setup((m) =>
      m === 'tools/call' ? created({ status: 42 }) : detailed(),
    );
    const error = await client.callTool('job', {}, { onAbort: 'detach' }).catch((e: unknown) => e);
    expect((error as InvalidResponseError).taskId).toBe('t1');
    await flush();
    expect(transport.of('tasks/cancel')).toHaveLength(0);
    expect((await store.get('t1'))?.taskId).toBe('t1');
  });
});
