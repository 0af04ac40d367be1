/**
 * A failure that already happened is reported at once: after an invalid `tasks/get` answer (a verdict that ends
 * following), a unified call rejects within `abortGraceMs`, whatever the delivery of the task's `tasks/cancel` is still
 * doing; that delivery goes on in the background, and its failure is a `warning` event naming the task
 * (CLIENT-REQUIREMENTS: nothing silent; never orphan work; ext-tasks § Task Cancellation).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidResponseError, McpError, MemoryTaskStore, TaskClient } from '../../src/index.js';
import { ScriptedTransport } from '../helpers/scripted-transport.js';
import { created, deferred, detailed, outcome } from '../helpers/unit-fixtures.js';

const T0 = Date.parse('2026-08-01T12:00:00Z');
const GRACE_MS = 2_000;

/** A task whose `tasks/get` answer is invalid ("completed" without `result`); `tasks/cancel` waits for `cancel`. */
function server(cancel: Promise<Record<string, unknown>>) {
  const transport = new ScriptedTransport((m) => {
    if (m === 'tools/call') return created();
    if (m === 'tasks/cancel') return cancel;
    return detailed({ status: 'completed' });
  });
  const store = new MemoryTaskStore();
  const client = new TaskClient({ transport, store, limits: { abortGraceMs: GRACE_MS } });
  const warnings: string[] = [];
  client.on('warning', (w) => warnings.push(w));
  return { transport, client, store, warnings };
}

describe('an invalid tasks/get answer while tasks/cancel is slow to deliver', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('callTool rejects within abortGraceMs with InvalidResponseError (taskId); the cancel goes on, its failure is a warning', async () => {
    const cancel = deferred<Record<string, unknown>>();
    const { transport, client, store, warnings } = server(cancel.promise);
    const call = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(1_100); // the poll: invalid answer, tasks/cancel sent and unanswered
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    expect(call.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(GRACE_MS);
    expect(call.error).toBeInstanceOf(InvalidResponseError);
    expect((call.error as InvalidResponseError).taskId).toBe('t1');
    expect((await store.get('t1'))?.cancelRequested).toBe(true); // resumable, and known to be cancelled
    expect(warnings).toEqual([]);
    cancel.reject(new McpError('tasks/cancel', { code: -32603, message: 'internal error' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('tasks/cancel for task t1');
    expect(warnings[0]).toContain('was not delivered');
    await client.close();
  });

  it('a cancel acknowledged within the grace: the call rejects when it is, with no warning', async () => {
    const cancel = deferred<Record<string, unknown>>();
    const { client, warnings } = server(cancel.promise);
    const call = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(1_100);
    cancel.resolve({});
    await vi.advanceTimersByTimeAsync(0);
    expect(call.error).toBeInstanceOf(InvalidResponseError);
    expect(warnings).toEqual([]);
    await client.close();
  });
});
