/**
 * Phase "request-cost": client CPU per request (process.cpuUsage, user + system, this process only; the reference
 * server runs in its own process) over REQUEST_COST_CALLS sequential requests per side, in alternating blocks
 * (order swapped every block pair), for two requests:
 * - inline: `tools/call echo` answered inline (a complete result);
 * - poll: `tasks/get` on one long-running task through the client's request path, parsed as a DetailedTask.
 * Sides: `floor` (a bare undici `Agent.request` POST with a prebuilt body and headers, body parsed with
 * JSON.parse), `ours` (TaskClient from the built package's Node entry, `dist/node.js`, as users run it: its default
 * sender is undici; run `npx tsup` first; `@opentelemetry/api` installed, no tracer provider), `oursTraced` (the
 * same client while an OpenTelemetry tracer provider records every request's span), `oursFetch` (the same built client over the global fetch), `official` (@modelcontextprotocol/client, inline only; it has no tasks/get on this era),
 * `peer` (@modelcontextprotocol/ext-tasks `session.callTool` + `settle()`, inline only: its polls are internal).
 * With REQUEST_COST_OTEL=absent only `floor` and `ours` run, `ours` from a copy of the built package that cannot
 * resolve `@opentelemetry/api` (as installed without it): a process of its own, so that two copies of the package
 * never share the JIT's view of the libraries both call.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
// The built package, not the sources: tsx's `keepNames` adds a `__name` call per closure that users never run.
import type { TaskHandle } from '../../dist/node.js';
// The DetailedTask parser left the public entry; its source is the same zod schema the built package uses.
import { parseDetailedTask } from '../../src/protocol/tasks.js';
import { report, startServerProcess } from '../lib/child.js';
import { createFloor } from '../lib/floor.js';
import { createPeerHost } from '../lib/peer-host.js';
import { envInt, round } from '../lib/measure.js';
import { distWithoutOtel } from '../lib/without-otel.js';
import { pathToFileURL } from 'node:url';

const calls = envInt('REQUEST_COST_CALLS', 2_000);
const block = envInt('REQUEST_COST_BLOCK', 200);
const server = await startServerProcess({ pollIntervalMs: 60_000 });
const url = new URL(server.url);

const floor = createFloor(server.url);

// Tracing: `oursTraced` is the same client as `ours`, measured while a real tracer provider is registered (a batch
// processor into an exporter that drops the spans, as a host exporting to a collector would have); between its
// blocks the provider is unregistered, so `ours` shows the default: the API installed, no provider, nothing recorded.
let tracedSpans = 0; // reported: the spans of the `oursTraced` requests (warm-up included), and no others
const drop = {
  export: (spans: unknown[], done: (r: { code: 0 }) => void) => {
    tracedSpans += spans.length;
    done({ code: 0 });
  },
  shutdown: async () => {},
};
const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(drop)] });
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
const tracing = {
  on: () => void trace.setGlobalTracerProvider(provider),
  off: () => trace.disable(),
};
const noOtel = process.env.REQUEST_COST_OTEL === 'absent' ? distWithoutOtel() : undefined;
const { StreamableHttpTransport, TaskClient } = (await import(
  noOtel === undefined ? '../../dist/node.js' : pathToFileURL(noOtel.nodeEntry).href
)) as typeof import('../../dist/node.js');
const ours = new TaskClient({ transport: new StreamableHttpTransport(server.url) }); // undici: the Node entry's default
const oursFetch = new TaskClient({
  transport: new StreamableHttpTransport(server.url, { fetch: globalThis.fetch }),
});
const official = new Client(
  { name: 'bench-official', version: '1.0.0' },
  { versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
await official.connect(new StreamableHTTPClientTransport(url));
const peer = await createPeerHost(server.url);

// One long task to poll: created by ours (its id is all any side needs).
process.stderr.write('request-cost: starting task\n');
const start = await ours.startTool('sleep_ms', { ms: 3_600_000 });
if (start.resultType !== 'task') throw new Error('sleep_ms did not start a task');
const handle = start.task as TaskHandle<unknown>;
const taskId = handle.taskId;

type Side = 'floor' | 'ours' | 'oursTraced' | 'oursFetch' | 'official' | 'peer';
/** The sides measured without `@opentelemetry/api`. */
const only: ReadonlySet<Side> = new Set(['floor', 'ours']);
/** Sides measured with the tracer provider registered. */
const traced: ReadonlySet<Side> = new Set(['oursTraced']);
const ops: Record<'inline' | 'poll', Partial<Record<Side, (i: number) => Promise<unknown>>>> = {
  inline: {
    floor: (i) => floor.post('tools/call', 'echo', { name: 'echo', arguments: { text: `call ${i}` } }),
    ours: (i) => ours.callTool('echo', { text: `call ${i}` }),
    oursTraced: (i) => ours.callTool('echo', { text: `call ${i}` }),
    oursFetch: (i) => oursFetch.callTool('echo', { text: `call ${i}` }),
    official: (i) => official.callTool({ name: 'echo', arguments: { text: `call ${i}` } }),
    peer: async (i) => (await peer.session.callTool('echo', { text: `call ${i}` })).settle(),
  },
  poll: {
    floor: () => floor.post('tasks/get', taskId, { taskId }),
    // The poll's request path (pipeline, transport, wire parse of the DetailedTask); the scheduler's own cost is in
    // the fan-out phases' CPU per 1,000 polls.
    ours: async () => parseDetailedTask(await ours.request('tasks/get', { taskId })),
    oursTraced: async () => parseDetailedTask(await ours.request('tasks/get', { taskId })),
    oursFetch: async () => parseDetailedTask(await oursFetch.request('tasks/get', { taskId })),
  },
};

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

const results: Record<string, Record<string, number>> = {};
for (const [kind, table] of Object.entries(ops)) {
  const sides = (Object.keys(table) as Side[]).filter((side) => noOtel === undefined || only.has(side));
  const cpu: Record<string, number> = {};
  const count: Record<string, number> = {};
  for (const side of sides) {
    if (traced.has(side)) tracing.on();
    for (let i = 0; i < 100; i++) await table[side]!(i); // warm-up
    if (traced.has(side)) tracing.off();
    cpu[side] = 0;
    count[side] = 0;
  }
  for (let b = 0; b * block < calls; b++) {
    const order = b % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const n = Math.min(block, calls - b * block);
      if (traced.has(side)) tracing.on();
      const c0 = cpuMs();
      for (let i = 0; i < n; i++) await table[side]!(i);
      cpu[side]! += cpuMs() - c0;
      if (traced.has(side)) tracing.off();
      count[side]! += n;
    }
  }
  process.stderr.write(`request-cost: ${kind} done\n`);
  results[kind] = Object.fromEntries(
    sides.map((side) => [side, round((cpu[side] as number) / (count[side] as number), 4)]),
  );
}

await provider.shutdown();
await handle.cancel().catch(() => undefined);
await ours.close();
noOtel?.remove();
await oursFetch.close();
await official.close();
await peer.close();
await floor.close();
await server.close();

const ratio = (kind: 'inline' | 'poll', side: Side, to: Side): number | null => {
  const a = results[kind]?.[side];
  const b = results[kind]?.[to];
  return a !== undefined && b !== undefined ? round(a / b, 3) : null;
};
report({
  phase: 'request-cost',
  calls,
  block,
  cpuMsPerRequest: results,
  tracedSpans,
  ratio: {
    inlineOursOverFloor: ratio('inline', 'ours', 'floor'),
    inlineTracedOverOurs: ratio('inline', 'oursTraced', 'ours'),
    pollTracedOverOurs: ratio('poll', 'oursTraced', 'ours'),
    inlineOursFetchOverFloor: ratio('inline', 'oursFetch', 'floor'),
    inlineOursOverOfficial: ratio('inline', 'ours', 'official'),
    inlineOursOverPeer: ratio('inline', 'ours', 'peer'),
    inlinePeerOverFloor: ratio('inline', 'peer', 'floor'),
    pollOursOverFloor: ratio('poll', 'ours', 'floor'),
    pollOursFetchOverFloor: ratio('poll', 'oursFetch', 'floor'),
  },
});
