/**
 * One request's abort flag (src/internal/request-abort.ts): the caller's signal, the time budget and an explicit
 * abort, first reason wins; listeners as undici registers them; a real AbortSignal only on demand.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RequestAbort } from '../../src/internal/request-abort.js';

describe('RequestAbort', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('aborts with the timeout reason after exactly timeoutMs; the first reason wins and listeners run once', () => {
    const abort = new RequestAbort(undefined, 1_000, () => 'timeout');
    const listener = vi.fn();
    abort.addEventListener('abort', listener, { once: true });
    vi.advanceTimersByTime(999);
    expect(abort.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect([abort.aborted, abort.reason]).toEqual([true, 'timeout']);
    abort.abort('later');
    expect(abort.reason).toBe('timeout');
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it("follows the caller's signal (also one aborted already) and stops following it after dispose()", () => {
    const already = new AbortController();
    already.abort('gone');
    expect(new RequestAbort(already.signal).reason).toBe('gone');
    const caller = new AbortController();
    const abort = new RequestAbort(caller.signal);
    caller.abort('stop');
    expect([abort.aborted, abort.reason]).toEqual([true, 'stop']);
    const other = new AbortController();
    const disposed = new RequestAbort(other.signal, 10, () => 'timeout');
    disposed.dispose();
    other.abort('x');
    vi.advanceTimersByTime(100);
    expect(disposed.aborted).toBe(false);
  });

  it('a removed listener is not called; the lazy AbortSignal mirrors the abort before and after it is built', () => {
    const abort = new RequestAbort();
    const removed = vi.fn();
    abort.addEventListener('abort', removed);
    abort.removeEventListener('abort', removed);
    const signal = abort.signal;
    expect(signal.aborted).toBe(false);
    abort.abort('why');
    expect(removed).not.toHaveBeenCalled();
    expect([signal.aborted, signal.reason]).toEqual([true, 'why']);
    const late = new RequestAbort();
    late.abort('first');
    expect([late.signal.aborted, late.signal.reason]).toEqual([true, 'first']);
  });
});
