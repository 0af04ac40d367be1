/**
 * OpenTelemetry request spans in the 2025-11-25 era, with the real SDK (`@opentelemetry/sdk-trace-base`, in-memory
 * exporter) against a real 2025-11-25 server: the official SDK 1.x `McpServer` with its experimental tasks, over its
 * Streamable HTTP server transport on loopback. Each request (`initialize`, `tools/list`, `tools/call`,
 * `tasks/result`; `tasks/get` is counted on the task's span) gets the same client span as the 2026-07-28 path, and
 * its `traceparent` arrives at the server in `params._meta`; `traceContext: false` keeps the spans and sends nothing.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpError, StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { loadTelemetry } from '../../src/internal/telemetry.js';
import { startSdkHttpServer } from '../helpers/sdk-http-server.js';

/** A request as it reached the server. */
interface Seen {
  id: unknown;
  method: string;
  meta: Record<string, unknown> | undefined;
}

interface LegacyServer {
  url: string;
  readonly seen: Seen[];
  /** From now on the sessions opened so far are unknown: requests naming one get HTTP 404. */
  forgetSessions(): void;
  close(): Promise<void>;
}

/** The SDK 1.x server: `get-weather` (inline; `isError` when asked) and `forecast` (a task, completed at once). */
async function startLegacyServer(): Promise<LegacyServer> {
  const seen: Seen[] = [];
  const known = new Set<string>();
  const forgotten = new Set<string>();
  const taskStore = new InMemoryTaskStore();
  const server = await startSdkHttpServer(
    () => {
      const mcp = new McpServer(
        { name: 'legacy-traced', version: '1.0.0' },
        { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore },
      );
      mcp.registerTool(
        'get-weather',
        { description: 'sunny; isError when asked', inputSchema: { fail: z.boolean().optional() } },
        async ({ fail }) => ({ content: [{ type: 'text', text: 'sunny' }], isError: fail === true }),
      );
      mcp.experimental.tasks.registerToolTask(
        'forecast',
        { description: 'a task, completed at once', execution: { taskSupport: 'required' } },
        {
          async createTask(extra) {
            const task = await extra.taskStore.createTask({ ttl: 60_000 });
            await extra.taskStore.storeTaskResult(task.taskId, 'completed', {
              content: [{ type: 'text', text: 'rain tomorrow' }],
            });
            return { task };
          },
          getTask: (extra) => extra.taskStore.getTask(extra.taskId),
          getTaskResult: (extra) => extra.taskStore.getTaskResult(extra.taskId) as never,
        },
      );
      return mcp;
    },
    (req, res, body) => {
      const message = body as { id?: unknown; method?: string; params?: { _meta?: Record<string, unknown> } };
      if (message?.method && message.id !== undefined)
        seen.push({ id: message.id, method: message.method, meta: message.params?._meta });
      const sessionId = req.headers['mcp-session-id'];
      if (typeof sessionId !== 'string') return false;
      known.add(sessionId);
      if (!forgotten.has(sessionId)) return false;
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }),
        );
      return true;
    },
  );
  return {
    url: server.url,
    seen,
    forgetSessions: () => {
      for (const id of known) forgotten.add(id);
    },
    close: () => server.close(),
  };
}

const traceparentOf = (span: ReadableSpan): string => {
  const ctx = span.spanContext();
  return `00-${ctx.traceId}-${ctx.spanId}-01`;
};

describe('OpenTelemetry request spans on a 2025-11-25 server', () => {
  const exporter = new InMemorySpanExporter();
  let server: LegacyServer;
  beforeAll(async () => {
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    await loadTelemetry();
    server = await startLegacyServer();
  });
  beforeEach(() => {
    exporter.reset();
    server.seen.length = 0;
  });
  afterAll(async () => {
    await server.close();
    trace.disable();
    propagation.disable();
    context.disable();
  });

  it('a tools/call gets the convention span (mcp.protocol.version 2025-11-25), and its traceparent reaches the server', async () => {
    const client = new TaskClient({ transport: new StreamableHttpTransport(server.url), era: 'legacy' });
    try {
      await client.callTool('get-weather', {});
      const spans = exporter.getFinishedSpans();
      const call = spans.find((s) => s.name === 'tools/call get-weather');
      expect(call).toBeDefined();
      expect(call!.kind).toBe(2); // SpanKind.CLIENT
      const received = server.seen.find((r) => r.method === 'tools/call');
      expect(call!.attributes).toEqual({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'get-weather',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': '2025-11-25',
        'jsonrpc.request.id': String(received?.id),
        'server.address': '127.0.0.1',
        'server.port': Number(new URL(server.url).port),
      });
      expect(received?.meta?.traceparent).toBe(traceparentOf(call!));
      expect(received?.meta?.baggage).toBeUndefined();
      // Every request of the session is traced, the handshake included, each carrying its own span's context.
      const initialize = spans.find((s) => s.name === 'initialize');
      expect(initialize?.attributes['mcp.protocol.version']).toBe('2025-11-25');
      expect(server.seen.find((r) => r.method === 'initialize')?.meta?.traceparent).toBe(
        traceparentOf(initialize!),
      );
    } finally {
      await client.close();
    }
  });

  it('a task: tools/call names the task; its task span links to it; tasks/result is a child of the task span; tasks/get carries the task span', async () => {
    const client = new TaskClient({ transport: new StreamableHttpTransport(server.url), era: 'legacy' });
    try {
      const result = await client.callTool('forecast', {});
      expect(result.content).toEqual([{ type: 'text', text: 'rain tomorrow' }]);
      const spans = exporter.getFinishedSpans();
      const creation = spans.find((s) => s.name === 'tools/call forecast');
      const taskId = creation?.attributes['mcp_tasks.task.id'];
      expect(taskId).toEqual(expect.any(String));
      const task = spans.find((s) => s.name === 'task forecast');
      expect(task?.attributes['mcp_tasks.task.id']).toBe(taskId);
      expect(task?.links.map((l) => l.context.spanId)).toEqual([creation!.spanContext().spanId]);
      const results = spans.filter((s) => s.name === 'tasks/result');
      expect(results.length).toBeGreaterThan(0);
      for (const span of results) {
        expect(span.parentSpanContext?.spanId).toBe(task!.spanContext().spanId);
        expect(span.attributes).toMatchObject({
          'mcp_tasks.task.id': taskId,
          'mcp.protocol.version': '2025-11-25',
        });
        const received = server.seen.find((r) => String(r.id) === span.attributes['jsonrpc.request.id']);
        expect(received?.method).toBe('tasks/result');
        expect(received?.meta?.traceparent).toBe(traceparentOf(span));
      }
      // A poll gets no span of its own (the task span counts it) but carries the task span's context.
      expect(spans.filter((s) => s.name === 'tasks/get')).toEqual([]);
      for (const poll of server.seen.filter((r) => r.method === 'tasks/get'))
        expect(poll.meta?.traceparent).toBe(traceparentOf(task!));
    } finally {
      await client.close();
    }
  });

  it('errors set error.type: tool_error on isError, the JSON-RPC code (-32601) on an error reply', async () => {
    const client = new TaskClient({ transport: new StreamableHttpTransport(server.url), era: 'legacy' });
    try {
      await client.callTool('get-weather', { fail: true });
      // This server has no prompts: the SDK answers -32601 (method not found).
      const refused = await client.getPrompt('no-such-prompt').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).code).toBe(-32601);
      const spans = exporter.getFinishedSpans();
      const failedTool = spans.find((s) => s.name === 'tools/call get-weather');
      expect(failedTool?.attributes['error.type']).toBe('tool_error');
      expect(failedTool?.status.code).toBe(2); // SpanStatusCode.ERROR
      const failed = spans.find((s) => s.name === 'prompts/get no-such-prompt');
      expect(failed?.attributes).toMatchObject({
        'gen_ai.prompt.name': 'no-such-prompt',
        'error.type': '-32601',
        'rpc.response.status_code': '-32601',
      });
      expect(failed?.status.code).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('an HTTP failure sets error.type to the error class and http.response.status_code', async () => {
    const client = new TaskClient({ transport: new StreamableHttpTransport(server.url), era: 'legacy' });
    try {
      await client.callTool('get-weather', {});
      server.forgetSessions(); // the next request meets a 404, then is sent again in a new session
      exporter.reset();
      await client.callTool('get-weather', {});
      const spans = exporter.getFinishedSpans().filter((s) => s.name === 'tools/call get-weather');
      expect(spans).toHaveLength(2);
      expect(spans[0]?.attributes).toMatchObject({
        'error.type': 'HttpError',
        'http.response.status_code': 404,
      });
      expect(spans[0]?.status.code).toBe(2);
      expect(spans[1]?.attributes['error.type']).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('traceContext: false keeps the spans and sends no trace context to the server', async () => {
    const client = new TaskClient({
      transport: new StreamableHttpTransport(server.url),
      era: 'legacy',
      traceContext: false,
    });
    try {
      await client.callTool('get-weather', {});
      expect(exporter.getFinishedSpans().map((s) => s.name)).toContain('tools/call get-weather');
      expect(server.seen.length).toBeGreaterThan(0);
      for (const request of server.seen) expect(request.meta?.traceparent).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});
