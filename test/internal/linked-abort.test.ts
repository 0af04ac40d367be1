/**
 * One request's abort (src/internal/abort.ts `LinkedAbort`): the caller's signal, the time budget and an explicit
 * abort (close()) end one standard AbortSignal, the first reason wins; a caller's signal carries one listener of ours
 * however many links follow it, and none once they are disposed.
 */
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isUnwritten, LinkedAbort, markUnwritten } from '../../src/internal/abort.js';

const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

describe('LinkedAbort', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('aborts with the timeout reason after exactly timeoutMs (timedOut true); the first reason wins', () => {
    const link = new LinkedAbort(undefined, 1_000, () => 'timeout');
    const listener = vi.fn();
    link.signal.addEventListener('abort', listener);
    vi.advanceTimersByTime(999);
    expect(link.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect([link.signal.aborted, link.signal.reason, link.timedOut]).toEqual([true, 'timeout', true]);
    link.abort('later');
    expect(link.signal.reason).toBe('timeout');
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('an explicit abort (close) before the budget wins; the timer then never calls onTimeout', () => {
    const onTimeout = vi.fn(() => 'timeout');
    const link = new LinkedAbort(undefined, 1_000, onTimeout);
    link.abort('closed');
    vi.advanceTimersByTime(5_000);
    expect([link.signal.reason, link.timedOut]).toEqual(['closed', false]);
    expect(onTimeout).not.toHaveBeenCalled();
  });

  it("follows the caller's signal (also one aborted already, then no timer) and stops after dispose()", () => {
    const already = new AbortController();
    already.abort('gone');
    const onTimeout = vi.fn();
    const early = new LinkedAbort(already.signal, 10, onTimeout);
    expect(early.signal.reason).toBe('gone');
    expect(vi.getTimerCount()).toBe(0);
    const caller = new AbortController();
    const link = new LinkedAbort(caller.signal);
    caller.abort('stop');
    expect([link.signal.aborted, link.signal.reason, link.timedOut]).toEqual([true, 'stop', false]);
    const other = new AbortController();
    const disposed = new LinkedAbort(other.signal, 10, () => 'timeout');
    disposed.dispose();
    other.abort('x');
    vi.advanceTimersByTime(100);
    expect(disposed.signal.aborted).toBe(false);
  });

  it("100 links on one caller's signal at once: one listener on it, none after the last dispose(); an abort reaches every live link, not a disposed one", () => {
    const caller = new AbortController();
    const links = Array.from({ length: 100 }, () => new LinkedAbort(caller.signal, 60_000, () => 'timeout'));
    expect(listeners(caller.signal)).toBe(1);
    for (const link of links.slice(0, 99)) link.dispose();
    expect(listeners(caller.signal)).toBe(1);
    links[99]?.dispose();
    expect(listeners(caller.signal)).toBe(0);
    expect(vi.getTimerCount()).toBe(0);

    const live = Array.from({ length: 20 }, () => new LinkedAbort(caller.signal));
    live[3]?.dispose();
    caller.abort('shutdown');
    expect(live.filter((l) => l.signal.aborted).length).toBe(19);
    expect(live[3]?.signal.aborted).toBe(false);
    expect(live[0]?.signal.reason).toBe('shutdown');
    expect(listeners(caller.signal)).toBe(0);
    for (const link of live) link.dispose(); // after the abort: nothing left to remove, no throw
  });

  it('a link disposed by another link’s abort listener is not aborted by the same caller abort', () => {
    const caller = new AbortController();
    const first = new LinkedAbort(caller.signal);
    const second = new LinkedAbort(caller.signal);
    first.signal.addEventListener('abort', () => second.dispose());
    caller.abort('stop');
    expect(first.signal.aborted).toBe(true);
    expect(second.signal.aborted).toBe(false);
  });
});

describe('markUnwritten', () => {
  it('marks a request signal as not written until unmarked; undefined is ignored', () => {
    const signal = new AbortController().signal;
    expect(isUnwritten(signal)).toBe(false);
    markUnwritten(signal, true);
    expect(isUnwritten(signal)).toBe(true);
    markUnwritten(signal, false);
    expect(isUnwritten(signal)).toBe(false);
    markUnwritten(undefined, true);
  });

  it('a link made from a holdable link follows it directly: no listener on its signal, the same reason, gone after dispose()', () => {
    const call = new LinkedAbort(undefined).holdable();
    const request = new LinkedAbort(call.signal, 1_000, () => 'timeout');
    expect(listeners(call.signal)).toBe(0);
    call.abort('closed');
    expect([request.signal.aborted, request.signal.reason]).toEqual([true, 'closed']);
    const next = new LinkedAbort(new LinkedAbort(undefined).holdable().signal);
    next.dispose();
    expect(next.signal.aborted).toBe(false);
  });

  it('held: an abort is pending (the first one), the signal and its followers stay live until land(); release() lands one still pending', () => {
    const caller = new AbortController();
    const call = new LinkedAbort(caller.signal).holdable();
    const request = new LinkedAbort(call.signal);
    const onPending = vi.fn();
    call.hold(onPending);
    expect(call.held).toBe(true);
    caller.abort('stop');
    call.abort('closed'); // later: ignored
    expect(onPending.mock.calls).toEqual([['stop']]);
    expect([call.pending, call.signal.aborted, request.signal.aborted]).toEqual([
      { reason: 'stop' },
      false,
      false,
    ]);
    call.land('abandoned');
    expect([call.signal.reason, request.signal.reason]).toEqual(['abandoned', 'abandoned']);
    call.release();
    expect([call.held, call.pending, call.signal.reason]).toEqual([false, undefined, 'abandoned']);

    const other = new LinkedAbort(undefined).holdable();
    other.hold(() => undefined);
    other.abort('closed');
    other.release();
    expect([other.signal.aborted, other.signal.reason]).toEqual([true, 'closed']);
  });
});

describe('LinkedAbort lent to one request at a time (a client request()), no second link', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("a lendable link runs each loan's time budget; endLoan stops it; a second loan while lent is refused", () => {
    const caller = new AbortController();
    const link = new LinkedAbort(caller.signal).holdable().lendable();
    expect(link.lend(1_000, () => 'first timed out')).toBe(true);
    expect(link.lend(1_000, () => 'concurrent')).toBe(false); // the second request makes a link of its own
    vi.advanceTimersByTime(999);
    link.endLoan();
    vi.advanceTimersByTime(5_000);
    expect(link.signal.aborted).toBe(false); // the ended loan's budget never fires
    expect(link.lend(500, () => 'second timed out')).toBe(true); // one request after the other
    vi.advanceTimersByTime(500);
    expect([link.signal.reason, link.timedOut]).toEqual(['second timed out', true]);
    expect(link.lend(500, () => 'late')).toBe(false); // aborted: no loan
    link.dispose();
    expect(listeners(caller.signal)).toBe(0);
  });

  it('a link not made lendable, one with its own budget, or one held is never lent; the caller still aborts a lent link', () => {
    expect(new LinkedAbort(undefined).lend(1_000, () => 'x')).toBe(false);
    const own = new LinkedAbort(undefined, 2_000, () => 'own').lendable();
    expect(own.lend(1_000, () => 'x')).toBe(false);
    own.dispose();
    const held = new LinkedAbort(undefined).lendable();
    held.hold(() => undefined);
    expect(held.lend(1_000, () => 'x')).toBe(false);
    const caller = new AbortController();
    const lent = new LinkedAbort(caller.signal).lendable();
    expect(lent.lend(1_000, () => 'timeout')).toBe(true);
    caller.abort('stop');
    expect([lent.signal.reason, lent.timedOut]).toEqual(['stop', false]);
    lent.endLoan();
    lent.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });
});
