import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_JITTER_RATIO,
  DEFAULT_MAX_CONCURRENT_POLLS,
  MAX_JITTER_MS,
  PollScheduler,
  type Pollable,
} from '../../src/tasks/scheduler.js';
import { deferred, flush } from '../helpers/unit-fixtures.js';

/** A fake task: records the (fake) time of every poll; `hold` keeps polls in flight until released. */
class FakeItem implements Pollable {
  readonly polls: number[] = [];
  inflight = 0;
  maxInflight = 0;
  hold = false;
  readonly #pending: Array<() => void> = [];
  onPoll: (() => void) | undefined;
  constructor(readonly serverKey = 'srv-a') {}

  async poll(): Promise<void> {
    this.polls.push(Date.now());
    this.inflight++;
    this.maxInflight = Math.max(this.maxInflight, this.inflight);
    this.onPoll?.();
    if (this.hold) {
      const d = deferred<void>();
      this.#pending.push(() => d.resolve());
      await d.promise;
    }
    this.inflight--;
  }

  release(): void {
    for (const done of this.#pending.splice(0)) done();
  }
}

describe('PollScheduler', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('exports its defaults', () => {
    expect([DEFAULT_MAX_CONCURRENT_POLLS, DEFAULT_JITTER_RATIO, MAX_JITTER_MS]).toEqual([16, 0.05, 1_000]);
  });

  it('5.7: polls no sooner than the floor (random 0 → exactly the floor)', async () => {
    const s = new PollScheduler({ random: () => 0 });
    const item = new FakeItem();
    expect(s.scheduleAfter(item, 700)).toBe(700);
    await vi.advanceTimersByTimeAsync(699);
    expect(item.polls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(item.polls).toEqual([700]);
    s.close();
  });

  it('jitter stays within [0, 5% of the interval)', () => {
    const s = new PollScheduler({ random: () => 0.999_999 });
    const due = s.scheduleAfter(new FakeItem(), 2_000);
    expect(due).toBeGreaterThanOrEqual(2_000);
    expect(due).toBeLessThan(2_100);
    expect(due).toBeCloseTo(2_000 + 100 * 0.999_999, 6);
    s.close();
  });

  it('jitter never reaches 1000 ms, however long the interval', () => {
    const s = new PollScheduler({ random: () => 0.999_999 });
    const due = s.scheduleAfter(new FakeItem(), 300_000); // 5% would be 15000
    expect(due).toBeGreaterThanOrEqual(300_000);
    expect(due).toBeLessThan(301_000);
    expect(due).toBeCloseTo(300_000 + 1_000 * 0.999_999, 6);
    s.close();
  });

  it('jitterRatio 0 and random 0.5 give no jitter; ratio 0.1 scales it', () => {
    const none = new PollScheduler({ jitterRatio: 0, random: () => 0.5 });
    expect(none.scheduleAfter(new FakeItem(), 1_000)).toBe(1_000);
    const tenth = new PollScheduler({ jitterRatio: 0.1, random: () => 0.5 });
    expect(tenth.scheduleAfter(new FakeItem(), 1_000)).toBe(1_050);
    none.close();
    tenth.close();
  });

  it('rejects bad options with a TypeError naming them', () => {
    expect(() => new PollScheduler({ maxConcurrentPolls: 0 })).toThrow(
      new TypeError('maxConcurrentPolls must be an integer ≥ 1, got 0'),
    );
    expect(() => new PollScheduler({ jitterRatio: 1.5 })).toThrow(
      new TypeError('jitterRatio must be within [0, 1], got 1.5'),
    );
    expect(() => new PollScheduler({ jitterRatio: Number.NaN })).toThrow(TypeError);
  });

  it('uses one timer for many scheduled items', async () => {
    const s = new PollScheduler({ random: () => 0 });
    const items = Array.from({ length: 10 }, () => new FakeItem());
    items.forEach((item, i) => s.scheduleAfter(item, 1_000 + i * 100));
    expect(vi.getTimerCount()).toBe(1);
    expect(s.nextDueAt()).toBe(1_000);
    expect(s.size).toBe(10);
    await vi.advanceTimersByTimeAsync(1_450);
    expect(items.map((i) => i.polls)).toEqual([
      [1_000],
      [1_100],
      [1_200],
      [1_300],
      [1_400],
      [],
      [],
      [],
      [],
      [],
    ]);
    expect(vi.getTimerCount()).toBe(1);
    s.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rescheduling an item replaces its earlier due time', async () => {
    const s = new PollScheduler({ random: () => 0 });
    const item = new FakeItem();
    s.scheduleAfter(item, 500);
    s.scheduleAfter(item, 2_000);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(item.polls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(item.polls).toEqual([2_000]);
    s.close();
  });

  it('caps concurrent polls per serverKey; the rest wait in a queue; other servers are not blocked', async () => {
    const s = new PollScheduler({ maxConcurrentPolls: 2, random: () => 0 });
    const a = [new FakeItem('A'), new FakeItem('A'), new FakeItem('A'), new FakeItem('A')];
    const b = new FakeItem('B');
    for (const item of [...a, b]) {
      item.hold = true;
      s.scheduleAfter(item, 100);
    }
    const counts = (): number[] => a.map((i) => i.polls.length);
    const sum = (xs: number[]): number => xs.reduce((x, y) => x + y, 0);
    await vi.advanceTimersByTimeAsync(100);
    expect(sum(counts())).toBe(2); // ties have no order guarantee; exactly two of A start
    expect(b.polls).toEqual([100]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sum(counts())).toBe(2); // still capped while both are in flight
    const first = a.filter((i) => i.polls.length === 1);
    first[0]!.release();
    await flush();
    expect(sum(counts())).toBe(3); // one slot freed → exactly one queued item starts, at once
    expect(a.filter((i) => i.polls.length === 1 && !first.includes(i)).map((i) => i.polls)).toEqual([
      [5_100],
    ]);
    first[1]!.release();
    await flush();
    expect(counts()).toEqual([1, 1, 1, 1]);
    expect(Math.max(...a.map((i) => i.maxInflight))).toBe(1);
    for (const item of [...a, b]) item.release();
    await flush();
    expect(s.size).toBe(0);
    s.close();
  });

  it('never has two polls of one item in flight, even when rescheduled during its poll', async () => {
    const s = new PollScheduler({ random: () => 0 });
    const item = new FakeItem();
    item.hold = true;
    item.onPoll = () => s.scheduleAfter(item, 10); // reschedules itself while in flight
    s.scheduleAfter(item, 100);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(item.polls).toEqual([100]);
    expect(item.maxInflight).toBe(1);
    item.hold = false;
    item.release(); // the deferred schedule (due 110) now enters the heap and runs at once
    await flush();
    expect(item.polls).toEqual([100, 1_000]);
    await vi.advanceTimersByTimeAsync(10);
    expect(item.polls).toEqual([100, 1_000, 1_010]);
    expect(item.maxInflight).toBe(1);
    s.close();
  });

  it('unschedule stops future polls; an in-flight poll is not rescheduled', async () => {
    const s = new PollScheduler({ random: () => 0 });
    const item = new FakeItem();
    s.scheduleAfter(item, 100);
    s.unschedule(item);
    expect(s.size).toBe(0);
    expect(s.nextDueAt()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(item.polls).toEqual([]);

    item.hold = true;
    item.onPoll = () => s.scheduleAfter(item, 100);
    s.scheduleAfter(item, 100);
    await vi.advanceTimersByTimeAsync(100);
    expect(item.polls).toEqual([1_100]);
    s.unschedule(item); // drops the deferred reschedule
    item.release();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(item.polls).toEqual([1_100]);
    expect(s.size).toBe(0);
    s.close();
  });

  it('pauseServer holds every poll to that server until the pause ends, and no other server', async () => {
    const s = new PollScheduler({ random: () => 0 });
    const a1 = new FakeItem('A');
    const a2 = new FakeItem('A');
    const b = new FakeItem('B');
    s.pauseServer('A', 5_000);
    expect(s.pausedUntil('A')).toBe(5_000);
    expect(s.pausedUntil('B')).toBe(0);
    s.scheduleAfter(a1, 1_000);
    s.scheduleAfter(a2, 6_000);
    s.scheduleAfter(b, 1_000);
    await vi.advanceTimersByTimeAsync(4_999);
    expect([a1.polls, a2.polls, b.polls]).toEqual([[], [], [1_000]]);
    await vi.advanceTimersByTimeAsync(1);
    expect(a1.polls).toEqual([5_000]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(a2.polls).toEqual([6_000]);
    s.close();
  });

  it('pauseServer never shortens an existing pause', () => {
    const s = new PollScheduler();
    s.pauseServer('A', 9_000);
    s.pauseServer('A', 3_000);
    expect(s.pausedUntil('A')).toBe(9_000);
    s.close();
  });

  it('a poll that throws does not stop the scheduler', async () => {
    const s = new PollScheduler({ random: () => 0 });
    const bad: Pollable = { serverKey: 'A', poll: vi.fn(async () => Promise.reject(new Error('boom'))) };
    const good = new FakeItem('A');
    s.scheduleAfter(bad, 100);
    s.scheduleAfter(good, 200);
    await vi.advanceTimersByTimeAsync(200);
    expect(bad.poll).toHaveBeenCalledTimes(1);
    expect(good.polls).toEqual([200]);
    s.close();
  });

  it('close() stops all timers; later schedules are ignored', async () => {
    const s = new PollScheduler({ random: () => 0 });
    const item = new FakeItem();
    s.scheduleAfter(item, 100);
    s.close();
    expect(vi.getTimerCount()).toBe(0);
    s.scheduleAfter(item, 100);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(item.polls).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  describe('autoPoll: false', () => {
    it('runs no timers; tick() polls what is due and returns the next due time', async () => {
      const s = new PollScheduler({ autoPoll: false, random: () => 0 });
      const a = new FakeItem();
      const b = new FakeItem();
      a.onPoll = () => s.scheduleAfter(a, 1_000);
      s.scheduleAfter(a, 100);
      s.scheduleAfter(b, 300);
      expect(vi.getTimerCount()).toBe(0);
      expect(await s.tick()).toBe(100); // nothing due at 0
      expect(a.polls).toEqual([]);
      vi.setSystemTime(150);
      expect(await s.tick()).toBe(300); // a polled, rescheduled at 1150; b next at 300
      expect(a.polls).toEqual([150]);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(a.polls).toEqual([150]); // still no timers
      vi.setSystemTime(400);
      expect(await s.tick()).toBe(1_150);
      expect(b.polls).toEqual([400]);
      vi.setSystemTime(1_150);
      expect(await s.tick()).toBe(2_150);
      expect(a.polls).toEqual([150, 1_150]);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('tick() reports items still queued behind the concurrency cap as due now', async () => {
      const s = new PollScheduler({ autoPoll: false, maxConcurrentPolls: 1, random: () => 0 });
      const a = new FakeItem();
      const b = new FakeItem();
      s.scheduleAfter(a, 100);
      s.scheduleAfter(b, 100);
      vi.setSystemTime(100);
      const next = await s.tick();
      expect(a.polls.length + b.polls.length).toBe(1);
      // One item is due and waiting for a slot: the host must tick again (now), not sleep forever.
      expect(next).toBe(100);
      await s.tick();
      expect(a.polls.length + b.polls.length).toBe(2);
      expect(await s.tick()).toBeUndefined();
    });

    it('tick() reports the end of a server pause for items held by it', async () => {
      const s = new PollScheduler({ autoPoll: false, random: () => 0 });
      const a = new FakeItem();
      s.scheduleAfter(a, 100);
      s.pauseServer('srv-a', 5_000);
      vi.setSystemTime(200);
      expect(await s.tick()).toBe(5_000);
      expect(a.polls).toEqual([]);
      vi.setSystemTime(5_000);
      expect(await s.tick()).toBeUndefined();
      expect(a.polls).toEqual([5_000]);
    });
  });
});
