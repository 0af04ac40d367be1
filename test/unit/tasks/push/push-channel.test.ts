/**
 * The push channel with fake timers: debounced re-opening as the followed set changes, acknowledged tasks on their
 * safety poll and the rest at the floor, notifications applied like tasks/get results, backoff after a drop, no
 * retries against a server without subscriptions/listen.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpError, StreamEndedError } from '../../../../src/errors.js';
import type { JsonRpcNotification } from '../../../../src/protocol/jsonrpc.js';
import type { DetailedTask } from '../../../../src/protocol/tasks.js';
import { DEFAULT_PUSH_DEBOUNCE_MS, PushChannel, type PushCadence, type PushTarget } from '../../../../src/tasks/push/push-channel.js';

interface Listen {
  taskIds: readonly string[];
  push: (n: JsonRpcNotification) => void;
  signal: AbortSignal;
  end: () => void;
  drop: (error: unknown) => void;
}

function setup(options: { maxTaskIds?: number } = {}) {
  const followed: string[] = [];
  const applied: DetailedTask[] = [];
  const cadence = new Map<string, PushCadence>();
  const errors: unknown[] = [];
  const listens: Listen[] = [];
  const target: PushTarget = {
    followedTaskIds: () => followed,
    apply: (task) => applied.push(task),
    setCadence: (id, c) => cadence.set(id, c),
    onError: (e) => errors.push(e),
  };
  const channel = new PushChannel(
    target,
    (taskIds, push, signal) =>
      new Promise((resolve, reject) => {
        listens.push({ taskIds, push, signal, end: () => resolve(undefined), drop: reject });
        signal.addEventListener('abort', () => reject(signal.reason));
      }),
    { random: () => 0, ...options },
  );
  const ack = (l: Listen, ids: string[]) => l.push({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: ids } } });
  /** Follows `ids` too and lets the debounce run out. */
  const follow = async (...ids: string[]) => {
    followed.push(...ids);
    channel.changed();
    await vi.advanceTimersByTimeAsync(DEFAULT_PUSH_DEBOUNCE_MS);
  };
  return { followed, applied, cadence, errors, listens, channel, ack, follow };
}

const task = (taskId: string, status: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0' as const,
  method: 'notifications/tasks',
  params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 1 }, taskId, status, createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:00Z', ttlMs: 60_000, pollIntervalMs: 1_000, ...extra },
});

describe('PushChannel', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('debounces changes into one listen with every followed id', async () => {
    const s = setup();
    for (const id of ['a', 'b', 'c']) {
      s.followed.push(id);
      s.channel.changed();
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(s.listens).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(DEFAULT_PUSH_DEBOUNCE_MS);
    expect(s.listens.map((l) => l.taskIds)).toEqual([['a', 'b', 'c']]);
    s.channel.close();
  });

  it('acknowledged tasks go to the safety poll, omitted ones stay at the floor; notifications are applied', async () => {
    const s = setup();
    s.followed.push('a', 'b');
    s.channel.changed();
    await vi.advanceTimersByTimeAsync(DEFAULT_PUSH_DEBOUNCE_MS);
    s.ack(s.listens[0]!, ['a', 'zzz']);
    expect([...s.cadence]).toEqual([['a', 'push'], ['b', 'poll']]);
    expect([...s.channel.acknowledged]).toEqual(['a']);
    s.listens[0]!.push(task('a', 'working'));
    s.listens[0]!.push(task('a', 'completed', { result: { content: [] } }));
    s.listens[0]!.push(task('unfollowed', 'working'));
    expect(s.applied.map((t) => [t.taskId, t.status])).toEqual([['a', 'working'], ['a', 'completed']]);
    s.channel.close();
    expect(s.cadence.get('a')).toBe('poll');
  });

  it('a malformed notification is reported, never applied, and the stream stays open', async () => {
    const s = setup();
    s.followed.push('a');
    s.channel.changed();
    await vi.advanceTimersByTimeAsync(DEFAULT_PUSH_DEBOUNCE_MS);
    s.listens[0]!.push(task('a', 'completed')); // completed without result
    s.listens[0]!.push({ jsonrpc: '2.0', method: 'notifications/tasks', params: { __proto__: { taskId: 'a' } } as never });
    expect(s.applied).toEqual([]);
    expect(s.errors).toHaveLength(2);
    expect(s.listens[0]!.signal.aborted).toBe(false);
    s.channel.close();
  });

  it('re-opens for a new task, keeping the old stream until the new one is acknowledged; closes when nothing is followed', async () => {
    const s = setup();
    await s.follow('a');
    s.ack(s.listens[0]!, ['a']);
    await s.follow('b');
    expect(s.listens[1]!.taskIds).toEqual(['a', 'b']);
    expect(s.listens[0]!.signal.aborted).toBe(false); // make before break
    s.listens[0]!.push(task('a', 'working', { statusMessage: 'half way' })); // a change in the gap is not lost
    expect(s.applied.map((t) => t.statusMessage)).toEqual(['half way']);
    expect(s.cadence.get('a')).toBe('push'); // still covered by the old stream
    s.ack(s.listens[1]!, ['a', 'b']);
    expect(s.listens[0]!.signal.aborted).toBe(true);
    expect([...s.cadence]).toEqual([['a', 'push'], ['b', 'push']]);
    s.listens[0]!.push(task('a', 'working', { statusMessage: 'late' })); // the old stream, once left, is ignored
    expect(s.applied).toHaveLength(1);
    s.followed.splice(0);
    s.channel.changed();
    await vi.advanceTimersByTimeAsync(DEFAULT_PUSH_DEBOUNCE_MS);
    expect(s.listens[1]!.signal.aborted).toBe(true);
    expect(s.listens).toHaveLength(2);
    expect(s.errors).toEqual([]);
  });

  it('one stream opening at a time: tasks added before its acknowledgement are asked for when it arrives', async () => {
    const s = setup();
    await s.follow('a');
    await s.follow('b');
    await s.follow('c');
    await vi.advanceTimersByTimeAsync(10 * DEFAULT_PUSH_DEBOUNCE_MS);
    expect(s.listens.map((l) => l.taskIds)).toEqual([['a']]); // not replaced while it waits for its ack
    expect(s.listens[0]!.signal.aborted).toBe(false);
    s.ack(s.listens[0]!, ['a']);
    expect(s.listens).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(0); // the waiting tasks already waited a debounce: asked for at once
    expect(s.listens.map((l) => l.taskIds)).toEqual([['a'], ['a', 'b', 'c']]);
    expect([...s.cadence]).toEqual([['a', 'push']]);
    s.listens[0]!.push(task('a', 'working', { statusMessage: 'old stream' })); // kept until the new ack
    expect(s.applied.map((t) => t.statusMessage)).toEqual(['old stream']);
    s.ack(s.listens[1]!, ['a', 'b']); // 'c' omitted: it stays at the floor, and asks for no new stream
    expect(s.listens[0]!.signal.aborted).toBe(true);
    expect([...s.cadence]).toEqual([['a', 'push'], ['b', 'push'], ['c', 'poll']]);
    await vi.advanceTimersByTimeAsync(10 * DEFAULT_PUSH_DEBOUNCE_MS);
    expect(s.listens).toHaveLength(2);
    s.channel.close();
    expect(s.listens[1]!.signal.aborted).toBe(true);
    expect([...s.cadence.values()]).toEqual(['poll', 'poll', 'poll']);
  });

  it('an unacknowledged stream that drops lets the next one open (after the backoff) with every task waiting', async () => {
    const s = setup();
    await s.follow('a');
    await s.follow('b'); // waits behind the opening stream
    s.listens[0]!.drop(new StreamEndedError('subscriptions/listen'));
    await vi.advanceTimersByTimeAsync(499);
    expect(s.listens).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.listens.map((l) => l.taskIds)).toEqual([['a'], ['a', 'b']]);
    expect(s.errors).toHaveLength(1);
    s.channel.close();
  });

  it('tasks that ended re-open nothing: the stream asked for them stays', async () => {
    const s = setup();
    await s.follow('a', 'b');
    s.ack(s.listens[0]!, ['a', 'b']);
    s.followed.splice(0, 1); // 'a' ended
    s.channel.changed();
    await vi.advanceTimersByTimeAsync(10 * DEFAULT_PUSH_DEBOUNCE_MS);
    expect(s.listens).toHaveLength(1);
    expect(s.listens[0]!.signal.aborted).toBe(false);
    s.channel.close();
  });

  it('a new stream that fails before its acknowledgement ends the old one too and backs off', async () => {
    const s = setup();
    await s.follow('a');
    s.ack(s.listens[0]!, ['a']);
    await s.follow('b');
    s.listens[1]!.drop(new StreamEndedError('subscriptions/listen'));
    await vi.advanceTimersByTimeAsync(0);
    expect(s.listens[0]!.signal.aborted).toBe(true);
    expect(s.cadence.get('a')).toBe('poll');
    expect(s.errors).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(s.listens[2]!.taskIds).toEqual(['a', 'b']);
    s.channel.close();
  });

  it('bounds the ids in one listen', async () => {
    const s = setup({ maxTaskIds: 2 });
    s.followed.push('a', 'b', 'c');
    s.channel.changed();
    await vi.advanceTimersByTimeAsync(DEFAULT_PUSH_DEBOUNCE_MS);
    expect(s.listens[0]!.taskIds).toEqual(['a', 'b']);
    s.channel.close();
  });

  it('a dropped stream: tasks back at the floor, the error reported, re-opened with doubling backoff, reset by an ack', async () => {
    const s = setup();
    s.followed.push('a');
    s.channel.changed();
    await vi.advanceTimersByTimeAsync(DEFAULT_PUSH_DEBOUNCE_MS);
    s.ack(s.listens[0]!, ['a']);
    s.listens[0]!.drop(new StreamEndedError('subscriptions/listen'));
    await vi.advanceTimersByTimeAsync(0);
    expect(s.cadence.get('a')).toBe('poll');
    expect(s.errors[0]).toBeInstanceOf(StreamEndedError);
    await vi.advanceTimersByTimeAsync(499);
    expect(s.listens).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.listens).toHaveLength(2);
    s.listens[1]!.drop(new StreamEndedError('subscriptions/listen'));
    await vi.advanceTimersByTimeAsync(999);
    expect(s.listens).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.listens).toHaveLength(3);
    s.ack(s.listens[2]!, ['a']);
    s.listens[2]!.end(); // graceful close: re-opened after the first backoff step again
    await vi.advanceTimersByTimeAsync(500);
    expect(s.listens).toHaveLength(4);
    s.channel.close();
  });

  it('a server without subscriptions/listen: no retries, every task at the floor', async () => {
    const s = setup();
    s.followed.push('a');
    s.channel.changed();
    await vi.advanceTimersByTimeAsync(DEFAULT_PUSH_DEBOUNCE_MS);
    s.listens[0]!.drop(new McpError('subscriptions/listen', { code: -32601, message: 'Method not found' }));
    await vi.advanceTimersByTimeAsync(60_000);
    s.channel.changed();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(s.listens).toHaveLength(1);
    expect(s.channel.supported).toBe(false);
    expect(s.errors).toEqual([]);
  });
});
