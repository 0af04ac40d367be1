/**
 * Free when unused: with `@opentelemetry/api` loaded but no tracer or meter provider registered, a request builds no
 * span, no `_meta` copy and no metric attributes (its telemetry is `undefined`), and a task has no observer, so its
 * transitions cost one optional call each.
 */
import { describe, expect, it } from 'vitest';
import { loadTelemetry, startRequestSpan } from '../../src/internal/telemetry.js';
import { traceTask } from '../../src/tasks/task-telemetry.js';

describe('OpenTelemetry without a provider', () => {
  it('a request and a task get no telemetry objects', async () => {
    expect(await loadTelemetry()).toBeDefined();
    const meta = Object.freeze({ protocolVersion: '2026-07-28' });
    const owner = {};
    for (const method of ['tools/call', 'tasks/get', 'tasks/update'])
      expect(
        startRequestSpan(
          method,
          1,
          { name: 'x', taskId: 't1' },
          meta,
          { protocolVersion: '2026-07-28', owner },
          true,
        ),
      ).toBeUndefined();
    expect(
      traceTask({
        taskId: 't1',
        method: 'tools/call',
        name: 'x',
        owner,
        createdIn: undefined,
        firstSpan: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        task: { taskId: 't1', status: 'working', ttlMs: null } as never,
        now: Date.now,
      }),
    ).toBeUndefined();
  });
});
