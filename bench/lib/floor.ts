/**
 * The floor: a bare undici `Agent.request` JSON-RPC POST with prebuilt headers, `JSON.stringify` of the message and
 * `JSON.parse` of the body. What any client must at least spend per request; used for CPU per POST (phase
 * request-cost) and for the loopback round trip (the push delay target of the fan-out phase).
 */
import { Agent } from 'undici';
import { percentile, round } from './measure.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'floor', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};

export interface Floor {
  /** One POST of `method` (header `mcp-name: name`) with `params` + `_meta`; resolves with the JSON-RPC result. */
  post(method: string, name: string, params: Record<string, unknown>): Promise<unknown>;
  /** p50 / p99 of `count` sequential inline `tools/call echo` round trips, ms (after 20 unrecorded). */
  roundTrip(count?: number): Promise<{ p50Ms: number; p99Ms: number }>;
  close(): Promise<void>;
}

export function createFloor(serverUrl: string): Floor {
  const url = new URL(serverUrl);
  const agent = new Agent({ connections: 16 });
  let nextId = 1;
  const post = async (method: string, name: string, params: Record<string, unknown>): Promise<unknown> => {
    const res = await agent.request({
      origin: url.origin,
      path: url.pathname,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        'mcp-name': name,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: META } }),
    });
    const reply = JSON.parse(await res.body.text()) as { result?: unknown };
    if (!reply.result) throw new Error(`floor: ${method} failed`);
    return reply.result;
  };
  return {
    post,
    async roundTrip(count = 100) {
      const times: number[] = [];
      for (let i = 0; i < count + 20; i++) {
        const t0 = performance.now();
        await post('tools/call', 'echo', { name: 'echo', arguments: { text: 'rtt' } });
        if (i >= 20) times.push(performance.now() - t0);
      }
      return { p50Ms: round(percentile(times, 50), 3), p99Ms: round(percentile(times, 99), 3) };
    },
    close: () => agent.close(),
  };
}
