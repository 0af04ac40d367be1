/**
 * `close()` waits for calls in flight at most 2 × `abortGraceMs`. The longest grace the option accepts is the longest
 * timer delay (2,147,483,647 ms): twice that must still be a wait, never a timer that overflows and fires after
 * 1 ms (Node's TimeoutOverflowWarning), which would close the transport under a call still reading its creation's
 * answer. Real HTTP on loopback, fake timers for the client's clock.
 */
import { describe, expect, it, vi } from 'vitest';
import { ClientClosedError } from '../../src/node.js';
import { createdTask, settledBox, useHostile } from './hostile3-harness.js';
import { until } from './hostile3-server.js';

const bench = useHostile();

describe('hostile3: close() with the longest abortGraceMs', () => {
  it('a task answered 200 s into the grace is still cancelled by id; close() waited for it', async () => {
    const client = bench.client({ timeoutMs: 1_000_000, limits: { abortGraceMs: 2_000_000_000 } });
    const call = settledBox(client.callTool('deploy', {}));
    const held = await bench.server.next('tools/call');
    const closing = settledBox(client.close());
    await vi.advanceTimersByTimeAsync(200_000);
    expect(closing.settled).toBe(false);
    expect(held.clientGone()).toBe(false);
    held.result(createdTask('task-late'));
    await until(() => call.settled && closing.settled, 'settled');
    expect(call.error).toBeInstanceOf(ClientClosedError);
    expect(call.error).toMatchObject({ taskId: 'task-late', outcomeUnknown: false });
    expect(bench.server.log.map((r) => [r.method, r.params.taskId])).toEqual([
      ['tools/call', undefined],
      ['tasks/cancel', 'task-late'],
    ]);
  });
});
