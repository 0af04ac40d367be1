/**
 * A small 2025-11-25 Streamable HTTP server on loopback (node:http), scripted per test: it assigns session ids
 * (`s1`, `s2`, … one per `initialize`), answers 404 to a session it was told to forget, keeps every HTTP request it
 * received (verb, headers, body) and lets a test answer POSTed requests and GETs itself, SSE included.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One HTTP request the server received. */
export interface Received {
  verb: string;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /** The parsed JSON body of a POST. */
  body?: Record<string, unknown>;
}

/** An SSE response a test writes event by event. */
export interface SseWriter {
  event(fields: { id?: string; data?: unknown; retry?: number }): void;
  /** Ends the response (the client sees the stream end). */
  end(): void;
  /** Breaks the connection once what was written went out (the stream is not over for the server). */
  drop(): void;
}

export interface ScriptedServer {
  url: string;
  readonly received: Received[];
  /** Answers a POSTed request (not `initialize`, which the server answers itself). */
  onRequest?: (message: Record<string, unknown>, res: ServerResponse) => void;
  /** Answers a GET (the listening stream or a resumption); `undefined` answers 405. */
  onGet?: (lastEventId: string | undefined, res: ServerResponse) => void;
  /** Messages POSTed that are not requests (notifications, the client's responses). */
  readonly posted: Array<Record<string, unknown>>;
  /** Called with each message added to `posted`. */
  onPosted?: (message: Record<string, unknown>) => void;
  /** From now on, the session answers 404. */
  forget(sessionId: string): void;
  close(): Promise<void>;
}

/** Starts an SSE response on `res`. */
export function sse(res: ServerResponse): SseWriter {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  return {
    event({ id, data, retry }) {
      let text = '';
      if (id !== undefined) text += `id: ${id}\n`;
      if (retry !== undefined) text += `retry: ${retry}\n`;
      text += `data: ${data === undefined ? '' : JSON.stringify(data)}\n\n`;
      res.write(text);
    },
    end: () => res.end(),
    drop: () => void res.write('', () => res.destroy()),
  };
}

/** Answers with one JSON body. */
export function json(res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => resolve(text));
  });
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const forgotten = new Set<string>();
  let sessions = 0;
  const state: ScriptedServer = {
    url: '',
    received: [],
    posted: [],
    forget: (id) => void forgotten.add(id),
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  const http: Server = createServer(async (req, res) => {
    const text = req.method === 'POST' ? await readBody(req) : '';
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
    );
    state.received.push({ verb: req.method ?? '', headers, body });
    const session = headers['mcp-session-id'];
    if (session !== undefined && forgotten.has(session)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }),
      );
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(200).end();
      return;
    }
    if (req.method === 'GET') {
      if (!state.onGet) {
        res.writeHead(405).end();
        return;
      }
      state.onGet(headers['last-event-id'], res);
      return;
    }
    if (body?.method === 'initialize') {
      json(
        res,
        {
          jsonrpc: '2.0',
          id: body.id,
          result: {
            protocolVersion: '2025-11-25',
            capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } },
            serverInfo: { name: 'scripted', version: '1.0.0' },
          },
        },
        { 'mcp-session-id': `s${++sessions}` },
      );
      return;
    }
    if (body && typeof body.method === 'string' && body.id !== undefined) {
      if (state.onRequest) state.onRequest(body, res);
      else json(res, { jsonrpc: '2.0', id: body.id, result: {} });
      return;
    }
    res.writeHead(202).end();
    if (body) {
      state.posted.push(body);
      state.onPosted?.(body);
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return state;
}
