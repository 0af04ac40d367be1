/**
 * The poll scheduler's guarantees, beyond test/tasks/scheduler.test.ts: each task keeps its own floor
 * whatever other tasks do, a timer that fires early never polls early, jitter stays inside its exact bounds and
 * spreads tasks created together, the per-server cap holds over time and serves tasks in due order, a `Retry-After`
 * pause covers queued and in-flight work of one server only, and a task never has two polls in flight.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_JITTER_MS, PollScheduler, type Pollable } from '../../src/tasks/scheduler.js';
import { deferred, flush } from '../helpers/unit-fixtures.js';

/** A task the tests control: records the fake time of each poll; with `hold`, a poll stays in flight until released. */
class Item implements Pollable {
  readonly polls: number[] = [];
  hold = false;
  onPoll: (() => void) | undefined;
  readonly #pending: Array<() => void> = [];
  constructor(
    readonly name: string,
    readonly serverKey = 'A',
    readonly log?: string[],
  ) {}

  async poll(): Promise<void> {
    this.polls.push(Date.now());
    this.log?.push(this.name);
    this.onPoll?.();
    if (!this.hold) return;
    const d = deferred<void>();
    this.#pending.push(() => d.resolve());
    await d.promise;
  }

  get inFlight(): number {
    return this.#pending.length;
  }

  release(): void {
    this.#pending.shift()?.();
  }
}

/** A random source returning `values` in turn. */
const sequence = (values: number[]): (() => number) => {
  let i = 0;
  return () => values[i++ % values.length] as number;
};

describe('PollScheduler guarantees', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  describe('floors', () => {
    it('a long floor is not shortened by a short-floor task polling often on the same server', async () => {
      const s = new PollScheduler({ random: () => 0 });
      const slow = new Item('slow');
      const fast = new Item('fast');
      fast.onPoll = () => s.scheduleAfter(fast, 100);
      slow.onPoll = () => s.scheduleAfter(slow, 5_000);
      s.scheduleAfter(slow, 5_000);
      s.scheduleAfter(fast, 100);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(slow.polls).toEqual([5_000, 10_000]);
      expect(fast.polls).toHaveLength(100);
      expect(fast.polls.slice(0, 3)).toEqual([100, 200, 300]);
      s.close();
    });

    it('a timer that fires before the due time by the scheduler clock polls nothing, and re-arms', async () => {
      // The scheduler's clock runs 1 ms behind the timers: when the 1 000 ms timer fires, its clock says 999.
      const s = new PollScheduler({ random: () => 0, now: () => Date.now() - 1 });
      const item = new Item('a');
      expect(s.scheduleAfter(item, 1_000)).toBe(999); // -1 + 1 000
      await vi.advanceTimersByTimeAsync(999);
      expect(item.polls).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(item.polls).toEqual([1_000]); // the scheduler clock reads 999 = due: never earlier
      s.close();
    });

    it('property: with any random value, the due time is now + floor + jitter, jitter in [0, min(5 % floor, 1 000))', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 3_000_000 }),
          fc.double({ min: 0, max: 0.999_999, noNaN: true }),
          fc.integer({ min: 0, max: 10 ** 9 }),
          (floor, r, now) => {
            const s = new PollScheduler({ random: () => r, now: () => now, autoPoll: false });
            const due = s.scheduleAfter(new Item('p'), floor);
            const bound = Math.min(floor * 0.05, MAX_JITTER_MS);
            expect(due).toBe(now + floor + bound * r);
            expect(due - now).toBeGreaterThanOrEqual(floor);
            if (bound > 0) expect(due - now - floor).toBeLessThan(bound);
            s.close();
          },
        ),
      );
    });
  });

  describe('jitter', () => {
    it('at a 20 000 ms floor 5 % is exactly the 1 000 ms cap; above it the cap applies', () => {
      const s = new PollScheduler({ random: () => 0.5 });
      expect(s.scheduleAfter(new Item('a'), 19_000)).toBe(19_000 + 475);
      expect(s.scheduleAfter(new Item('b'), 20_000)).toBe(20_000 + 500);
      expect(s.scheduleAfter(new Item('c'), 40_000)).toBe(40_000 + 500);
      s.close();
    });

    it('is drawn again at every reschedule and never accumulates below the floor', async () => {
      const s = new PollScheduler({ random: sequence([0.9, 0, 0.5]) });
      const item = new Item('a');
      item.onPoll = () => s.scheduleAfter(item, 1_000);
      s.scheduleAfter(item, 1_000); // 1 000 + 45
      await vi.advanceTimersByTimeAsync(4_000);
      // 1 045 → +1 000 + 0 → 2 045 → +1 000 + 25 → 3 070 (each gap = floor + that draw's jitter)
      expect(item.polls).toEqual([1_045, 2_045, 3_070]);
      s.close();
    });

    it('spreads 100 tasks created at the same moment over [floor, floor + 5 %), in due order', async () => {
      const draws = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) / 100); // a permutation of 0, 0.01, …, 0.99
      const s = new PollScheduler({ random: sequence(draws), maxConcurrentPolls: 100 });
      const items = draws.map((_, i) => new Item(`t${i}`));
      const dues = items.map((item) => s.scheduleAfter(item, 2_000));
      expect(dues).toEqual(draws.map((r) => 2_000 + 100 * r));
      await vi.advanceTimersByTimeAsync(2_100);
      // Each polls at its own (integer) due time: 100 distinct moments 1 ms apart, not one burst.
      expect(items.map((item) => item.polls)).toEqual(dues.map((due) => [due]));
      expect(new Set(dues).size).toBe(100);
      s.close();
    });
  });

  describe('concurrency cap', () => {
    it('the default cap is 16 and holds while 40 due tasks drain; a freed slot is refilled at once', async () => {
      const s = new PollScheduler({ random: () => 0 });
      const items = Array.from({ length: 40 }, (_, i) => new Item(`t${i}`));
      for (const item of items) {
        item.hold = true;
        s.scheduleAfter(item, 1_000);
      }
      const inFlight = (): number => items.reduce((n, item) => n + item.inFlight, 0);
      const started = (): number => items.filter((item) => item.polls.length > 0).length;
      await vi.advanceTimersByTimeAsync(1_000);
      expect([inFlight(), started()]).toEqual([16, 16]);
      for (let round = 0; round < 24; round++) {
        items.find((item) => item.inFlight > 0)?.release();
        await flush();
        expect(inFlight()).toBe(Math.min(16, 40 - (round + 1)));
        expect(started()).toBe(Math.min(40, 16 + round + 1));
      }
      expect(items.every((item) => item.polls.length === 1 && item.polls[0] === 1_000)).toBe(true);
      s.close();
    });

    it('queued tasks start in due order as slots free up', async () => {
      const log: string[] = [];
      const s = new PollScheduler({ random: () => 0, maxConcurrentPolls: 2 });
      const items = [400, 100, 300, 200, 500].map((floor) => new Item(`due${floor}`, 'A', log));
      for (const item of items) {
        item.hold = true;
        s.scheduleAfter(item, Number(item.name.slice(3)));
      }
      await vi.advanceTimersByTimeAsync(1_000);
      expect(log).toEqual(['due100', 'due200']);
      for (let i = 0; i < 3; i++) {
        items.find((item) => item.inFlight > 0)?.release();
        await flush();
      }
      expect(log).toEqual(['due100', 'due200', 'due300', 'due400', 'due500']);
      s.close();
    });
  });

  describe('per-server Retry-After', () => {
    it('a pause holds tasks already queued behind the cap, and releases at most the cap when it ends', async () => {
      const s = new PollScheduler({ random: () => 0, maxConcurrentPolls: 2 });
      const items = Array.from({ length: 5 }, (_, i) => new Item(`t${i}`));
      items.forEach((item, i) => {
        item.hold = true;
        s.scheduleAfter(item, 100 + i); // due 100…104: distinct, so the order is defined
      });
      await vi.advanceTimersByTimeAsync(104); // t0 and t1 in flight, t2…t4 due and queued
      s.pauseServer('A', 3_000);
      for (const item of items) if (item.inFlight > 0) item.release();
      await vi.advanceTimersByTimeAsync(2_895);
      expect(items.map((item) => item.polls)).toEqual([[100], [101], [], [], []]);
      await vi.advanceTimersByTimeAsync(1);
      expect(items.map((item) => item.polls)).toEqual([[100], [101], [3_000], [3_000], []]);
      items[2]?.release();
      await flush();
      expect(items[4]?.polls).toEqual([3_000]);
      s.close();
    });

    it('a pause on one server does not delay another server, and a poll in flight when it starts just finishes', async () => {
      const s = new PollScheduler({ random: () => 0 });
      const a = new Item('a', 'A');
      const b = new Item('b', 'B');
      a.hold = true;
      a.onPoll = () => s.scheduleAfter(a, 100);
      b.onPoll = () => s.scheduleAfter(b, 500);
      s.scheduleAfter(a, 100);
      s.scheduleAfter(b, 500);
      await vi.advanceTimersByTimeAsync(100);
      s.pauseServer('A', 5_000); // e.g. a sibling's 429 with Retry-After: 4.9
      a.release(); // its reschedule (due 200) must wait for the pause
      await vi.advanceTimersByTimeAsync(4_899);
      expect(a.polls).toEqual([100]);
      expect(b.polls).toEqual([500, 1_000, 1_500, 2_000, 2_500, 3_000, 3_500, 4_000, 4_500]);
      await vi.advanceTimersByTimeAsync(1);
      expect(a.polls).toEqual([100, 5_000]);
      s.close();
    });
  });

  describe('one poll in flight per task', () => {
    it('scheduling the task again and again during its poll starts nothing; the latest schedule wins afterwards', async () => {
      const s = new PollScheduler({ random: () => 0 });
      const item = new Item('a');
      item.hold = true;
      s.scheduleAfter(item, 100);
      await vi.advanceTimersByTimeAsync(100);
      for (let i = 0; i < 10; i++) {
        s.scheduleAt(item, Date.now()); // due now, ten times over
        await vi.advanceTimersByTimeAsync(10);
      }
      s.scheduleAfter(item, 1_000); // the latest: due 1 200
      expect([item.polls, item.inFlight, s.size]).toEqual([[100], 1, 1]);
      item.hold = false;
      item.release();
      await flush();
      expect(item.polls).toEqual([100]);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(item.polls).toEqual([100, 1_200]);
      s.close();
    });

    it('tick() on a task whose poll is still in flight does not start a second one', async () => {
      const s = new PollScheduler({ autoPoll: false, random: () => 0 });
      const item = new Item('a');
      item.hold = true;
      item.onPoll = () => s.scheduleAt(item, Date.now());
      s.scheduleAt(item, 0);
      const first = s.tick(); // starts the poll, which stays in flight
      await Promise.resolve();
      expect(item.polls).toEqual([0]);
      vi.setSystemTime(50);
      // Due again (at 0) but deferred until the poll ends: nothing to run, nothing reported as due.
      expect(await s.tick()).toBeUndefined();
      expect(item.polls).toEqual([0]);
      item.hold = false;
      item.release();
      await first;
      expect(s.nextDueAt()).toBe(0);
      expect(await s.tick()).toBe(50);
      expect(item.polls).toEqual([0, 50]);
      s.close();
    });
  });
});
