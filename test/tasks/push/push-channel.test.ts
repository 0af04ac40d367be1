/**
 * The push channel with fake timers: debounced new streams for the ids no stream asks for, one opening at a time, the
 * take-over at the stream cap, acknowledged tasks on their
 * safety poll and the rest at the floor, notifications applied like tasks/get results, backoff after a drop, no
 * retries against a server without subscriptions/listen.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpError, StreamEndedError } from '../../../src/errors.js';
import type { JsonRpcNotification } from '../../../src/protocol/jsonrpc.js';
import type { DetailedTask } from '../../../src/protocol/tasks.js';
import {
  DEFAULT_PUSH_DEBOUNCE_MS,
  PushChannel,
  type PushCadence,
  type PushTarget,
} from '../../../src/tasks/push/push-channel.js';

interface Listen {
  taskIds: readonly string[];
  push: (n: JsonRpcNotification) => void;
  signal: AbortSignal;
  end: () => void;
  drop: (error: unknown) => void;
}

function setup(options: { maxTaskIds?: number; maxStreams?: number } = {}) {
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
  const ack = (l: Listen, ids: string[]) =>
    l.push({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: ids } },
    });
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
  params: {
    _meta: { 'io.modelcontextprotocol/subscriptionId': 1 },
    taskId,
    status,
    createdAt: '2026-01-01T00:00:00Z',
    lastUpdatedAt: '2026-01-01T00:00:00Z',
    ttlMs: 60_000,
    pollIntervalMs: 1_000,
    ...extra,
  },
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
    expect([...s.cadence]).toEqual([
      ['a', 'push'],
      ['b', 'poll'],
    ]);
    expect([...s.channel.acknowledged]).toEqual(['a']);
    s.listens[0]!.push(task('a', 'working'));
    s.listens[0]!.push(task('a', 'completed', { result: { content: [] } }));
    s.listens[0]!.push(task('unfollowed', 'working'));
    expect(s.applied.map((t) => [t.taskId, t.status])).toEqual([
      ['a', 'working'],
      ['a', 'completed'],
    ]);
    s.channel.close();
    expect(s.cadence.get('a')).toBe('poll');
  });

  it('a malformed notification is reported, never applied, and the stream stays open', async () => {
    const s = setup();
    s.followed.push('a');
    s.channel.changed();
    await vi.advanceTimersByTimeAsync(DEFAULT_PUSH_DEBOUNCE_MS);
    s.listens[0]!.push(task('a', 'completed')); // completed without result
    s.listens[0]!.push({
      jsonrpc: '2.0',
      method: 'notifications/tasks',
      params: { __proto__: { taskId: 'a' } } as never,
    });
    expect(s.applied).toEqual([]);
    expect(s.errors).toHaveLength(2);
    expect(s.listens[0]!.signal.aborted).toBe(false);
    s.channel.close();
  });

  it('a new task gets a stream of its own; open streams are kept; a stream whose tasks all ended is closed', async () => {
    const s = setup();
    await s.follow('a');
    s.ack(s.listens[0]!, ['a']);
    await s.follow('b');
    expect(s.listens[1]!.taskIds).toEqual(['b']); // only the id no stream asks for
    s.ack(s.listens[1]!, ['b']);
    expect(s.listens[0]!.signal.aborted).toBe(false);
    expect([...s.cadence]).toEqual([
      ['a', 'push'],
      ['b', 'push'],
    ]);
    expect(s.channel.streamCount).toBe(2);
    s.listens[0]!.push(task('a', 'working', { statusMessage: 'on the first' }));
    s.listens[1]!.push(task('b', 'working', { statusMessage: 'on the second' }));
    s.listens[1]!.push(task('a', 'working', { statusMessage: 'not asked for here' }));
    expect(s.applied.map((t) => t.statusMessage)).toEqual(['on the first', 'on the second']);
    s.followed.splice(0, 1); // 'a' ended: its stream is closed, the other stays
    s.channel.changed();
    await vi.advanceTimersByTimeAsync(DEFAULT_PUSH_DEBOUNCE_MS);
    expect(s.listens[0]!.signal.aborted).toBe(true);
    expect(s.listens[1]!.signal.aborted).toBe(false);
    s.followed.splice(0);
    s.channel.changed();
    await vi.advanceTimersByTimeAsync(DEFAULT_PUSH_DEBOUNCE_MS);
    expect(s.listens[1]!.signal.aborted).toBe(true);
    expect(s.listens).toHaveLength(2);
    expect(s.channel.streamCount).toBe(0);
    expect(s.errors).toEqual([]);
  });

  it('at the stream cap a new stream takes over the smallest ones, which close once it is acknowledged', async () => {
    const s = setup({ maxStreams: 2 });
    await s.follow('a', 'b', 'c');
    s.ack(s.listens[0]!, ['a', 'b', 'c']);
    await s.follow('d');
    s.ack(s.listens[1]!, ['d']);
    await s.follow('e'); // two open: the new one also asks for the smallest stream's 'd'
    expect(s.listens.map((l) => l.taskIds)).toEqual([['a', 'b', 'c'], ['d'], ['e', 'd']]);
    s.listens[1]!.push(task('d', 'working', { statusMessage: 'in the gap' })); // kept until the new ack
    expect(s.applied.map((t) => t.statusMessage)).toEqual(['in the gap']);
    s.ack(s.listens[2]!, ['e']); // 'd' omitted by the new stream: back at the floor
    expect(s.listens[1]!.signal.aborted).toBe(true);
    expect(s.listens[0]!.signal.aborted).toBe(false);
    expect(s.channel.streamCount).toBe(2);
    expect([...s.cadence]).toEqual([
      ['a', 'push'],
      ['b', 'push'],
      ['c', 'push'],
      ['d', 'poll'],
      ['e', 'push'],
    ]);
    expect([...s.channel.acknowledged].sort()).toEqual(['a', 'b', 'c', 'e']);
    s.channel.close();
    expect(s.listens.every((l) => l.signal.aborted)).toBe(true);
    expect(s.channel.acknowledged.size).toBe(0);
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
    expect(s.listens.map((l) => l.taskIds)).toEqual([['a'], ['b', 'c']]);
    expect([...s.cadence]).toEqual([['a', 'push']]);
    s.ack(s.listens[1]!, ['b']); // 'c' omitted: it stays at the floor, and asks for no new stream
    expect(s.listens[0]!.signal.aborted).toBe(false);
    expect([...s.cadence]).toEqual([
      ['a', 'push'],
      ['b', 'push'],
      ['c', 'poll'],
    ]);
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

  it('a new stream that fails before its acknowledgement: the open ones stay, its ids are asked for after the backoff', async () => {
    const s = setup();
    await s.follow('a');
    s.ack(s.listens[0]!, ['a']);
    await s.follow('b');
    s.listens[1]!.drop(new StreamEndedError('subscriptions/listen'));
    await vi.advanceTimersByTimeAsync(0);
    expect(s.listens[0]!.signal.aborted).toBe(false);
    expect(s.cadence.get('a')).toBe('push');
    expect(s.errors).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(499);
    expect(s.listens).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.listens[2]!.taskIds).toEqual(['b']);
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
