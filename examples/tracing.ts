/**
 * A task's trace, printed as text: `npx tsx examples/tracing.ts`.
 *
 * It registers an OpenTelemetry tracer provider (`@opentelemetry/sdk-trace-base`, spans kept in memory), the W3C
 * propagator and an AsyncLocalStorage context manager, starts the reference task server on loopback, and runs
 * `deploy_release` (a task whose server asks for confirmation, answered by `handlers.elicitation`) inside one span
 * of its own. Then it prints every span as an indented tree: children under their parent, a span with no parent in
 * the trace under the span it links to, each with its kind, duration, attributes, links and events. Your host would
 * register an exporter to its collector instead (OTLP); the client only uses `@opentelemetry/api`.
 */
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { StreamableHttpTransport, TaskClient } from 'mcp-tasks-client';
import { createTaskServer } from 'mcp-tasks-client/testing';

// 1. The host's OpenTelemetry setup (before the first TaskClient: the client loads the API once, when it is built).
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

// 2. A server and a client that answers its question.
const server = await createTaskServer({ timeScale: 0.5 });
const client = new TaskClient({
  transport: new StreamableHttpTransport(server.url),
  handlers: { elicitation: async () => ({ action: 'accept', content: { confirm: true } }) },
});

// 3. One task, inside the host's own span.
const tracer = trace.getTracer('tracing-example');
let outcome = '';
try {
  await tracer.startActiveSpan('deploy 1.2.3', async (span) => {
    try {
      const result = await client.callTool('deploy_release', { version: '1.2.3' });
      outcome = result.content.map((c) => (c.type === 'text' ? c.text : c.type)).join(' ');
    } finally {
      span.end();
    }
  });
} finally {
  await client.close();
  await server.close();
}
await provider.forceFlush();
console.log(`outcome: ${outcome}\n`);
printTrace(exporter.getFinishedSpans());
await provider.shutdown();

/** Prints spans as one tree per trace: by parent, else by first link to a span printed here, else as a root. */
function printTrace(spans: readonly ReadableSpan[]): void {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const children = new Map<ReadableSpan | undefined, ReadableSpan[]>();
  const linked = new Set<ReadableSpan>();
  for (const span of spans) {
    const parentId = span.parentSpanContext?.spanId;
    let under = parentId === undefined ? undefined : byId.get(parentId);
    if (under === undefined) {
      const link = span.links.map((l) => byId.get(l.context.spanId)).find((s) => s !== undefined);
      if (link !== undefined) {
        under = link;
        linked.add(span);
      }
    }
    const list = children.get(under) ?? [];
    list.push(span);
    children.set(under, list);
  }
  const start = (s: ReadableSpan) => s.startTime[0] * 1e3 + s.startTime[1] / 1e6;
  for (const list of children.values()) list.sort((a, b) => start(a) - start(b));
  const t0 = Math.min(...spans.map(start));
  // Attributes every client span carries alike (server, protocol version) are printed once, under the trace id.
  const clients = spans.filter((s) => s.kind === SpanKind.CLIENT);
  const common = Object.entries(clients[0]?.attributes ?? {}).filter(
    ([k, v]) => clients.length > 1 && clients.every((s) => s.attributes[k] === v),
  );
  const shown = (s: ReadableSpan) =>
    Object.entries(s.attributes)
      .filter(([k]) => !common.some(([c]) => c === k))
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  const ms = (t: ReadableSpan['startTime']) => Math.round(t[0] * 1e3 + t[1] / 1e6 - t0);

  const print = (span: ReadableSpan, prefix: string, last: boolean, top: boolean): void => {
    const branch = top ? '' : last ? '└─ ' : '├─ ';
    const kind = SpanKind[span.kind].toLowerCase();
    const took = Math.round(span.duration[0] * 1e3 + span.duration[1] / 1e6);
    const status = span.status.code === 2 ? '  ERROR' : '';
    const how = linked.has(span) ? '  (linked)' : '';
    console.log(
      `${prefix}${branch}${span.name}  [${kind}, +${ms(span.startTime)} ms, ${took} ms]${status}${how}`,
    );
    const inner = prefix + (top ? '' : last ? '   ' : '│  ');
    const below = children.get(span) ?? [];
    const pipe = below.length > 0 ? '│' : ' ';
    const attributes = shown(span);
    if (attributes.length > 0) console.log(`${inner}${pipe}  ${attributes.join('  ')}`);
    for (const link of span.links) {
      const to = byId.get(link.context.spanId);
      const kind = Object.entries(link.attributes ?? {}).map(([k, v]) => `  ${k}=${JSON.stringify(v)}`);
      console.log(`${inner}${pipe}  ↗ link to ${to?.name ?? link.context.spanId}${kind.join('')}`);
    }
    for (const event of span.events)
      console.log(
        `${inner}${pipe}  · +${ms(event.time)} ms ${event.name}${Object.entries(event.attributes ?? {})
          .map(([k, v]) => `  ${k}=${JSON.stringify(v)}`)
          .join('')}`,
      );
    below.forEach((child, i) => print(child, inner, i === below.length - 1, false));
  };
  const roots = children.get(undefined) ?? [];
  for (const root of roots) {
    console.log(`trace ${root.spanContext().traceId}`);
    if (common.length > 0)
      console.log(`  (every client span: ${common.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join('  ')})`);
    print(root, '', true, true);
    console.log('');
  }
}
