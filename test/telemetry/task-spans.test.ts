/**
 * OpenTelemetry task spans and metrics with the real SDK (`@opentelemetry/sdk-trace-base` with its in-memory
 * exporter, `@opentelemetry/sdk-metrics` with a reader collected on demand) against the reference server over
 * loopback HTTP: one span per task, child of and linked to the creating request's span, with the task attributes
 * and its events in order; no `tasks/get` spans; a task resumed from the same FileTaskStore gets a new span linked
 * to the first; the request and task metrics with their values; `error.type` on failures.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTaskStore } from '../../src/file-store.js';
import { StreamableHttpTransport, TaskClient, TaskFailedError } from '../../src/index.js';
import type { JsonRpcRequest } from '../../src/protocol/jsonrpc.js';
import { loadTelemetry } from '../../src/internal/telemetry.js';
import { createTaskServer, JobError, textResult, type TaskServer } from '../../src/testing/index.js';

/** A reader the test collects when it wants (cumulative). */
class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** The histogram points of `name`, each with its attributes. */
async function histogram(reader: MetricReader, name: string): Promise<Array<DataPoint<Histogram>>> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics
    .flatMap((s) => s.metrics)
    .filter((m) => m.descriptor.name === name)
    .flatMap((m) => m.dataPoints as Array<DataPoint<Histogram>>);
}

/** The task span's events as `name` or `name:detail`, with consecutive repeats of one status folded. */
function eventTrail(span: ReadableSpan): string[] {
  const trail: string[] = [];
  for (const event of span.events) {
    const a = event.attributes ?? {};
    const detail = a['mcp_tasks.task.status'] ?? a['mcp_tasks.input.key'];
    const entry = detail === undefined ? event.name : `${event.name}:${String(detail)}`;
    if (trail.at(-1) !== entry) trail.push(entry);
  }
  return trail;
}

describe('OpenTelemetry task spans and metrics over loopback HTTP', () => {
  const exporter = new InMemorySpanExporter();
  const reader = new CollectingReader();
  let server: TaskServer;
  /** Resolves the `long_job` runs waiting for it. */
  const releases: Array<() => void> = [];
  beforeAll(async () => {
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    await loadTelemetry();
    server = await createTaskServer({
      pollIntervalMs: 20,
      inlineBudgetMs: 10,
      catalog: {
        tools: [
          {
            name: 'approve_payment',
            description: 'Works, asks for an approval, then completes.',
            inputSchema: { type: 'object' },
            taskSupport: 'required',
            run: async (ctx) => {
              ctx.report('checking');
              await ctx.sleep(60);
              const answers = await ctx.input({
                approve: {
                  method: 'elicitation/create',
                  params: {
                    mode: 'form',
                    message: 'Pay 10 EUR?',
                    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
                  },
                },
              });
              await ctx.sleep(60);
              return textResult(`paid: ${JSON.stringify(answers.approve)}`);
            },
          },
          {
            name: 'long_job',
            description: 'Runs until the test releases it.',
            inputSchema: { type: 'object' },
            taskSupport: 'required',
            run: async (ctx) => {
              await new Promise<void>((resolve) => {
                releases.push(resolve);
                ctx.signal.addEventListener('abort', () => resolve(), { once: true });
              });
              return textResult('done');
            },
          },
          {
            name: 'broken_job',
            description: 'Fails as a task with -32603.',
            inputSchema: { type: 'object' },
            taskSupport: 'required',
            run: async (ctx) => {
              await ctx.sleep(60);
              throw new JobError(-32603, 'upstream unavailable');
            },
          },
        ],
      },
    });
  });
  afterAll(async () => {
    await server.close();
    trace.disable();
    propagation.disable();
    context.disable();
    metrics.disable();
  });

  it('a task with a question: one span, child of and linked to its tools/call span, attributes and events in order; its polls are counted, not spanned', async () => {
    // The real transport, with the requests it is given seen on their way.
    const transport = new StreamableHttpTransport(server.url);
    const sent: JsonRpcRequest[] = [];
    const request = transport.request.bind(transport);
    transport.request = (message, options) => {
      sent.push(message);
      return request(message, options);
    };
    const client = new TaskClient({
      transport,
      polling: { minIntervalMs: 10 },
      handlers: { elicitation: async () => ({ action: 'accept', content: { ok: true } }) },
    });
    try {
      exporter.reset();
      const start = await client.startTool('approve_payment', {});
      if (start.resultType !== 'task') throw new Error('expected a task');
      const taskId = start.task.taskId;
      await start.task.result();
      const spans = exporter.getFinishedSpans();
      const created = spans.find((s) => s.name === 'tools/call approve_payment');
      const task = spans.find((s) => s.name === 'task approve_payment');
      expect(created).toBeDefined();
      expect(task).toBeDefined();
      const polls = server.stats.taskGetTimes(taskId).length;
      expect(polls).toBeGreaterThan(1);
      expect(task!.attributes).toEqual({
        'mcp_tasks.task.id': taskId,
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'approve_payment',
        'gen_ai.operation.name': 'execute_tool',
        'mcp_tasks.task.status': 'completed',
        'mcp_tasks.task.polls': polls,
        'mcp_tasks.task.input_rounds': 1,
      });
      expect(task!.status.code).toBe(0); // unset: the task completed
      // In the creating request's trace, under it, and linked to it.
      const createdContext = created!.spanContext();
      expect(task!.spanContext().traceId).toBe(createdContext.traceId);
      expect(task!.parentSpanContext?.spanId).toBe(createdContext.spanId);
      expect(task!.links).toHaveLength(1);
      expect(task!.links[0]!.context.spanId).toBe(createdContext.spanId);
      expect(task!.links[0]!.attributes).toEqual({ 'mcp_tasks.link.kind': 'created_by' });
      expect(created!.attributes['mcp_tasks.task.id']).toBe(taskId);

      const trail = eventTrail(task!);
      expect(trail[0]).toBe('mcp_tasks.task.status:working');
      expect(trail.at(-1)).toBe('mcp_tasks.task.status:completed');
      const at = (entry: string): number => trail.indexOf(entry);
      expect(at('mcp_tasks.task.status:input_required')).toBeGreaterThan(0);
      expect(at('mcp_tasks.input.requested:approve')).toBe(at('mcp_tasks.task.status:input_required') + 1);
      expect(at('mcp_tasks.input.answered:approve')).toBeGreaterThan(at('mcp_tasks.input.requested:approve'));
      expect(trail.lastIndexOf('mcp_tasks.task.status:working')).toBeGreaterThan(
        at('mcp_tasks.input.requested:approve'),
      );
      const answered = task!.events.find((e) => e.name === 'mcp_tasks.input.answered');
      expect(answered?.attributes).toEqual({
        'mcp_tasks.input.key': 'approve',
        'mcp_tasks.input.action': 'accept',
      });

      // tasks/get: no span of its own, the task span's context in its _meta; tasks/update: a child of the task span.
      const taskContext = task!.spanContext();
      const polled = sent.filter((m) => m.method === 'tasks/get');
      expect(polled.length).toBe(polls);
      for (const get of polled)
        expect((get.params as { _meta: Record<string, unknown> })._meta.traceparent).toBe(
          `00-${taskContext.traceId}-${taskContext.spanId}-01`,
        );
      expect(spans.filter((s) => s.name === 'tasks/get')).toEqual([]);
      const update = spans.find((s) => s.name === 'tasks/update');
      expect(update?.parentSpanContext?.spanId).toBe(task!.spanContext().spanId);
      expect(update?.attributes['mcp_tasks.task.id']).toBe(taskId);

      // Metrics: polls per task is what the server saw; one task duration; its time in input_required.
      const tool = (p: DataPoint<Histogram>): boolean =>
        p.attributes['gen_ai.tool.name'] === 'approve_payment';
      const [pollsPoint] = (await histogram(reader, 'mcp_tasks.task.polls')).filter(tool);
      expect(pollsPoint?.value.count).toBe(1);
      expect(pollsPoint?.value.sum).toBe(polls);
      expect(pollsPoint?.attributes).toEqual({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'approve_payment',
        'mcp_tasks.task.status': 'completed',
      });
      const [duration] = (await histogram(reader, 'mcp_tasks.task.duration')).filter(tool);
      expect(duration?.value.count).toBe(1);
      expect(duration!.value.sum).toBeGreaterThan(0.1); // two 60 ms sleeps on the server
      const [waiting] = (await histogram(reader, 'mcp_tasks.task.input_required.duration')).filter(tool);
      expect(waiting?.value.count).toBe(1);
      expect(waiting!.value.sum).toBeGreaterThan(0);
      expect(waiting!.value.sum).toBeLessThan(duration!.value.sum!);
      const operations = await histogram(reader, 'mcp.client.operation.duration');
      const port = Number(new URL(server.url).port);
      const call = operations.find((p) => p.attributes['mcp.method.name'] === 'tools/call' && tool(p));
      expect(call?.attributes).toEqual({
        'mcp.method.name': 'tools/call',
        'mcp.protocol.version': '2026-07-28',
        'gen_ai.tool.name': 'approve_payment',
        'gen_ai.operation.name': 'execute_tool',
        'server.address': '127.0.0.1',
        'server.port': port,
      });
      expect(call?.value.count).toBe(1);
      const gets = operations.find((p) => p.attributes['mcp.method.name'] === 'tasks/get');
      expect(gets?.value.count).toBe(server.stats.count('tasks/get'));
      const updates = operations.find((p) => p.attributes['mcp.method.name'] === 'tasks/update');
      expect(updates?.value.count).toBe(1);
    } finally {
      await client.close();
    }
  });

  it.each(['resume', 'task'] as const)(
    'a task followed again from the same FileTaskStore (client.%s, after a restart or a takeover) gets a new span linked to the first, whose context the record keeps',
    async (how) => {
      const dir = await mkdtemp(join(tmpdir(), 'task-spans-'));
      const first = new TaskClient({
        transport: new StreamableHttpTransport(server.url),
        store: new FileTaskStore(dir),
        polling: { minIntervalMs: 10 },
      });
      let second: TaskClient | undefined;
      try {
        exporter.reset();
        const start = await first.startTool('long_job', {});
        if (start.resultType !== 'task') throw new Error('expected a task');
        const taskId = start.task.taskId;
        await start.task.refresh(); // one poll
        await first.close(); // stops following: the first span ends, the record stays resumable
        const firstSpan = exporter.getFinishedSpans().find((s) => s.name === 'task long_job');
        expect(firstSpan).toBeDefined();
        expect(firstSpan!.attributes['mcp_tasks.task.status']).toBe('working');
        expect(firstSpan!.attributes['error.type']).toBe('ClientClosedError');
        const firstContext = firstSpan!.spanContext();
        const record = await new FileTaskStore(dir).get(taskId);
        expect(record?.traceparent).toBe(`00-${firstContext.traceId}-${firstContext.spanId}-01`);

        second = new TaskClient({
          transport: new StreamableHttpTransport(server.url),
          store: new FileTaskStore(dir),
          polling: { minIntervalMs: 10 },
        });
        const resumed = how === 'resume' ? await second.resume(taskId) : await second.task(taskId);
        await resumed.refresh();
        for (const release of releases.splice(0)) release();
        await resumed.result();
        const spans = exporter.getFinishedSpans().filter((s) => s.name === 'task long_job');
        expect(spans).toHaveLength(2);
        const again = spans[1]!;
        expect(again.spanContext().spanId).not.toBe(firstContext.spanId);
        expect(again.links.map((l) => [l.context.traceId, l.context.spanId, l.attributes])).toEqual([
          [firstContext.traceId, firstContext.spanId, { 'mcp_tasks.link.kind': 'first_follow' }],
        ]);
        expect(again.attributes).toMatchObject({
          'mcp_tasks.task.id': taskId,
          'mcp_tasks.task.followed_again': true,
          'mcp_tasks.task.status': 'completed',
        });
        expect(again.attributes['error.type']).toBeUndefined();
        // The record still names the first span: a third follower links to the same one.
        const kept = await new FileTaskStore(dir).get(taskId);
        expect(kept?.traceparent).toBe(`00-${firstContext.traceId}-${firstContext.spanId}-01`);
      } finally {
        await first.close();
        await second?.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('a failed task sets error.type to its JSON-RPC code on the span and the task metrics; a cancel is told in events', async () => {
    const client = new TaskClient({
      transport: new StreamableHttpTransport(server.url),
      polling: { minIntervalMs: 10 },
    });
    try {
      exporter.reset();
      await expect(client.callTool('broken_job', {})).rejects.toBeInstanceOf(TaskFailedError);
      const failed = exporter.getFinishedSpans().find((s) => s.name === 'task broken_job');
      expect(failed?.attributes['error.type']).toBe('-32603');
      expect(failed?.attributes['mcp_tasks.task.status']).toBe('failed');
      expect(failed?.status.code).toBe(2);
      const [point] = (await histogram(reader, 'mcp_tasks.task.duration')).filter(
        (p) => p.attributes['gen_ai.tool.name'] === 'broken_job',
      );
      expect(point?.attributes['error.type']).toBe('-32603');

      const start = await client.startTool('long_job', {});
      if (start.resultType !== 'task') throw new Error('expected a task');
      await start.task.cancel();
      await expect(start.task.result()).rejects.toThrow();
      const cancelled = exporter.getFinishedSpans().find((s) => s.name === 'task long_job');
      expect(eventTrail(cancelled!)).toEqual([
        'mcp_tasks.task.status:working',
        'mcp_tasks.cancel.requested',
        'mcp_tasks.cancel.acknowledged',
        'mcp_tasks.task.status:cancelled',
        'mcp_tasks.cancel.confirmed',
      ]);
      expect(cancelled?.attributes).toMatchObject({
        'mcp_tasks.task.status': 'cancelled',
        'mcp_tasks.task.cancel_requested': true,
        'error.type': 'TaskCancelledError',
      });
      const cancel = exporter.getFinishedSpans().find((s) => s.name === 'tasks/cancel');
      expect(cancel?.parentSpanContext?.spanId).toBe(cancelled!.spanContext().spanId);

      await expect(client.callTool('no-such-tool', {})).rejects.toThrow();
      const refused = (await histogram(reader, 'mcp.client.operation.duration')).find(
        (p) => p.attributes['gen_ai.tool.name'] === 'no-such-tool',
      );
      expect(refused?.attributes['error.type']).toMatch(/^-32\d{3}$/);
    } finally {
      await client.close();
    }
  });
});
