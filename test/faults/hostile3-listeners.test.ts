/**
 * One caller's `AbortSignal` shared by many waits on task outcomes (`handle.result({ signal })`, a process-wide
 * shutdown signal say): Node warns past ten `abort` listeners on one `AbortSignal` (MaxListenersExceededWarning), so
 * every wait the client runs follows that signal through one listener of its own, removed when the last wait ends.
 * Real HTTP on loopback, fake timers for the client's clock. CLIENT-REQUIREMENTS 1.3 (nothing silent or noisy: a
 * warning that is no leak hides the ones that are).
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { CallStart, CallToolResult } from '../../src/node.js';
import { createdTask, settledBox, useHostile } from './hostile3-harness.js';
import { ioTurn, until } from './hostile3-server.js';

const bench = useHostile();

describe('hostile3: one AbortSignal shared by 30 handle.result() waits', () => {
  it('no MaxListenersExceededWarning; every wait rejects with the reason; the tasks keep running; no listener left', async () => {
    const client = bench.client({}, { maxConnectionsPerOrigin: 30 });
    const starts = Array.from({ length: 30 }, (_, i) => settledBox(client.startTool('deploy', { i })));
    for (let i = 0; i < 30; i++) (await bench.server.next('tools/call')).result(createdTask(`task-${i}`));
    await until(() => starts.every((s) => s.settled), 'started');
    const controller = new AbortController();
    const handles = starts.map((s) => (s.value as CallStart<CallToolResult> & { resultType: 'task' }).task);
    const waits = handles.map((h) => settledBox(h.result({ signal: controller.signal })));
    for (let i = 0; i < 10; i++) await ioTurn(); // a process warning is emitted on the next tick
    expect(bench.warnings.map(String)).toEqual([]);
    expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
    const reason = new Error('stop waiting');
    controller.abort(reason);
    await until(() => waits.every((w) => w.settled), 'waits settled');
    for (const wait of waits) expect(wait.error).toBe(reason);
    expect(handles.every((h) => !h.done)).toBe(true); // only the waits stopped
    expect(bench.server.count('tasks/cancel')).toBe(0);
    const other = new AbortController();
    const late = handles.slice(0, 12).map((h) => h.result({ signal: other.signal }));
    expect(getEventListeners(other.signal, 'abort').length).toBeLessThanOrEqual(1);
    void late.map((p) => p.catch(() => undefined));
  });
});
