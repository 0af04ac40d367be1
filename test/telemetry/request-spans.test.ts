/**
 * OpenTelemetry request spans with the real SDK (`@opentelemetry/sdk-trace-base`, in-memory exporter) against the
 * reference server over loopback HTTP: one client span per request named and attributed per the MCP semantic
 * conventions, its context arriving at the server in `params._meta.traceparent`, and `error.type` on failures.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError, StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { loadTelemetry } from '../../src/internal/telemetry.js';
import { createTaskServer, textResult, type TaskServer } from '../../src/testing/index.js';

describe('OpenTelemetry request spans over loopback HTTP', () => {
  const exporter = new InMemorySpanExporter();
  let server: TaskServer;
  const seen: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    await loadTelemetry();
    server = await createTaskServer({
      catalog: {
        tools: [
          {
            name: 'get-weather',
            description: 'Returns the _meta it received; isError when asked.',
            inputSchema: { type: 'object' },
            run: async (ctx) => {
              seen.push(ctx.meta);
              return textResult('sunny', { isError: ctx.args.fail === true });
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
  });

  it('a tools/call gets one client span with the convention attributes, and its traceparent reaches the server', async () => {
    const client = new TaskClient({ transport: new StreamableHttpTransport(server.url) });
    try {
      exporter.reset();
      await client.callTool('get-weather', {});
      const [span] = exporter.getFinishedSpans().filter((s) => s.name === 'tools/call get-weather');
      expect(span).toBeDefined();
      const port = Number(new URL(server.url).port);
      expect(span!.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'get-weather',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': '2026-07-28',
        'server.address': '127.0.0.1',
        'server.port': port,
      });
      expect(typeof span!.attributes['jsonrpc.request.id']).toBe('string');
      expect(span!.attributes['error.type']).toBeUndefined();
      const ctx = span!.spanContext();
      expect(seen.at(-1)?.traceparent).toBe(`00-${ctx.traceId}-${ctx.spanId}-01`);
      expect(seen.at(-1)?.baggage).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('isError sets error.type tool_error; a JSON-RPC error sets error.type to its code', async () => {
    const client = new TaskClient({ transport: new StreamableHttpTransport(server.url) });
    try {
      exporter.reset();
      await client.callTool('get-weather', { fail: true });
      await client.callTool('no-such-tool', {}).catch((e: unknown) => expect(e).toBeInstanceOf(McpError));
      const spans = exporter.getFinishedSpans();
      expect(spans.find((s) => s.name === 'tools/call get-weather')?.attributes['error.type']).toBe(
        'tool_error',
      );
      const failed = spans.find((s) => s.name === 'tools/call no-such-tool');
      expect(failed?.attributes['error.type']).toMatch(/^-32\d{3}$/);
      expect(failed?.status.code).toBe(2);
    } finally {
      await client.close();
    }
  });
});
