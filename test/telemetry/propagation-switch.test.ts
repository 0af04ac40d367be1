/**
 * The `traceContext` option, per client (one client talks to one server), with the real OpenTelemetry SDK
 * (`@opentelemetry/sdk-trace-base` in-memory exporter, the W3C trace-context and baggage propagators, the
 * AsyncLocalStorage context manager) against the reference server over loopback HTTP: what reaches the server in
 * `params._meta` by default, with `'with-baggage'`, and with `false` (spans still recorded); a wrong value is refused.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StreamableHttpTransport, TaskClient, type TaskClientOptions } from '../../src/index.js';
import { loadTelemetry } from '../../src/internal/telemetry.js';
import { createTaskServer, textResult, type TaskServer } from '../../src/testing/index.js';

describe('traceContext: what trace context reaches the server', () => {
  const exporter = new InMemorySpanExporter();
  const contextManager = new AsyncLocalStorageContextManager();
  let server: TaskServer;
  const seen: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    propagation.setGlobalPropagator(
      new CompositePropagator({
        propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
      }),
    );
    await loadTelemetry();
    server = await createTaskServer({
      catalog: {
        tools: [
          {
            name: 'whoami',
            description: 'Records the _meta it received.',
            inputSchema: { type: 'object' },
            run: async (ctx) => {
              seen.push(ctx.meta);
              return textResult('ok');
            },
          },
        ],
      },
    });
  });
  beforeEach(() => {
    exporter.reset();
    seen.length = 0;
  });
  afterAll(async () => {
    await server.close();
    trace.disable();
    propagation.disable();
    context.disable();
  });

  /** Calls `whoami` inside a context carrying the baggage `tenant=acme`; resolves with the `_meta` the tool saw. */
  async function callWithBaggage(options: Partial<TaskClientOptions>): Promise<Record<string, unknown>> {
    const client = new TaskClient({ transport: new StreamableHttpTransport(server.url), ...options });
    try {
      const baggage = propagation.createBaggage({ tenant: { value: 'acme' } });
      await context.with(propagation.setBaggage(context.active(), baggage), () =>
        client.callTool('whoami', {}),
      );
      expect(seen).toHaveLength(1);
      return seen[0]!;
    } finally {
      await client.close();
    }
  }

  const spanTraceparent = (): string => {
    const span = exporter.getFinishedSpans().find((s) => s.name === 'tools/call whoami');
    expect(span).toBeDefined();
    const ctx = span!.spanContext();
    return `00-${ctx.traceId}-${ctx.spanId}-01`;
  };

  it('by default: traceparent of the request span, and no baggage even when the context has some', async () => {
    const meta = await callWithBaggage({});
    expect(meta.traceparent).toBe(spanTraceparent());
    expect(meta).not.toHaveProperty('baggage');
  });

  it("'with-baggage': traceparent and the active context's baggage", async () => {
    const meta = await callWithBaggage({ traceContext: 'with-baggage' });
    expect(meta.traceparent).toBe(spanTraceparent());
    expect(meta.baggage).toBe('tenant=acme');
  });

  it('false: no trace context at all reaches the server; the client span is still recorded', async () => {
    const meta = await callWithBaggage({ traceContext: false });
    expect(meta).not.toHaveProperty('traceparent');
    expect(meta).not.toHaveProperty('tracestate');
    expect(meta).not.toHaveProperty('baggage');
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['tools/call whoami']);
  });

  it('two clients in one process, one per server: each follows its own setting', async () => {
    const first = await callWithBaggage({ traceContext: false });
    seen.length = 0;
    const second = await callWithBaggage({});
    expect(first).not.toHaveProperty('traceparent');
    expect(second.traceparent).toEqual(expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/));
  });

  it('a value other than true, false or "with-baggage" is a TypeError naming the option', () => {
    const transport = new StreamableHttpTransport(server.url);
    expect(() => new TaskClient({ transport, traceContext: 'baggage' as never })).toThrow(
      new TypeError(`TaskClient: option "traceContext" must be true, false or 'with-baggage'; got "baggage"`),
    );
  });
});
