/**
 * The tracker between the push channel and task handles (fake timers): acknowledged tasks move to the safety poll
 * (DEFAULT_SAFETY_POLL_MULTIPLE × the floor), a drop moves them back to the floor, pushed tasks reach their handle,
 * and a task that ends leaves the followed set without re-opening the stream.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JsonRpcNotification } from '../../../src/protocol/jsonrpc.js';
import type { DetailedTask } from '../../../src/protocol/tasks.js';
import {
  DEFAULT_PUSH_DEBOUNCE_MS,
  DEFAULT_SAFETY_POLL_MULTIPLE,
  PushTracker,
  type PushFollowable,
} from '../../../src/tasks/push/index.js';

class FakeHandle implements PushFollowable {
  done = false;
  readonly applied: DetailedTask[] = [];
  readonly multiples: number[] = [];
  constructor(readonly taskId: string) {}
  applyPushed(task: DetailedTask): void {
    this.applied.push(task);
    if (task.status === 'completed') this.done = true;
  }
  setPollMultiple(multiple: number): void {
    this.multiples.push(multiple);
  }
}

describe('PushTracker', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('safety poll for acknowledged tasks, an ended task re-opens nothing, floor after a drop', async () => {
    const streams: Array<{
      ids: readonly string[];
      push: (n: JsonRpcNotification) => void;
      drop: (e: unknown) => void;
      signal: AbortSignal;
    }> = [];
    const errors: unknown[] = [];
    const tracker = new PushTracker(
      (ids, push, signal) => new Promise((_resolve, drop) => streams.push({ ids, push, drop, signal })),
      (e) => errors.push(e),
      { random: () => 0 },
    );
    const a = new FakeHandle('a');
    const b = new FakeHandle('b');
    tracker.follow(a);
    tracker.follow(b);
    await vi.advanceTimersByTimeAsync(DEFAULT_PUSH_DEBOUNCE_MS);
    expect(streams[0]!.ids).toEqual(['a', 'b']);
    streams[0]!.push({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: ['a', 'b'] } },
    });
    expect(a.multiples).toEqual([DEFAULT_SAFETY_POLL_MULTIPLE]);
    streams[0]!.push({
      jsonrpc: '2.0',
      method: 'notifications/tasks',
      params: {
        taskId: 'a',
        status: 'completed',
        createdAt: 'x',
        lastUpdatedAt: 'x',
        ttlMs: null,
        pollIntervalMs: 1000,
        result: { content: [] },
      },
    });
    expect(a.applied.map((t) => t.status)).toEqual(['completed']);
    expect(tracker.followedTaskIds()).toEqual(['b']);
    await vi.advanceTimersByTimeAsync(DEFAULT_PUSH_DEBOUNCE_MS);
    expect(streams).toHaveLength(1); // an ended task needs no new stream: the server pushes nothing more for it
    expect(streams[0]!.signal.aborted).toBe(false);
    expect(b.multiples).toEqual([DEFAULT_SAFETY_POLL_MULTIPLE]);
    streams[0]!.drop(new Error('socket hang up'));
    await vi.advanceTimersByTimeAsync(0);
    expect(b.multiples).toEqual([DEFAULT_SAFETY_POLL_MULTIPLE, 1]); // back at the floor while the stream is down
    expect(errors).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(500); // first backoff step
    expect(streams[1]!.ids).toEqual(['b']);
    streams[1]!.push({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: ['b'] } },
    });
    expect(b.multiples).toEqual([DEFAULT_SAFETY_POLL_MULTIPLE, 1, DEFAULT_SAFETY_POLL_MULTIPLE]);
    tracker.close();
  });
});
