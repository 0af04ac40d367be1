/**
 * `x-mcp-header` beyond the top level and recovery from -32020, against a strict loopback server that checks every
 * `Mcp-Param-*` header it expects (missing or different → HTTP 400, JSON-RPC -32020).
 *
 * Spec (modelcontextprotocol/modelcontextprotocol, docs/specification/2026-07-28/basic/transports/streamable-http.mdx):
 * - § Schema Extension: "MUST only be applied to properties that are statically reachable from the schema root:
 *   reachable via a chain consisting solely of `properties` keys … An `x-mcp-header` annotation anywhere else makes
 *   the annotation — and thus the tool definition — invalid." and "Integer values MUST be within the safe range for
 *   JavaScript (−2^53+1 to 2^53−1)".
 * - § Value Encoding: "`integer`: Convert to decimal string representation".
 * - § Client Behavior: "If the server rejects a request with a HeaderMismatch error because required Mcp-Param-*
 *   headers are missing or do not match the body, the client SHOULD call tools/list to check for changes to the
 *   tool's inputSchema, then retry the original request with the appropriate headers."
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidHeaderError, McpError, StreamableHttpTransport, TaskClient } from '../../src/index.js';

interface Received {
  id: unknown;
  method: string;
  name?: string;
  params: Record<string, string>;
}

const NESTED_TOOL = {
  name: 'route_query',
  description: 'nested headers',
  inputSchema: {
    type: 'object',
    properties: {
      target: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          placement: { type: 'object', properties: { shard: { type: 'integer', 'x-mcp-header': 'Shard' } } },
        },
      },
      // A property literally named "x-mcp-header", and the word inside data keywords: neither is an annotation.
      'x-mcp-header': { type: 'string', const: { 'x-mcp-header': 'NotOne' } },
      query: { type: 'string' },
    },
  },
};

const misplaced = (name: string, schema: Record<string, unknown>) => ({
  name,
  description: name,
  inputSchema: { type: 'object', ...schema },
});
const INVALID_TOOLS = [
  misplaced('under_items', {
    properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } },
  }),
  misplaced('under_anyOf', {
    properties: { v: { anyOf: [{ type: 'string', 'x-mcp-header': 'V' }, { type: 'integer' }] } },
  }),
  misplaced('under_defs', {
    $defs: { r: { type: 'string', 'x-mcp-header': 'R' } },
    properties: { r: { $ref: '#/$defs/r' } },
  }),
  misplaced('under_then', {
    if: { properties: { a: { const: 1 } } },
    then: { properties: { b: { type: 'string', 'x-mcp-header': 'B' } } },
  }),
  misplaced('on_the_root', { 'x-mcp-header': 'Root', properties: {} }),
  misplaced('under_additionalProperties', {
    additionalProperties: { type: 'string', 'x-mcp-header': 'Extra' },
  }),
];

/** What the server expects per tool: header name → path of the argument it mirrors. */
const EXPECTED: Record<string, Record<string, string[]>> = {
  route_query: { region: ['target', 'region'], shard: ['target', 'placement', 'shard'] },
};

interface Strict {
  url: string;
  received: Received[];
  /** Replies -32020 to every tools/call when true (a server whose expectations the client can never meet). */
  alwaysMismatch: boolean;
  failList: boolean;
  close(): Promise<void>;
}

const open: Strict[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function strictServer(): Promise<Strict> {
  const state: Strict = {
    url: '',
    received: [],
    alwaysMismatch: false,
    failList: false,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const msg = JSON.parse(body) as {
        id: unknown;
        method: string;
        params: { name?: string; arguments?: Record<string, unknown> };
      };
      const params: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (k.startsWith('mcp-param-') && typeof v === 'string') params[k.slice('mcp-param-'.length)] = v;
      state.received.push({ id: msg.id, method: msg.method, name: msg.params?.name, params });
      const reply = (status: number, payload: Record<string, unknown>): void => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...payload }));
      };
      if (msg.method === 'tools/list') {
        if (state.failList) return reply(500, { error: { code: -32603, message: 'list unavailable' } });
        return reply(200, { result: { resultType: 'complete', tools: [NESTED_TOOL, ...INVALID_TOOLS] } });
      }
      if (msg.method !== 'tools/call') return reply(404, { error: { code: -32601, message: 'no' } });
      for (const [header, path] of Object.entries(EXPECTED[msg.params.name ?? ''] ?? {})) {
        let value: unknown = msg.params.arguments;
        for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
        const want = value === undefined || value === null ? undefined : String(value);
        if (state.alwaysMismatch || params[header] !== want) {
          return reply(400, { error: { code: -32020, message: `Header mismatch: Mcp-Param-${header}` } });
        }
      }
      return reply(200, {
        result: { resultType: 'complete', content: [{ type: 'text', text: `ran ${msg.params.name}` }] },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  open.push(state);
  return state;
}

function client(url: string): { client: TaskClient; warnings: string[] } {
  const c = new TaskClient({ transport: new StreamableHttpTransport(url), era: 'modern' });
  const warnings: string[] = [];
  c.on('warning', (w) => warnings.push(w));
  return { client: c, warnings };
}

describe('x-mcp-header through chains of properties (streamable-http.mdx § Schema Extension)', () => {
  it('"reachable via a chain consisting solely of properties keys": nested values are mirrored at their exact path', async () => {
    const server = await strictServer();
    const { client: c } = client(server.url);
    await c.listTools();
    await c.callTool('route_query', { target: { region: 'eu-west1', placement: { shard: 7 } }, query: 'q' });
    expect(server.received.at(-1)?.params).toEqual({ region: 'eu-west1', shard: '7' });
    // "If no value is present at that path in the call arguments, the header is omitted."
    await c.callTool('route_query', { target: { region: 'us' } });
    expect(server.received.at(-1)?.params).toEqual({ region: 'us' });
    await c.close();
  });

  it('"An x-mcp-header annotation anywhere else makes … the tool definition invalid": items, anyOf, $defs, then, root, additionalProperties → dropped with a warning', async () => {
    const server = await strictServer();
    const { client: c, warnings } = client(server.url);
    const tools = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(['route_query']);
    expect(warnings).toHaveLength(INVALID_TOOLS.length);
    for (const tool of INVALID_TOOLS) {
      expect(warnings).toContain(
        `tools/list: dropped tool "${tool.name}": x-mcp-header outside a chain of "properties" (under items, anyOf/oneOf/allOf, not, if/then/else, $defs or similar)`,
      );
    }
    await c.close();
  });

  it('"Integer values MUST be within the safe range" / "Convert to decimal string": ±(2^53−1) in decimal; 2^70 or 1.5 fail typed, nothing sent', async () => {
    const server = await strictServer();
    const { client: c } = client(server.url);
    await c.listTools();
    await c.callTool('route_query', { target: { placement: { shard: 2 ** 53 - 1 } } });
    expect(server.received.at(-1)?.params).toEqual({ shard: '9007199254740991' });
    await c.callTool('route_query', { target: { placement: { shard: -(2 ** 53 - 1) } } });
    expect(server.received.at(-1)?.params).toEqual({ shard: '-9007199254740991' });
    const before = server.received.length;
    for (const shard of [2 ** 70, 2 ** 53, 1.5]) {
      const error = await c
        .callTool('route_query', { target: { placement: { shard } } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidHeaderError);
      expect((error as InvalidHeaderError).headerName).toBe('Mcp-Param-Shard');
      expect((error as Error).message).not.toContain('1.1805916207174113e+21');
    }
    expect(server.received.length).toBe(before);
    await c.close();
  });
});

describe('-32020 recovery (streamable-http.mdx § Client Behavior: "SHOULD call tools/list … then retry the original request")', () => {
  it('a call made before listTools: -32020 → one tools/list → one re-send with the headers (new id) → result', async () => {
    const server = await strictServer();
    const { client: c } = client(server.url);
    const result = await c.callTool('route_query', { target: { region: 'ap-south1' } });
    expect(result.content).toEqual([{ type: 'text', text: 'ran route_query' }]);
    expect(server.received.map((r) => r.method)).toEqual(['tools/call', 'tools/list', 'tools/call']);
    const [first, , retry] = server.received;
    expect(first?.params).toEqual({});
    expect(retry?.params).toEqual({ region: 'ap-south1' });
    expect(retry?.id).not.toBe(first?.id);
    await c.close();
  });

  it('never more than one retry: a second -32020 is surfaced as McpError', async () => {
    const server = await strictServer();
    server.alwaysMismatch = true;
    const { client: c } = client(server.url);
    const error = await c.callTool('route_query', { target: { region: 'x' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32020);
    expect(server.received.map((r) => r.method)).toEqual(['tools/call', 'tools/list', 'tools/call']);
    await c.close();
  });

  it('when tools/list itself fails, the original -32020 is surfaced and nothing is re-sent', async () => {
    const server = await strictServer();
    server.failList = true;
    const { client: c } = client(server.url);
    const error = await c.callTool('route_query', { target: { region: 'x' } }).catch((e: unknown) => e);
    expect((error as McpError).code).toBe(-32020);
    expect(server.received.map((r) => r.method)).toEqual(['tools/call', 'tools/list']);
    await c.close();
  });

  it('in era "auto" the recovered call decides the era as modern', async () => {
    const server = await strictServer();
    const c = new TaskClient({ transport: new StreamableHttpTransport(server.url) });
    await c.callTool('route_query', { target: { region: 'eu' } });
    expect(c.era).toBe('modern');
    await c.close();
  });
});
