/**
 * Free when unused: with `@opentelemetry/api` loaded but no tracer or meter provider registered, a request builds no
 * span, no `_meta` copy and no metric attributes (its telemetry is `undefined`), and a task has no observer, so its
 * transitions cost one optional call each.
 */
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it, vi } from 'vitest';
import { loadTelemetry, startRequestSpan, tracerRegistered } from '../../src/internal/telemetry.js';
import { traceTask } from '../../src/tasks/task-telemetry.js';

describe('OpenTelemetry without a provider', () => {
  it('a request and a task get no telemetry objects, and ask the API for no tracer', async () => {
    expect(await loadTelemetry()).toBeDefined();
    const getTracer = vi.spyOn(trace, 'getTracer');
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
    expect(getTracer).not.toHaveBeenCalled();
    getTracer.mockRestore();
  });

  it('tells a registered tracer provider from the no-op one, before and after it is unregistered', async () => {
    const otel = await loadTelemetry();
    if (otel === undefined) throw new Error('@opentelemetry/api is a dev dependency');
    expect(tracerRegistered(otel)).toBe(false);
    const provider = new BasicTracerProvider();
    trace.setGlobalTracerProvider(provider);
    try {
      expect(tracerRegistered(otel)).toBe(true);
    } finally {
      trace.disable();
    }
    expect(tracerRegistered(otel)).toBe(false);
    await provider.shutdown();
  });
});
