/**
 * `fleet.startTool` waiting for other workers' creations, 50 calls on one caller's `AbortSignal`: the signal carries
 * one listener of ours however many calls wait on it (never Node's MaxListenersExceededWarning, past ten), none
 * once they end, and an abort rejects every call with the signal's reason. Real redis-server, the reference server
 * on loopback HTTP. CLIENT-REQUIREMENTS 1.3 (nothing silent), STYLE 22 (listeners on signals don't leak).
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamableHttpTransport } from '../../src/node.js';
import { fleetEnv, type FleetEnv } from './fleet-fixtures.js';

let env: FleetEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('fleet.startTool: one AbortSignal shared by 50 waiting calls', () => {
  it('one listener on the signal while they wait, no MaxListenersExceededWarning, none after the abort', async () => {
    env = await fleetEnv({ leaseMs: 2_000 });
    const [other, worker] = await Promise.all([env.worker('other'), env.worker('waiter')]);
    const serverKey = new StreamableHttpTransport(env.server.url).serverKey;
    // Another worker is creating each key's task (a pending claim that neither binds nor lapses meanwhile).
    for (let i = 0; i < 50; i++) await other.store.idempotency.claim(serverKey, `key-${i}`, 'other', 60_000);
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const fleet = worker.client.runFleet({ claim: false });
      const controller = new AbortController();
      const calls = Array.from({ length: 50 }, (_, i) =>
        fleet
          .startTool('sleep_ms', { ms: 1 }, { idempotencyKey: `key-${i}`, signal: controller.signal })
          .then(
            () => 'resolved',
            (error: unknown) => error,
          ),
      );
      // Each call looks at its key, then waits (25, 50, 100, 200 ms) on the signal and looks again: watch the
      // signal's listeners through several of those rounds.
      const counts = new Set<number>();
      const until = Date.now() + 600;
      while (Date.now() < until) {
        counts.add(getEventListeners(controller.signal, 'abort').length);
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(Math.max(...counts)).toBe(1);
      const reason = new Error('shutdown');
      controller.abort(reason);
      expect(await Promise.all(calls)).toEqual(calls.map(() => reason));
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      expect(env.server.stats.count('tools/call')).toBe(0); // every key stayed the other worker's to create
      await fleet.stop();
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});
