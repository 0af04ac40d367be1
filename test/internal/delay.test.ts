/**
 * `delay()` never turns a delay past the 2^31−1 ms timer limit into a 1 ms one (Node's overflow), whatever asked
 * for it (a server's `Retry-After` included); any number of delays on one signal put one listener on it.
 */
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { delay } from '../../src/internal/abort.js';
import { MAX_TIMER_MS } from '../../src/internal/duration.js';
import { MAX_RETRY_AFTER_MS } from '../../src/tasks/decisions.js';
import { HttpError } from '../../src/index.js';
import { created, detailed, outcome } from '../helpers/unit-fixtures.js';
import { setup, startTask, T0 } from '../helpers/engine-setup.js';

describe('delay() past the timer limit', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('2^31 ms resolves after 2^31 ms, not after 1 ms', async () => {
    const done = outcome(delay(2 ** 31));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(done.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(2 ** 31 - 1_001);
    expect(done.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done.settled).toBe(true);
  });

  it('3 × the limit is waited out in steps; an abort ends it at once with the reason', async () => {
    const controller = new AbortController();
    const done = outcome(delay(3 * MAX_TIMER_MS, controller.signal));
    await vi.advanceTimersByTimeAsync(2 * MAX_TIMER_MS + 5);
    expect(done.settled).toBe(false);
    const reason = new Error('stop');
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(0);
    expect(done.error).toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('Infinity waits for the signal only; NaN and negatives are 0', async () => {
    const controller = new AbortController();
    const forever = outcome(delay(Number.POSITIVE_INFINITY, controller.signal));
    const nan = outcome(delay(Number.NaN));
    const negative = outcome(delay(-5));
    await vi.advanceTimersByTimeAsync(0);
    expect(nan.settled && negative.settled).toBe(true);
    await vi.advanceTimersByTimeAsync(10 * MAX_TIMER_MS);
    expect(forever.settled).toBe(false);
    controller.abort(new Error('x'));
    await vi.advanceTimersByTimeAsync(0);
    expect(forever.error).toEqual(new Error('x'));
  });
});

describe('a Retry-After of 2^31 ms on tasks/get', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('no second tasks/get before the client bound on Retry-After (no 1 ms hammering); result({ signal }) still ends the wait', async () => {
    let gets = 0;
    // A task kept forever (ttlMs null): a wait past its retention would end it as expired instead
    const { transport, client } = setup((m) => {
      if (m === 'tools/call') return created({ ttlMs: null });
      if (m === 'tasks/get' && ++gets === 1) throw new HttpError('tasks/get', 503, 'busy', 2 ** 31);
      return detailed({ status: 'working', ttlMs: null });
    });
    const handle = await startTask(client);
    await vi.advanceTimersByTimeAsync(1_000); // the first poll, answered 503 + Retry-After
    expect(transport.of('tasks/get')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(MAX_RETRY_AFTER_MS - 1);
    expect(transport.of('tasks/get')).toHaveLength(1);
    const controller = new AbortController();
    const waiting = outcome(handle.result({ signal: controller.signal }));
    controller.abort(new Error('caller gave up'));
    await vi.advanceTimersByTimeAsync(0);
    expect(waiting.error).toEqual(new Error('caller gave up'));
    await vi.advanceTimersByTimeAsync(1);
    expect(transport.of('tasks/get')).toHaveLength(2); // polling resumes after the bounded pause
    await client.close();
  });
});

describe('delay() on a shared signal', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('50 delays at once put one listener on the signal, none once they end; an abort rejects those left', async () => {
    const controller = new AbortController();
    const timersBefore = vi.getTimerCount();
    const short = Array.from({ length: 25 }, () => outcome(delay(100, controller.signal)));
    const long = Array.from({ length: 25 }, () => outcome(delay(1_000, controller.signal)));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(short.every((d) => d.settled && d.error === undefined)).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const reason = new Error('stop');
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(0);
    expect(long.map((d) => d.error)).toEqual(long.map(() => reason));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(timersBefore); // every delay's timer cleared
  });

  it('the listener goes once the last delay resolves', async () => {
    const controller = new AbortController();
    const all = Array.from({ length: 50 }, (_, i) => outcome(delay(10 * (i + 1), controller.signal)));
    await vi.advanceTimersByTimeAsync(500);
    expect(all.every((d) => d.settled && d.error === undefined)).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
