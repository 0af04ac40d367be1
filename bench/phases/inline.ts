/**
 * Phase a: INLINE_CALLS sequential `tools/call echo` per client against one reference server (its own process, HTTP
 * on loopback), ours (TaskClient + StreamableHttpTransport) and the official @modelcontextprotocol/client
 * (Client + StreamableHTTPClientTransport, pinned to 2026-07-28), and `@modelcontextprotocol/ext-tasks`
 * (`session.callTool` then `settle()`, through bench/lib/peer-host.ts), in blocks of INLINE_BLOCK calls; the order of
 * the sides rotates every block and reverses every other block.
 */
import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { TaskClient } from '../../src/client/task-client.js';
import { StreamableHttpTransport } from '../../src/transport/streamable-http.js';
import { createUndiciSender } from '../../src/transport/undici-sender.js';
import { report, startServerProcess } from '../lib/child.js';
import { envInt, percentile, round } from '../lib/measure.js';
import { createPeerHost } from '../lib/peer-host.js';

const calls = envInt('INLINE_CALLS', 2_000);
const block = envInt('INLINE_BLOCK', 100);
const warmup = envInt('INLINE_WARMUP', 200);
const officialVersion = (
  JSON.parse(
    readFileSync(
      new URL('../../node_modules/@modelcontextprotocol/client/package.json', import.meta.url),
      'utf8',
    ),
  ) as { version: string }
).version;

const server = await startServerProcess({});
// Ours with the undici sender, as the Node entry point installs it (src/ imports alone would use the global fetch).
const ours = new TaskClient({
  transport: new StreamableHttpTransport(server.url, { sender: createUndiciSender() }),
});
const official = new Client(
  { name: 'bench-official', version: '1.0.0' },
  { versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
await official.connect(new StreamableHTTPClientTransport(new URL(server.url)));

const peer = await createPeerHost(server.url);

type Side = 'ours' | 'official' | 'peer';
const SIDES: Side[] = ['ours', 'official', 'peer'];
const callOnce: Record<Side, (text: string) => Promise<unknown>> = {
  ours: (text) => ours.callTool('echo', { text }),
  official: (text) => official.callTool({ name: 'echo', arguments: { text } }),
  peer: async (text) => {
    const { outcome } = await (await peer.session.callTool('echo', { text })).settle();
    if (outcome.status !== 'completed') throw new Error(`peer: echo ended ${outcome.status}`);
    return outcome.result;
  },
};
const latencies: Record<Side, number[]> = { ours: [], official: [], peer: [] };
const busyMs: Record<Side, number> = { ours: 0, official: 0, peer: 0 };

async function runBlock(side: Side, count: number, record: boolean): Promise<void> {
  const blockStart = performance.now();
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const result = (await callOnce[side](`call ${i}`)) as { content?: Array<{ text?: string }> };
    const t1 = performance.now();
    if (result.content?.[0]?.text !== `call ${i}`)
      throw new Error(`${side}: unexpected echo result ${JSON.stringify(result)}`);
    if (record) latencies[side].push(t1 - t0);
  }
  if (record) busyMs[side] += performance.now() - blockStart;
}

for (let done = 0; done < warmup; done += block) {
  for (const side of SIDES) await runBlock(side, Math.min(block, warmup - done), false);
}
await server.reset();
for (let i = 0; i * block < calls; i++) {
  const count = Math.min(block, calls - i * block);
  const rotated = [...SIDES.slice(i % SIDES.length), ...SIDES.slice(0, i % SIDES.length)];
  const order = i % 2 === 0 ? rotated : rotated.reverse();
  for (const side of order) await runBlock(side, count, true);
}
const { counts } = await server.collect([]);
await ours.close();
await official.close();
await peer.close();
await server.close();

const summary = (side: Side) => ({
  calls: latencies[side].length,
  medianMs: round(percentile(latencies[side], 50), 3),
  p99Ms: round(percentile(latencies[side], 99), 3),
  throughputPerS: round((latencies[side].length / busyMs[side]) * 1000, 1),
});
const a = summary('ours');
const b = summary('official');
const c = summary('peer');
report({
  phase: 'inline',
  officialClient: `@modelcontextprotocol/client ${officialVersion} (versionNegotiation pin 2026-07-28, StreamableHTTPClientTransport)`,
  block,
  warmup,
  ours: a,
  official: b,
  peer: c,
  ratio: {
    median: round(a.medianMs / b.medianMs, 3),
    p99: round(a.p99Ms / b.p99Ms, 3),
    throughput: round(a.throughputPerS / b.throughputPerS, 3),
  },
  /** ours ÷ ext-tasks. */
  ratioPeer: {
    median: round(a.medianMs / c.medianMs, 3),
    p99: round(a.p99Ms / c.p99Ms, 3),
    throughput: round(a.throughputPerS / c.throughputPerS, 3),
  },
  serverRequestCounts: counts,
});
