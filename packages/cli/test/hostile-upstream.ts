/**
 * A small hand-written MCP 2026-07-28 + Tasks server on loopback (node:http, JSON responses) that answers what a
 * test tells it to, including what the reference server never would: malformed results, refused `tasks/update`,
 * HTTP 429 on `tasks/get`, hostile strings. Each request is recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one handler returns: a JSON-RPC result, `{ error }` for a JSON-RPC error, or `null` when it answered itself. */
export type Reply = Record<string, unknown> | { error: { code: number; message: string } } | null;

/** Handlers by method; `n` counts the calls of that method (1 first). */
export interface HostileScript {
  tools?: Record<string, unknown>[];
  call: (params: Record<string, unknown>, n: number) => Reply;
  get?: (params: Record<string, unknown>, n: number, res: ServerResponse) => Reply;
  update?: (params: Record<string, unknown>, n: number) => Reply;
  cancel?: (params: Record<string, unknown>, n: number) => Reply;
  /** Any other method (`prompts/list`, `resources/list`…); when given, prompts and resources are declared too. */
  other?: (method: string, params: Record<string, unknown>) => Reply;
}

export interface HostileUpstream {
  url: string;
  /** Methods received, in order. */
  methods: string[];
  /** Params received, in order (as `methods`). */
  params: Record<string, unknown>[];
  close(): Promise<void>;
}

const now = (): string => new Date().toISOString();

/** A task object as the server reports it (`pollIntervalMs` 20, ttl 10 min). */
export function taskOf(
  taskId: string,
  status: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    taskId,
    status,
    createdAt: now(),
    lastUpdatedAt: now(),
    ttlMs: 600_000,
    pollIntervalMs: 20,
    ...extra,
  };
}

/** Starts the server on 127.0.0.1, a free port. */
export async function hostileUpstream(script: HostileScript): Promise<HostileUpstream> {
  const methods: string[] = [];
  const received: Record<string, unknown>[] = [];
  const counts = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: { id?: unknown; method?: string; params?: Record<string, unknown> } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString());
      } catch {}
      const method = body.method ?? '';
      methods.push(method);
      received.push(body.params ?? {});
      const n = (counts.get(method) ?? 0) + 1;
      counts.set(method, n);
      if (body.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const p = body.params ?? {};
      let reply: Reply;
      switch (method) {
        case 'server/discover':
          reply = {
            supportedVersions: ['2026-07-28'],
            capabilities: {
              tools: {},
              ...(script.other ? { prompts: {}, resources: {} } : {}),
              extensions: { 'io.modelcontextprotocol/tasks': {} },
            },
            serverInfo: { name: 'hostile', version: '1' },
          };
          break;
        case 'tools/list':
          reply = {
            tools: script.tools ?? [
              {
                name: 'go',
                description: 'go',
                inputSchema: { type: 'object' },
                execution: { taskSupport: 'optional' },
              },
            ],
          };
          break;
        case 'tools/call':
          reply = script.call(p, n);
          break;
        case 'tasks/get':
          reply = script.get ? script.get(p, n, res) : { error: { code: -32602, message: 'unknown task' } };
          break;
        case 'tasks/update':
          reply = script.update ? script.update(p, n) : { resultType: 'complete' };
          break;
        case 'tasks/cancel':
          reply = script.cancel ? script.cancel(p, n) : { resultType: 'complete' };
          break;
        default:
          reply = script.other?.(method, p) ?? { error: { code: -32601, message: 'no such method' } };
      }
      if (reply === null) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          'error' in reply && Object.keys(reply).length === 1
            ? { jsonrpc: '2.0', id: body.id, error: reply.error }
            : { jsonrpc: '2.0', id: body.id, result: reply },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    methods,
    params: received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
