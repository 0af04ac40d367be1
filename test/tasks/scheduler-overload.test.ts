/**
 * Overload: more polls due than the per-server cap serves. The most overdue poll goes first, every task keeps being
 * polled (no starvation), and each poll's lag (due → sent) is reported.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PollScheduler, type Pollable } from '../../src/tasks/scheduler.js';

/** A task that takes `pollMs` of (fake) time per poll, then asks to be polled again `intervalMs` later. */
class Task implements Pollable {
  readonly serverKey = 'srv';
  readonly polls: number[] = [];
  constructor(
    readonly name: string,
    readonly scheduler: PollScheduler,
    readonly intervalMs: number,
    readonly pollMs: number,
    readonly started: string[],
  ) {}

  async poll(): Promise<void> {
    this.polls.push(Date.now());
    this.started.push(this.name);
    await new Promise((r) => setTimeout(r, this.pollMs));
    this.scheduler.scheduleAfter(this, this.intervalMs);
  }
}

describe('PollScheduler under overload', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('serves the most overdue first, whatever order the tasks were queued in', async () => {
    const started: string[] = [];
    const s = new PollScheduler({ maxConcurrentPolls: 1, jitterRatio: 0 });
    const blocker = new Task('blocker', s, 1e9, 100, started);
    s.scheduleAt(blocker, 0);
    await vi.advanceTimersByTimeAsync(0); // blocker holds the only slot for 100 ms
    // Queued while the slot is busy, in scrambled order of due time.
    const tasks = [50, 10, 40, 20, 30].map((due) => new Task(`due-${due}`, s, 1e9, 1, started));
    for (const t of tasks) s.scheduleAt(t, Number(t.name.slice(4)));
    await vi.advanceTimersByTimeAsync(200);
    expect(started).toEqual(['blocker', 'due-10', 'due-20', 'due-30', 'due-40', 'due-50']);
    s.close();
  });

  it('a task rescheduled into the past still waits behind polls that were due before it', async () => {
    const started: string[] = [];
    const s = new PollScheduler({ maxConcurrentPolls: 1, jitterRatio: 0 });
    const blocker = new Task('blocker', s, 1e9, 100, started);
    s.scheduleAt(blocker, 0);
    await vi.advanceTimersByTimeAsync(0);
    const a = new Task('a', s, 1e9, 1, started);
    const b = new Task('b', s, 1e9, 1, started);
    s.scheduleAt(a, 20);
    await vi.advanceTimersByTimeAsync(50); // a is due and waiting
    s.scheduleAt(b, 5); // due earlier than a, queued later
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toEqual(['blocker', 'b', 'a']);
    s.close();
  });

  it('no starvation: 40 tasks at 100 ms, a cap of 2 and 10 ms polls serve every task in turn', async () => {
    const started: string[] = [];
    const lags: number[] = [];
    const s = new PollScheduler({
      maxConcurrentPolls: 2,
      jitterRatio: 0,
      onPollLag: (lag) => lags.push(lag),
    });
    // Capacity: 2 slots / 10 ms = 200 polls/s; demand: 40 tasks / 100 ms = 400 polls/s. Overloaded 2×.
    const tasks = Array.from({ length: 40 }, (_, i) => new Task(`t${i}`, s, 100, 10, started));
    for (const t of tasks) s.scheduleAt(t, 0);
    await vi.advanceTimersByTimeAsync(10_000);
    const counts = tasks.map((t) => t.polls.length);
    // Every task got its fair share (2,000 polls in 10 s over 40 tasks = 50 each), within one round.
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(49);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    // The gap between two polls of one task never exceeds one full round of the queue (40 × 10 ms / 2 = 200 ms).
    for (const t of tasks) {
      const gaps = t.polls.slice(1).map((at, i) => at - (t.polls[i] as number));
      expect(Math.max(...gaps)).toBeLessThanOrEqual(200);
    }
    expect(lags.length).toBe(started.length);
    expect(Math.min(...lags)).toBeGreaterThanOrEqual(0);
    s.close();
  });

  it('reports lag 0 when nothing waits, the wait behind the cap otherwise; a throwing callback is ignored', async () => {
    const started: string[] = [];
    const lags: number[] = [];
    const s = new PollScheduler({
      maxConcurrentPolls: 1,
      jitterRatio: 0,
      onPollLag: (lag) => {
        lags.push(lag);
        throw new Error('metrics broke');
      },
    });
    const a = new Task('a', s, 1e9, 30, started);
    const b = new Task('b', s, 1e9, 30, started);
    s.scheduleAt(a, 10);
    s.scheduleAt(b, 10);
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toEqual(['a', 'b']);
    expect(lags).toEqual([0, 30]);
    s.close();
  });
});
