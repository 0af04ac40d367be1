/**
 * One rule for every duration option, client-level and per-call (docs/guide.md § Durations): a number of
 * milliseconds, not NaN, not negative (not 0 where 0 means nothing), at most 2^31 − 1 (what a timer holds; a longer
 * delay would fire at once). Only `maxTotalTimeoutMs` gives "no limit" a meaning: `Infinity` or anything above
 * 2^31 − 1. A per-call value breaking the rule rejects the call with a TypeError naming the option, before anything
 * is sent. Real HTTP on loopback (the reference server).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { linkAbort } from '../../src/internal/abort.js';
import { createTaskServer, textResult, type TaskServer } from '../../src/testing/index.js';

let server: TaskServer;
beforeAll(async () => {
  server = await createTaskServer({
    inlineBudgetMs: 1_000,
    catalog: {
      tools: [
        {
          name: 'echo',
          description: 'Echoes.',
          inputSchema: { type: 'object' },
          run: async () => textResult('ok'),
        },
      ],
    },
  });
});
afterAll(() => server.close());

const newClient = (options: Record<string, unknown> = {}): TaskClient =>
  new TaskClient({ transport: new StreamableHttpTransport(server.url), era: 'modern', ...options });

describe('client-level duration options', () => {
  it.each([
    ['timeoutMs', 2 ** 31],
    ['timeoutMs', Number.NaN],
    ['timeoutMs', Number.POSITIVE_INFINITY],
    ['timeoutMs', -5],
    ['limits.abortGraceMs', 2 ** 40],
    ['polling.intervalMs', 2 ** 31],
    ['polling.minIntervalMs', -1],
    ['creationRetry.minTimeoutMs', 2 ** 31],
  ])('%s = %s: TypeError naming the option', (name, value) => {
    const [head, tail] = name.split('.') as [string, string | undefined];
    const options = tail ? { [head]: { [tail]: value } } : { [head]: value };
    expect(() => newClient(options)).toThrow(
      new RegExp(`option "${name.replace('.', '\\.')}" must .*; got ${String(value)}$`),
    );
  });

  it('2^31 − 1 ms is accepted', () => {
    expect(() => newClient({ timeoutMs: 2 ** 31 - 1, limits: { abortGraceMs: 2 ** 31 - 1 } })).not.toThrow();
  });
});

describe('per-call duration options', () => {
  it.each([
    ['timeoutMs', Number.NaN],
    ['timeoutMs', 0],
    ['timeoutMs', -5],
    ['timeoutMs', 2 ** 40],
    ['timeoutMs', Number.POSITIVE_INFINITY],
    ['timeoutMs', '500'],
    ['maxTotalTimeoutMs', Number.NaN],
    ['maxTotalTimeoutMs', 0],
    ['maxTotalTimeoutMs', -1],
    ['pollIntervalMs', 2 ** 31],
  ])('callTool with %s = %s rejects with a TypeError naming it, and sends nothing', async (name, value) => {
    const client = newClient();
    const before = server.core.stats.count('tools/call');
    const error = await client.callTool('echo', {}, { [name]: value }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain(`option "${name}"`);
    expect(server.core.stats.count('tools/call')).toBe(before);
    await client.close();
  });

  it.each([['listTools'], ['discover']] as const)('%s checks timeoutMs the same way', async (method) => {
    const client = newClient();
    await expect(client[method]({ timeoutMs: Number.NaN })).rejects.toThrow(
      /option "timeoutMs" must be a number/,
    );
    await client.close();
  });

  it.each([[Number.POSITIVE_INFINITY], [2 ** 40]])(
    'maxTotalTimeoutMs = %s means no total budget: the call completes',
    async (total) => {
      const client = newClient();
      await expect(client.callTool('echo', {}, { maxTotalTimeoutMs: total })).resolves.toMatchObject({
        content: [{ type: 'text', text: 'ok' }],
      });
      await client.close();
    },
  );
});

describe('timers never overflow', () => {
  it('a linked budget above 2^31 − 1 ms arms no timer (it would fire after 1 ms)', async () => {
    vi.useFakeTimers();
    try {
      const link = linkAbort(undefined, 2 ** 40, () => new Error('timed out'));
      await vi.advanceTimersByTimeAsync(10);
      expect(link.signal.aborted).toBe(false);
      link.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});
