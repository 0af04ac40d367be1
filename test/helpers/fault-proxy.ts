/**
 * A small loopback HTTP proxy between a client and the reference server, scriptable per request. Each
 * POST is parsed for its JSON-RPC `method`, `id`, `params.name` and `params.taskId`, recorded with its arrival time,
 * and then handled by the first matching rule (or forwarded):
 *
 * - `forward`: pass through;
 * - `drop-response`: forward to the server, wait for its whole response, then destroy the client's socket without
 *   sending a byte (the server did the work; the client sees a connection reset);
 * - `respond`: answer locally with a status, headers and body (429 + `Retry-After`, 503, …); the server never sees
 *   the request.
 *
 * Times are `performance.now()` (monotonic, ms).
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/** What the proxy does with one request. */
export type FaultAction =
  | { kind: 'forward' }
  | { kind: 'drop-response' }
  | { kind: 'respond'; status: number; headers?: Record<string, string>; body?: string };

/** One request as it arrived at the proxy. */
export interface Arrival {
  /** JSON-RPC method, or `''` when the body was not a JSON-RPC request. */
  method: string;
  /** JSON-RPC id. */
  id: unknown;
  /** `params.name` (tool/prompt), if any. */
  name: string | undefined;
  /** `params.taskId`, if any. */
  taskId: string | undefined;
  /** The parsed `params`, if any. */
  params: Record<string, unknown> | undefined;
  /** 0-based index among arrivals of the same method (and the same taskId when there is one). */
  index: number;
  /** Arrival time, `performance.now()` ms. */
  at: number;
  /** What the proxy did. */
  action: FaultAction['kind'];
}

/** A scripted fault: the first rule whose `method` matches and whose `when` accepts the arrival applies. */
export interface FaultRule {
  method: string;
  /** Extra condition on the arrival (e.g. its `index`). @default always */
  when?: (arrival: Omit<Arrival, 'action'>) => boolean;
  action: FaultAction;
  /** How many requests this rule may handle. @default Infinity */
  times?: number;
}

/** A running proxy. */
export interface FaultProxy {
  /** The client-facing endpoint: same path as the target. */
  readonly url: string;
  /** Every request in arrival order. */
  readonly arrivals: readonly Arrival[];
  /** Adds a rule; returns a function that removes it. */
  rule(rule: FaultRule): () => void;
  /** Arrivals of `method`, optionally only those for `taskId`. */
  of(method: string, taskId?: string): Arrival[];
  /** Arrival times of `method`, optionally only those for `taskId`. */
  times(method: string, taskId?: string): number[];
  close(): Promise<void>;
}

/** `429 Too Many Requests` with `Retry-After: <seconds>`. */
export function tooManyRequests(retryAfterSeconds: number): FaultAction {
  return {
    kind: 'respond',
    status: 429,
    headers: { 'Retry-After': String(retryAfterSeconds), 'Content-Type': 'text/plain' },
    body: 'Too Many Requests',
  };
}

/** `503 Service Unavailable`, no `Retry-After`. */
export function serviceUnavailable(): FaultAction {
  return {
    kind: 'respond',
    status: 503,
    headers: { 'Content-Type': 'text/plain' },
    body: 'Service Unavailable',
  };
}

/** Forward, then reset the client's connection before any byte of the response. */
export const dropResponse: FaultAction = { kind: 'drop-response' };

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Starts a proxy on 127.0.0.1 (free port) in front of `target` (an `http://127.0.0.1:…/mcp` URL). */
export async function createFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const arrivals: Arrival[] = [];
  const rules: Array<FaultRule & { used: number }> = [];
  const counters = new Map<string, number>();

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = performance.now();
    const body = await readAll(req);
    let message: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (isObject(parsed)) message = parsed;
    } catch {
      message = undefined;
    }
    const method = typeof message?.method === 'string' ? message.method : '';
    const params = isObject(message?.params) ? message.params : undefined;
    const taskId = typeof params?.taskId === 'string' ? params.taskId : undefined;
    const name = typeof params?.name === 'string' ? params.name : undefined;
    const counter = taskId === undefined ? method : `${method}\n${taskId}`;
    const index = counters.get(counter) ?? 0;
    counters.set(counter, index + 1);
    const seen = { method, id: message?.id, name, taskId, params, index, at };
    const rule = rules.find(
      (r) =>
        r.method === method && r.used < (r.times ?? Number.POSITIVE_INFINITY) && (r.when?.(seen) ?? true),
    );
    if (rule) rule.used++;
    const action = rule?.action ?? { kind: 'forward' };
    arrivals.push({ ...seen, action: action.kind });

    if (action.kind === 'respond') {
      res.writeHead(action.status, action.headers ?? {});
      res.end(action.body ?? '');
      return;
    }
    const reply = await forward(req, body);
    if (action.kind === 'drop-response') {
      res.socket?.destroy();
      return;
    }
    res.writeHead(reply.status, reply.headers);
    res.end(reply.body);
  }

  function forward(
    req: IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer }> {
    const headers: Record<string, string | string[]> = {};
    for (const [key, value] of Object.entries(req.headers)) {
      if (value === undefined || ['host', 'connection', 'content-length', 'transfer-encoding'].includes(key))
        continue;
      headers[key] = value;
    }
    headers['content-length'] = String(body.length);
    return new Promise((resolve, reject) => {
      const out = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url ?? upstream.pathname,
          method: req.method,
          headers,
        },
        (res) => {
          readAll(res).then((data) => {
            const kept: Record<string, string | string[]> = {};
            for (const [key, value] of Object.entries(res.headers)) {
              if (
                value === undefined ||
                ['connection', 'content-length', 'transfer-encoding', 'keep-alive'].includes(key)
              )
                continue;
              kept[key] = value;
            }
            resolve({ status: res.statusCode ?? 502, headers: kept, body: data });
          }, reject);
        },
      );
      out.on('error', reject);
      out.end(body);
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const select = (method: string, taskId?: string) =>
    arrivals.filter((a) => a.method === method && (taskId === undefined || a.taskId === taskId));

  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    arrivals,
    rule(rule) {
      const entry = { ...rule, used: 0 };
      rules.push(entry);
      return () => {
        const i = rules.indexOf(entry);
        if (i >= 0) rules.splice(i, 1);
      };
    },
    of: select,
    times: (method, taskId) => select(method, taskId).map((a) => a.at),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}
