/**
 * The bridge's progress for hosts that reset their timeout on progress: one notification per status change, and the
 * last one again every keep-alive interval while nothing changes (fake timers).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProgressPump } from '../src/bridge/progress-pump.js';
import { hostResult } from '../src/bridge/host-results.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('ProgressPump', () => {
  it('sends each new statusMessage once, a keep-alive every keepAliveMs without change, nothing after stop', () => {
    const sent: Array<{ progress: number; message?: string }> = [];
    const pump = new ProgressPump(
      'tok',
      async (n) => {
        expect(n.params.progressToken).toBe('tok');
        sent.push({ progress: n.params.progress, message: n.params.message });
      },
      10_000,
    );
    pump.status('indexed 10/100');
    pump.status('indexed 10/100'); // unchanged: not sent again
    expect(sent).toEqual([{ progress: 1, message: 'indexed 10/100' }]);
    vi.advanceTimersByTime(9_999);
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sent.at(-1)).toEqual({ progress: 2, message: 'indexed 10/100' });
    vi.advanceTimersByTime(5_000);
    pump.status('indexed 20/100'); // a change restarts the keep-alive interval
    vi.advanceTimersByTime(9_999);
    expect(sent.map((s) => s.progress)).toEqual([1, 2, 3]);
    vi.advanceTimersByTime(1);
    expect(sent.at(-1)).toEqual({ progress: 4, message: 'indexed 20/100' });
    pump.stop();
    vi.advanceTimersByTime(60_000);
    expect(sent).toHaveLength(4);
  });

  it('keeps a host waiting from the start, before any status arrived', () => {
    const sent: number[] = [];
    const pump = new ProgressPump(7, async (n) => void sent.push(n.params.progress), 15_000);
    vi.advanceTimersByTime(45_000);
    expect(sent).toEqual([1, 2, 3]);
    pump.stop();
  });
});

describe('hostResult', () => {
  it('marks a pending hand-off isError only for a tool with an outputSchema (hosts check structuredContent against it)', () => {
    const pending = {
      status: 'pending' as const,
      taskId: 't1',
      toolName: 'x',
      taskStatus: 'working' as const,
      checkAgainAfterMs: 250,
      message: 'The task is still running on the server.',
    };
    expect(hostResult({ kind: 'pending', pending }, false)).toEqual({
      content: [{ type: 'text', text: 'The task is still running on the server.' }],
      structuredContent: pending,
    });
    expect(hostResult({ kind: 'pending', pending }, true).isError).toBe(true);
  });
});
