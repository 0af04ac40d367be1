/**
 * One caller's `AbortSignal` shared by many waits on task outcomes (`handle.result({ signal })`, a process-wide
 * shutdown signal say): Node warns past ten `abort` listeners on one `AbortSignal` (MaxListenersExceededWarning), so
 * every wait the client runs follows that signal through one listener of its own, removed when the last wait ends.
 * Real HTTP on loopback, fake timers for the client's clock. CLIENT-REQUIREMENTS 1.3 (nothing silent or noisy: a
 * warning that is no leak hides the ones that are).
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { TaskToolRuntime } from '../../src/adapters/tool-runtime.js';
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

describe('hostile3: one framework AbortSignal shared by 12 adapted tool calls (an agent step running tools in parallel)', () => {
  it('while they start and while they wait on their tasks: no MaxListenersExceededWarning, at most one listener; the abort cancels every task', async () => {
    const client = bench.client({}, { maxConnectionsPerOrigin: 12 });
    const [tool] = new TaskToolRuntime(client, { maxWaitMs: 600_000 }).adapt([
      { name: 'deploy', inputSchema: { type: 'object' } },
    ]);
    const controller = new AbortController();
    const runs = Array.from({ length: 12 }, (_, i) =>
      settledBox(tool!.run({ i }, { signal: controller.signal, toolCallId: `call-${i}` })),
    );
    const held = [];
    for (let i = 0; i < 12; i++) held.push(await bench.server.next('tools/call'));
    for (let i = 0; i < 10; i++) await ioTurn();
    expect(bench.warnings.map(String)).toEqual([]); // while starting
    expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
    for (const [i, h] of held.entries()) h.result(createdTask(`task-${i}`));
    await until(() => bench.server.log.length === 12 && runs.every((r) => !r.settled), 'tasks');
    for (let i = 0; i < 50; i++) await ioTurn();
    expect(bench.warnings.map(String)).toEqual([]); // while waiting
    expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
    const reason = new Error('step aborted');
    controller.abort(reason);
    await until(() => runs.every((r) => r.settled) && bench.server.count('tasks/cancel') === 12, 'aborted');
    for (const run of runs) expect(run.error).toBe(reason);
  });
});
