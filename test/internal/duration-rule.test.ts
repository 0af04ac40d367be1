/**
 * The one duration rule (src/internal/duration.ts) applied wherever a duration is accepted beyond the client's own
 * options: fleet options (claimIntervalMs, checkIntervalMs, creationClaimMs), RedisTaskStore leaseMs (whole ms,
 * at least 100), the adapters' maxWaitMs (0 allowed: hand off at once) and TaskHandle.cancel({ waitMs }) (0 allowed).
 * NaN, negative, 0 where it means nothing, or beyond 2^31 − 1 ms is a TypeError naming the option.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTaskToolsOptions } from '../../src/adapters/shared/options.js';
import type { FleetHost } from '../../src/fleet/fleet-host.js';
import { FleetRunner } from '../../src/fleet/fleet-runner.js';
import { startOnce } from '../../src/fleet/fleet-start.js';
import { resultOf } from '../../src/fleet/result-of.js';
import { StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { RedisTaskStore } from '../../src/redis-store.js';
import { createTaskServer, sleep, textResult, type TaskServer } from '../../src/testing/index.js';

const BAD = [Number.NaN, -1, 0, 2 ** 31, Number.POSITIVE_INFINITY, '100'] as const;
const host = {} as FleetHost; // never reached: the option is refused first

describe('fleet options', () => {
  it.each(BAD)('runFleet claimIntervalMs = %s → TypeError naming it', (value) => {
    expect(() => new FleetRunner(host, { claimIntervalMs: value as number })).toThrow(
      /^runFleet: option "claimIntervalMs" must/,
    );
  });
  it('runFleet maxTasks must be a positive integer', () => {
    expect(() => new FleetRunner(host, { maxTasks: 1.5 })).toThrow(
      new TypeError('runFleet: option "maxTasks" must be a positive integer; got 1.5'),
    );
  });
  it.each(BAD)('resultOf checkIntervalMs = %s → TypeError naming it', async (value) => {
    await expect(resultOf(host, 't1', { checkIntervalMs: value as number })).rejects.toThrow(
      /^resultOf: option "checkIntervalMs" must/,
    );
  });
  it.each(BAD)('fleet.startTool creationClaimMs = %s → TypeError naming it', async (value) => {
    await expect(
      startOnce(host, () => undefined, 'x', {}, { idempotencyKey: 'k', creationClaimMs: value as number }),
    ).rejects.toThrow(/^fleet\.startTool: option "creationClaimMs" must/);
  });
});

describe('RedisTaskStore leaseMs', () => {
  const client = { sendCommand: async () => null } as never;
  it.each([
    [99, 'must be at least 100 ms'],
    [150.5, 'must be a whole number of milliseconds'],
    [2 ** 31, 'must be at most 2147483647 ms (the longest timer delay)'],
    [Number.NaN, 'must be a number of milliseconds'],
    [0, 'must be greater than 0'],
  ])('leaseMs = %s → TypeError: %s', (leaseMs, why) => {
    expect(() => new RedisTaskStore({ client, leaseMs })).toThrow(
      new TypeError(`RedisTaskStore: option "leaseMs" is invalid (${why})`),
    );
  });
});

describe('adapters maxWaitMs', () => {
  it('0 is allowed (hand off at once); 2^31 − 1 too', () => {
    expect(resolveTaskToolsOptions({ maxWaitMs: 0 }).maxWaitMs).toBe(0);
    expect(resolveTaskToolsOptions({ maxWaitMs: 2 ** 31 - 1 }).maxWaitMs).toBe(2 ** 31 - 1);
  });
  it.each([Number.NaN, -1, 2 ** 31, Number.POSITIVE_INFINITY])(
    'maxWaitMs = %s → TypeError naming it',
    (value) => {
      expect(() => resolveTaskToolsOptions({ maxWaitMs: value })).toThrow(
        /^createTaskTools: invalid option "maxWaitMs": must /,
      );
    },
  );
});

describe('TaskHandle.cancel({ waitMs }): real loopback HTTP', () => {
  let server: TaskServer;
  beforeAll(async () => {
    server = await createTaskServer({
      inlineBudgetMs: 20,
      catalog: {
        tools: [
          {
            name: 'slow',
            description: 'A task.',
            inputSchema: { type: 'object' },
            run: async (ctx) => (await sleep(60_000, ctx.signal), textResult('late')),
          },
        ],
        resources: [],
        prompts: [],
      },
    });
  });
  afterAll(() => server.close());

  it('NaN, negative or beyond 2^31 − 1 → TypeError, nothing sent; 0 is allowed (follow until the server decides)', async () => {
    const client = new TaskClient({ transport: new StreamableHttpTransport(server.url), era: 'modern' });
    const start = await client.startTool('slow', {});
    if (start.resultType !== 'task') throw new Error('expected a task');
    for (const waitMs of [Number.NaN, -1, 2 ** 31]) {
      await expect(start.task.cancel({ waitMs })).rejects.toThrow(
        /^TaskHandle\.cancel: option "waitMs" must/,
      );
    }
    expect(server.stats.count('tasks/cancel')).toBe(0);
    await start.task.cancel({ waitMs: 0 });
    expect(server.stats.count('tasks/cancel')).toBe(1);
    await client.close();
  });
});
