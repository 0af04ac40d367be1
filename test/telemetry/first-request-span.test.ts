/**
 * `@opentelemetry/api` is an optional peer: in Node the entry point loads it at once when installed, so the very first
 * request after `new TaskClient()` is traced too (no request waits for an asynchronous load).
 * Real SDK (`@opentelemetry/sdk-trace-base`, in-memory exporter), reference server over loopback HTTP.
 */
import { propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, expect, it } from 'vitest';
import { StreamableHttpTransport, TaskClient } from '../../src/node.js';
import { createTaskServer } from '../../src/testing/index.js';

afterAll(() => {
  trace.disable();
  propagation.disable();
});

it('the first request right after new TaskClient() gets its span (the Node entry loaded the API at once)', async () => {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const server = await createTaskServer();
  const client = new TaskClient({ transport: new StreamableHttpTransport(server.url) });
  try {
    await client.callTool('echo', { text: 'first' });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['tools/call echo']);
    expect(spans[0]?.attributes['jsonrpc.request.id']).toBe('1');
  } finally {
    await client.close();
    await server.close();
  }
});
