/**
 * A server's `pollIntervalMs` of `1e400` (JSON for Infinity) or 1e300: the client honours any server interval above
 * its own cap, so the next `tasks/get` is scheduled 2^53 ms away and `result()` waits for ever, although the same
 * client bounds a `Retry-After` of ten years to one hour (MAX_RETRY_AFTER_MS) for exactly that reason. With a finite
 * `ttlMs` the wait also outlives the task's retention: the result is lost for certain and nothing says so.
 * Real HTTP on loopback (a hostile server of our own), fake timers. CLIENT-REQUIREMENTS 1.3 (no promise waits for
 * ever), 5.7 (poll at the latest pollIntervalMs).
 *
 * Design choice, left to the lead (it.fails): bound the honoured interval (one hour, like Retry-After), or never
 * schedule a poll past the task's expiry (poll at it; the server then answers the result or -32602), or settle
 * `TaskExpiredError` at once as the Retry-After path does when its wait outlives the retention.
 */
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS } from '../../src/tasks/decisions.js';
import { advance, box, useBench4 } from './hostile4-harness.js';
import { task } from './hostile4-server.js';

const bench = useBench4();

describe('hostile4: pollIntervalMs far past any useful wait', () => {
  for (const [wire, ttlMs] of [
    ['1e400', 'null'],
    ['1e300', 'null'],
    ['1e400', '600000'],
  ] as const) {
    it.fails(`pollIntervalMs ${wire}, ttlMs ${ttlMs}: the task is polled again within MAX_RETRY_AFTER_MS and its result arrives`, async () => {
      bench.server.reply = (r) => {
        if (r.method === 'tools/call')
          return {
            status: 200,
            raw: `{"jsonrpc":"2.0","id":${JSON.stringify(r.id)},"result":{"resultType":"task","taskId":"slow-poll","status":"working","createdAt":"2026-08-01T09:00:00Z","lastUpdatedAt":"2026-08-01T09:00:00Z","ttlMs":${ttlMs},"pollIntervalMs":${wire}}}`,
          };
        if (r.method === 'tasks/get')
          return {
            result: {
              resultType: 'complete',
              ...task('slow-poll', { status: 'completed', ttlMs: null, result: { content: [] } }),
            },
          };
        return { result: {} };
      };
      const client = bench.client();
      const call = box(client.callTool('slow', {}));
      await advance(1_000, 100); // the creation answer arrives
      await advance(MAX_RETRY_AFTER_MS, 60_000);
      expect(bench.server.seen.map((r) => r.method)).toEqual(['tools/call', 'tasks/get']);
      expect(call).toEqual({ settled: true, value: { content: [] } });
    }, 30_000);
  }
});
