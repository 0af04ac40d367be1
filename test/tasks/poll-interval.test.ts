import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TaskClient } from '../../src/index.js';
import {
  DEFAULT_MAX_POLL_INTERVAL_MS,
  DEFAULT_MIN_POLL_INTERVAL_MS,
  DEFAULT_POLL_INTERVAL_MS,
  effectivePollIntervalMs,
} from '../../src/tasks/decisions.js';
import { ScriptedTransport } from '../helpers/scripted-transport.js';
import { created, detailed, flush } from '../helpers/unit-fixtures.js';
import '../helpers/no-jitter.js';

const policy = {
  defaultMs: DEFAULT_POLL_INTERVAL_MS,
  minMs: DEFAULT_MIN_POLL_INTERVAL_MS,
  maxMs: DEFAULT_MAX_POLL_INTERVAL_MS,
};

describe('effectivePollIntervalMs (5.7, STYLE 8)', () => {
  it('exports the documented defaults', () => {
    expect([DEFAULT_POLL_INTERVAL_MS, DEFAULT_MIN_POLL_INTERVAL_MS, DEFAULT_MAX_POLL_INTERVAL_MS]).toEqual([
      1_000, 100, 300_000,
    ]);
  });

  it('5.7: uses the server value as given when within bounds', () => {
    expect(effectivePollIntervalMs(2_500, policy)).toBe(2_500);
    expect(effectivePollIntervalMs(100, policy)).toBe(100);
  });

  it('5.7: uses the default 1000 only when the server gave none', () => {
    expect(effectivePollIntervalMs(undefined, policy)).toBe(1_000);
  });

  it('5.7: raises 0, negative and NaN to the floor 100', () => {
    expect(effectivePollIntervalMs(0, policy)).toBe(100);
    expect(effectivePollIntervalMs(-5_000, policy)).toBe(100);
    expect(effectivePollIntervalMs(Number.NaN, policy)).toBe(100);
    expect(effectivePollIntervalMs(Number.NEGATIVE_INFINITY, policy)).toBe(100);
    expect(effectivePollIntervalMs(99, policy)).toBe(100);
  });

  // ext-tasks specification/draft/tasks.md § Task Polling: "Clients SHOULD respect the pollIntervalMs provided in
  // responses" — maxPollIntervalMs caps only the client's own default and a caller's raise, never the server's floor.
  it('5.7 (tasks.md § Task Polling "SHOULD respect the pollIntervalMs"): a server value above maxMs is honoured, never lowered', () => {
    expect(effectivePollIntervalMs(10 ** 12, policy)).toBe(10 ** 12);
    expect(effectivePollIntervalMs(300_001, policy)).toBe(300_001);
    expect(effectivePollIntervalMs(Number.POSITIVE_INFINITY, policy)).toBe(Number.MAX_SAFE_INTEGER);
    expect(effectivePollIntervalMs(600_000, { ...policy, maxMs: 40 })).toBe(600_000);
  });

  it("the cap applies to the client's own choices: the default and a caller raise", () => {
    expect(effectivePollIntervalMs(undefined, { ...policy, defaultMs: 5_000, maxMs: 2_000 })).toBe(2_000);
    expect(effectivePollIntervalMs(500, policy, 10 ** 9)).toBe(300_000);
    expect(effectivePollIntervalMs(400_000, policy, 10 ** 9)).toBe(400_000); // a caller raise never lowers the server value
  });

  it('STYLE 8: a caller interval raises the server floor but never lowers it', () => {
    expect(effectivePollIntervalMs(500, policy, 2_000)).toBe(2_000);
    expect(effectivePollIntervalMs(3_000, policy, 2_000)).toBe(3_000);
    expect(effectivePollIntervalMs(undefined, policy, 50)).toBe(1_000);
    expect(effectivePollIntervalMs(500, policy, Number.NaN)).toBe(500);
    expect(effectivePollIntervalMs(500, policy, 10 ** 9)).toBe(300_000);
  });

  it('rounds fractional intervals up (never sooner than the floor)', () => {
    expect(effectivePollIntervalMs(250.2, policy)).toBe(251);
  });
});

describe('poll timing through TaskClient (5.7)', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  /** A server whose task stays working; each tasks/get reply comes from `intervals` in turn (the last repeats). */
  function server(createdInterval: unknown, intervals: unknown[] = [createdInterval]) {
    let polls = 0;
    const transport = new ScriptedTransport((method) => {
      if (method === 'tools/call')
        return created(
          createdInterval === undefined ? { pollIntervalMs: undefined } : { pollIntervalMs: createdInterval },
        );
      const pollIntervalMs = intervals[Math.min(polls++, intervals.length - 1)];
      return detailed(pollIntervalMs === undefined ? { pollIntervalMs: undefined } : { pollIntervalMs });
    });
    return transport;
  }

  async function pollTimes(
    transport: ScriptedTransport,
    untilMs: number,
    options: { pollIntervalMs?: number } = {},
  ) {
    const client = new TaskClient({ transport });
    const controller = new AbortController();
    const call = client.callTool('slow', {}, { signal: controller.signal, onAbort: 'detach', ...options });
    call.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(untilMs);
    await client.close();
    controller.abort(new Error('test over'));
    return transport.of('tasks/get').map((s) => s.at);
  }

  it('5.7: first poll waits one full interval after creation', async () => {
    const transport = server(500);
    const client = new TaskClient({ transport });
    const controller = new AbortController();
    client.callTool('slow', {}, { signal: controller.signal, onAbort: 'detach' }).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(499);
    expect(transport.of('tasks/get')).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(transport.of('tasks/get').map((s) => s.at)).toEqual([500]);
    await client.close();
    controller.abort(new Error('over'));
  });

  it('5.7: honours every change of pollIntervalMs between polls (up and down)', async () => {
    const transport = server(500, [2_000, 300, 300]);
    // created at 0 (500) → poll 500 says 2000 → poll 2500 says 300 → 2800 → 3100
    expect(await pollTimes(transport, 3_100)).toEqual([500, 2_500, 2_800, 3_100]);
  });

  it('5.7: defaults to 1000 ms when the server gives no pollIntervalMs', async () => {
    const transport = server(undefined, [undefined]);
    expect(await pollTimes(transport, 3_000)).toEqual([1_000, 2_000, 3_000]);
  });

  it.each([
    ['0', 0],
    ['negative', -250],
    ['NaN', Number.NaN],
    ['a string', 'fast'],
  ])('5.7: a server interval of %s is raised to the 100 ms floor', async (_label, value) => {
    const transport = server(value, [value]);
    expect(await pollTimes(transport, 350)).toEqual([100, 200, 300]);
  });

  it('5.7 (tasks.md § Task Polling): a server interval of 600 000 ms above maxPollIntervalMs is honoured, not capped at 300 000', async () => {
    const transport = server(600_000, [600_000]);
    expect(await pollTimes(transport, 1_200_000)).toEqual([600_000, 1_200_000]);
  });

  it('5.7: a server interval past the 2^31−1 ms timer limit (30 days) is still honoured: no poll before it', async () => {
    const day = 86_400_000;
    const transport = server(30 * day, [30 * day]);
    expect(await pollTimes(transport, 30 * day)).toEqual([30 * day]); // one poll, exactly when due, none before
  });

  it('STYLE 8: the caller pollIntervalMs raises a lower server interval', async () => {
    const transport = server(500, [500]);
    expect(await pollTimes(transport, 6_000, { pollIntervalMs: 2_000 })).toEqual([2_000, 4_000, 6_000]);
  });

  it('STYLE 8: the caller pollIntervalMs never lowers a higher server interval', async () => {
    const transport = server(3_000, [3_000]);
    expect(await pollTimes(transport, 6_999, { pollIntervalMs: 200 })).toEqual([3_000, 6_000]);
  });

  it('TaskClient poll jitter: each poll lands in [floor, floor + min(5% of floor, 1000 ms))', async () => {
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
    try {
      const transport = server(1_000, [1_000]);
      const client = new TaskClient({ transport }); // the fixed jitter: 5 % of the interval
      const controller = new AbortController();
      client.callTool('slow', {}, { signal: controller.signal, onAbort: 'detach' }).catch(() => undefined);
      await vi.advanceTimersByTimeAsync(1_049);
      expect(transport.of('tasks/get')).toHaveLength(0); // floor 1000 + jitter ≈ 49.99995
      await vi.advanceTimersByTimeAsync(1);
      expect(transport.of('tasks/get').map((s) => s.at)).toEqual([1_050]);
      await client.close();
      controller.abort(new Error('over'));
      await flush();
    } finally {
      random.mockRestore();
    }
  });
});
