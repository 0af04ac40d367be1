/**
 * The 2025-11-25 session over our own Streamable HTTP channel, against a real loopback server (node:http, scripted
 * per test): the handshake and the headers every later request carries, a lost session (404) answered with a new
 * `initialize`, `Last-Event-ID` resumption of a broken POST stream and of the server's own GET stream, the server's
 * requests answered (task-linked ones included), and DELETE on close.
 *
 * Spec: modelcontextprotocol/modelcontextprotocol docs/specification/2025-11-25/basic/transports.mdx (§ Sending
 * Messages to the Server, § Listening for Messages from the Server, § Resumability and Redelivery, § Session
 * Management, § Protocol Version Header) and basic/lifecycle.mdx § Initialization. CLIENT-REQUIREMENTS: the legacy
 * era (3.6).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { HttpError, McpError, StreamEndedError } from '../../src/errors.js';
import { HttpSessionChannel } from '../../src/legacy/http-channel.js';
import { LegacySession, type SessionOptions } from '../../src/legacy/session.js';
import { json, sse, startScriptedServer, type ScriptedServer } from './scripted-server.js';

let server: ScriptedServer | undefined;
let session: LegacySession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
  await server?.close();
  server = undefined;
});

function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function options(overrides: Partial<SessionOptions> = {}): SessionOptions {
  return {
    clientInfo: { name: 'test', version: '1' },
    capabilities: { elicitation: { form: {} } },
    answers: new Set(['elicitation/create']),
    onRequest: async () => ({}),
    ...overrides,
  };
}

async function open(s: ScriptedServer, overrides: Partial<SessionOptions> = {}): Promise<LegacySession> {
  session = await LegacySession.open(
    new HttpSessionChannel({ kind: 'http', url: new URL(s.url) }),
    options(overrides),
  );
  return session;
}

const posts = (s: ScriptedServer) => s.received.filter((r) => r.verb === 'POST');

describe('handshake and session headers', () => {
  it('initialize offers 2025-11-25 without a session id; notifications/initialized and every later request carry Mcp-Session-Id and MCP-Protocol-Version', async () => {
    server = await startScriptedServer();
    const s = await open(server);
    expect(s.identity.protocolVersion).toBe('2025-11-25');
    expect(s.identity.serverInfo).toEqual({ name: 'scripted', version: '1.0.0' });
    await s.request('tools/list', {});
    const [init, initialized, list] = posts(server);
    expect(init?.body).toMatchObject({
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', clientInfo: { name: 'test', version: '1' } },
    });
    expect(init?.headers['mcp-session-id']).toBeUndefined();
    expect(init?.headers.accept).toBe('application/json, text/event-stream');
    expect(initialized?.body).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    for (const later of [initialized, list]) {
      expect(later?.headers['mcp-session-id']).toBe('s1');
      expect(later?.headers['mcp-protocol-version']).toBe('2025-11-25');
    }
    expect(list?.body).toMatchObject({ method: 'tools/list' });
  });

  it('a version the client does not speak fails the handshake with UnsupportedProtocolVersionError', async () => {
    server = await startScriptedServer();
    const channel = new HttpSessionChannel({
      kind: 'http',
      url: new URL(server.url),
      // The server's answer, rewritten: it negotiates a revision we do not know.
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        const body = (await res.json()) as { result?: { protocolVersion?: string } };
        if (body.result?.protocolVersion) body.result.protocolVersion = '2099-01-01';
        return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
      },
    });
    const error = await LegacySession.open(channel, options()).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'UNSUPPORTED_PROTOCOL_VERSION',
      requested: '2025-11-25',
      supported: ['2099-01-01'],
    });
  });
});

describe('a lost session (HTTP 404 to a request carrying Mcp-Session-Id)', () => {
  it('starts a new session with initialize (no session id), then sends the request once more there; a warning says so', async () => {
    server = await startScriptedServer();
    const warnings: string[] = [];
    const s = await open(server, { warning: (m) => warnings.push(m) });
    server.forget('s1');
    const result = await s.request('tools/list', {});
    expect(result).toEqual({});
    const seen = posts(server).map((r) => [r.body?.method, r.headers['mcp-session-id'] ?? null]);
    expect(seen).toEqual([
      ['initialize', null],
      ['notifications/initialized', 's1'],
      ['tools/list', 's1'], // 404
      ['initialize', null],
      ['notifications/initialized', 's2'],
      ['tools/list', 's2'],
    ]);
    expect(warnings).toEqual([
      expect.stringContaining('no longer knows this session (HTTP 404 to tools/list)'),
    ]);
  });

  it('through TaskClient: a call after the server dropped the session succeeds in a new one', async () => {
    server = await startScriptedServer();
    const s = server;
    s.onRequest = (message, res) =>
      json(res, {
        jsonrpc: '2.0',
        id: message.id,
        result:
          message.method === 'tools/list'
            ? { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }
            : { content: [{ type: 'text', text: `in ${s.received.at(-1)?.headers['mcp-session-id']}` }] },
      });
    const client = new TaskClient({ transport: new StreamableHttpTransport(s.url), era: 'legacy' });
    try {
      expect((await client.callTool('echo', {})).content).toEqual([{ type: 'text', text: 'in s1' }]);
      s.forget('s1');
      expect((await client.callTool('echo', {})).content).toEqual([{ type: 'text', text: 'in s2' }]);
    } finally {
      await client.close();
    }
  });

  it('a 404 in the new session too is the caller error (HttpError 404), not a loop', async () => {
    server = await startScriptedServer();
    const s = await open(server);
    const srv = server;
    srv.onRequest = (_message, res) => {
      srv.forget('s1');
      srv.forget('s2');
      res.writeHead(404).end();
    };
    const error = await s.request('tools/list', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(404);
    expect(posts(srv).filter((r) => r.body?.method === 'initialize')).toHaveLength(2);
  });
});

describe('Last-Event-ID resumption', () => {
  it('a POST stream that breaks before its response is resumed with a GET carrying the last event id; the response arrives there', async () => {
    server = await startScriptedServer();
    const srv = server;
    const progress: number[] = [];
    srv.onRequest = (message, res) => {
      const stream = sse(res);
      stream.event({ id: 'e1', retry: 0 }); // priming event
      stream.event({
        id: 'e2',
        data: {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: {
            progressToken: (message.params as { _meta: { progressToken: number } })._meta.progressToken,
            progress: 1,
          },
        },
      });
      stream.drop(); // the connection drops; the stream is not over
      srv.onGet = (lastEventId, getRes) => {
        if (lastEventId === undefined) return void getRes.writeHead(405).end(); // no listening stream
        const resumed = sse(getRes);
        resumed.event({
          id: 'e3',
          data: { jsonrpc: '2.0', id: message.id, result: { resumedAfter: lastEventId } },
        });
        resumed.end();
      };
    };
    const s = await open(srv);
    const result = await s.request(
      'tools/call',
      { name: 'slow' },
      { onProgress: (p) => progress.push(p.progress) },
    );
    expect(result).toEqual({ resumedAfter: 'e2' });
    expect(progress).toEqual([1]);
    const resume = srv.received.find((r) => r.verb === 'GET' && r.headers['last-event-id'] !== undefined);
    expect(resume?.headers).toMatchObject({
      'last-event-id': 'e2',
      'mcp-session-id': 's1',
      'mcp-protocol-version': '2025-11-25',
      accept: 'text/event-stream',
    });
  });

  it('a stream without event ids that ends before its response cannot be resumed: StreamEndedError, no GET', async () => {
    server = await startScriptedServer();
    const srv = server;
    srv.onRequest = (_message, res) => {
      const stream = sse(res);
      stream.event({
        data: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
      });
      stream.end();
    };
    const s = await open(srv);
    await expect(s.request('tools/call', { name: 'x' })).rejects.toBeInstanceOf(StreamEndedError);
    expect(srv.received.filter((r) => r.verb === 'GET' && r.headers['last-event-id'])).toEqual([]);
  });

  it("the server's GET stream, dropped, is reopened with Last-Event-ID; a request on the resumed stream is answered", async () => {
    server = await startScriptedServer();
    const srv = server;
    const answered = deferred<Record<string, unknown>>();
    const gets: Array<string | undefined> = [];
    srv.onGet = (lastEventId, res) => {
      gets.push(lastEventId);
      const stream = sse(res);
      if (lastEventId === undefined) {
        stream.event({ id: 'g1', retry: 0 });
        stream.drop(); // dropped after its first event
        return;
      }
      if (gets.length === 2)
        stream.event({
          id: 'g2',
          data: {
            jsonrpc: '2.0',
            id: 'srv-1',
            method: 'elicitation/create',
            params: { message: 'Which one?', requestedSchema: { type: 'object', properties: {} } },
          },
        });
    };
    const posted = deferred<Record<string, unknown>>();
    srv.onPosted = (message) => {
      if (message.id === 'srv-1') posted.resolve(message);
    };
    await open(srv, {
      onRequest: async (method, params) => {
        answered.resolve({ method, params });
        return { action: 'accept', content: {} };
      },
    });
    expect(await answered.promise).toEqual({
      method: 'elicitation/create',
      params: { message: 'Which one?', requestedSchema: { type: 'object', properties: {} } },
    });
    expect(gets.slice(0, 2)).toEqual([undefined, 'g1']);
    expect(await posted.promise).toEqual({
      jsonrpc: '2.0',
      id: 'srv-1',
      result: { action: 'accept', content: {} },
    });
  });
});

describe("the server's requests", () => {
  it('an elicitation linked to a task (related-task) on a POST stream reaches onRequest with its _meta, and the answer is POSTed with the same id; ping is answered, an undeclared method gets -32601', async () => {
    server = await startScriptedServer();
    const srv = server;
    const calls: Array<[string, Record<string, unknown>]> = [];
    srv.onRequest = (message, res) => {
      const stream = sse(res);
      const meta = { 'io.modelcontextprotocol/related-task': { taskId: 't-1' } };
      stream.event({
        data: {
          jsonrpc: '2.0',
          id: 7,
          method: 'elicitation/create',
          params: { message: 'Sure?', requestedSchema: { type: 'object', properties: {} }, _meta: meta },
        },
      });
      stream.event({ data: { jsonrpc: '2.0', id: 8, method: 'ping' } });
      stream.event({ data: { jsonrpc: '2.0', id: 9, method: 'sampling/createMessage', params: {} } });
      // The response only once the three answers are in.
      srv.onPosted = () => {
        if (srv.posted.filter((p) => p.id !== undefined).length < 3) return;
        stream.event({ data: { jsonrpc: '2.0', id: message.id, result: { done: true } } });
        stream.end();
      };
    };
    const s = await open(srv, {
      onRequest: async (method, params) => {
        calls.push([method, params]);
        return { action: 'accept', content: { ok: true } };
      },
    });
    expect(await s.request('tasks/result', { taskId: 't-1' })).toEqual({ done: true });
    expect(calls).toEqual([
      [
        'elicitation/create',
        {
          message: 'Sure?',
          requestedSchema: { type: 'object', properties: {} },
          _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't-1' } },
        },
      ],
    ]);
    const answers = srv.posted.filter((p) => p.id !== undefined);
    expect(answers).toContainEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { action: 'accept', content: { ok: true } },
    });
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 8, result: {} });
    expect(answers).toContainEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32601, message: 'Method not found: sampling/createMessage' },
    });
  });

  it('a JSON-RPC error body on a non-2xx reply is McpError with the HTTP status', async () => {
    server = await startScriptedServer();
    server.onRequest = (message, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'bad task' } }),
      );
    };
    const s = await open(server);
    const error = await s.request('tasks/get', { taskId: 'nope' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32602, serverMessage: 'bad task', httpStatus: 400 });
  });
});

describe('close()', () => {
  it('sends DELETE with the session id (and the protocol version) and ends the GET stream', async () => {
    server = await startScriptedServer();
    const srv = server;
    const listening = deferred();
    const ended = deferred();
    srv.onGet = (_lastEventId, res) => {
      sse(res).event({ id: 'g1' });
      res.on('close', () => ended.resolve());
      listening.resolve();
    };
    const s = await open(srv);
    await listening.promise;
    await s.close();
    session = undefined;
    await ended.promise;
    const del = srv.received.filter((r) => r.verb === 'DELETE');
    expect(del).toHaveLength(1);
    expect(del[0]?.headers).toMatchObject({ 'mcp-session-id': 's1', 'mcp-protocol-version': '2025-11-25' });
  });

  it('through TaskClient: client.close() ends the 2025-11-25 session with DELETE', async () => {
    server = await startScriptedServer();
    const client = new TaskClient({ transport: new StreamableHttpTransport(server.url), era: 'legacy' });
    await client.request('tools/list', {});
    await client.close();
    expect(
      server.received.filter((r) => r.verb === 'DELETE').map((r) => r.headers['mcp-session-id']),
    ).toEqual(['s1']);
  });
});
