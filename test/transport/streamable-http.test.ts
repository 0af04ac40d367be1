import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  HttpError,
  InvalidResponseError,
  McpError,
  NetworkError,
  RequestTimeoutError,
  ResponseTooLargeError,
  StreamableHttpTransport,
  StreamEndedError,
  TaskClient,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type Progress,
} from '../../src/index.js';
import { fakeFetch, jsonResponse, sseEvent, sseResponse, type FetchCall } from '../helpers/unit-fixtures.js';

const URL_ = 'http://mcp.test/mcp';
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};

function req(method: string, params: Record<string, unknown> = {}, id: number | string = 1): JsonRpcRequest {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: META } };
}

/** Answers every POST with `{ result }` echoing the request id. */
function echoResult(result: Record<string, unknown> = { ok: true }) {
  return (call: FetchCall) => jsonResponse({ jsonrpc: '2.0', id: call.body.id, result });
}

describe('StreamableHttpTransport', () => {
  afterEach(() => vi.useRealTimers());

  describe('request headers (2.2–2.7, 2.14)', () => {
    it('2.2–2.4: Accept, Content-Type, MCP-Protocol-Version equal to _meta, Mcp-Method, Mcp-Name for tools/call', async () => {
      const { fetch, calls } = fakeFetch(echoResult());
      const t = new StreamableHttpTransport(URL_, {
        fetch,
        headers: { Authorization: 'Bearer x', 'Mcp-Method': 'spoofed' },
      });
      await t.request(req('tools/call', { name: 'reindex', arguments: {} }));
      const h = calls[0]!.headers;
      expect(calls[0]!.url).toBe(URL_);
      expect(h.get('accept')).toBe('application/json, text/event-stream');
      expect(h.get('content-type')).toBe('application/json');
      expect(h.get('mcp-protocol-version')).toBe('2026-07-28');
      expect(h.get('mcp-method')).toBe('tools/call');
      expect(h.get('mcp-name')).toBe('reindex');
      expect(h.get('authorization')).toBe('Bearer x');
      expect(calls[0]!.body).toEqual(req('tools/call', { name: 'reindex', arguments: {} }));
    });

    it.each([
      ['resources/read', { uri: 'file:///docs/a%20b.txt?rev=2&x=y' }, 'file:///docs/a%20b.txt?rev=2&x=y'],
      ['prompts/get', { name: 'summarise' }, 'summarise'],
      ['tasks/get', { taskId: 't-4f9c' }, 't-4f9c'],
      ['tasks/update', { taskId: 't-4f9c', inputResponses: {} }, 't-4f9c'],
      ['tasks/cancel', { taskId: 't-4f9c' }, 't-4f9c'],
      ['server/discover', {}, null],
      ['tools/list', {}, null],
    ])('2.4, 2.5, 2.6: %s → Mcp-Name %s (%20 and ? stay plain)', async (method, params, name) => {
      const { fetch, calls } = fakeFetch(echoResult());
      await new StreamableHttpTransport(URL_, { fetch }).request(req(method, params));
      expect(calls[0]!.headers.get('mcp-method')).toBe(method);
      expect(calls[0]!.headers.get('mcp-name')).toBe(name);
    });

    it('2.6: a non-ASCII Mcp-Name goes as =?base64?…?=', async () => {
      const { fetch, calls } = fakeFetch(echoResult());
      await new StreamableHttpTransport(URL_, { fetch }).request(req('tools/call', { name: 'café' }));
      expect(calls[0]!.headers.get('mcp-name')).toBe('=?base64?Y2Fmw6k=?=');
    });

    it('2.14: never sends Mcp-Session-Id, even after the server sent one or a caller set one', async () => {
      const { fetch, calls } = fakeFetch((call) =>
        jsonResponse(
          { jsonrpc: '2.0', id: call.body.id, result: {} },
          { headers: { 'Mcp-Session-Id': 'sess-123' } },
        ),
      );
      const t = new StreamableHttpTransport(URL_, { fetch, headers: { 'Mcp-Session-Id': 'mine' } });
      await t.request(req('tools/list', {}, 1));
      await t.request(req('tools/list', {}, 2));
      expect(calls.map((c) => c.headers.get('mcp-session-id'))).toEqual([null, null]);
    });

    it('per-request extra headers are sent; protocol headers still win', async () => {
      const { fetch, calls } = fakeFetch(echoResult());
      await new StreamableHttpTransport(URL_, { fetch }).request(req('tools/call', { name: 'n' }), {
        headers: { 'Mcp-Param-X': '1', 'Mcp-Name': 'evil' },
      });
      expect(calls[0]!.headers.get('mcp-param-x')).toBe('1');
      expect(calls[0]!.headers.get('mcp-name')).toBe('n');
    });

    it('rejects a non-http URL and a bad maxResponseBytes', () => {
      expect(() => new StreamableHttpTransport('ftp://x/y')).toThrow(
        new TypeError('StreamableHttpTransport: url must be http(s), got ftp:'),
      );
      // A host and port without the scheme parses as the scheme "localhost:": the message offers the URL meant.
      expect(() => new StreamableHttpTransport('localhost:3000/mcp')).toThrow(
        new TypeError(
          'StreamableHttpTransport: url must be http(s), got localhost: (did you mean "http://localhost:3000/mcp"?)',
        ),
      );
      expect(() => new StreamableHttpTransport(URL_, { maxResponseBytes: 0 })).toThrow(TypeError);
    });
  });

  describe('replies (2.2, 2.8–2.10, 2.12, 7.1)', () => {
    it('2.2: a JSON reply resolves with its result', async () => {
      const { fetch } = fakeFetch(echoResult({ content: [] }));
      await expect(
        new StreamableHttpTransport(URL_, { fetch }).request(req('tools/call', { name: 'x' })),
      ).resolves.toEqual({ content: [] });
    });

    it('2.8, 2.9: SSE with comments, CRLF, multi-line data, split chunks, a notification, a dropped server request and a foreign id', async () => {
      const response = JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        result: { content: [{ type: 'text', text: 'sse ok' }] },
      });
      const half = Math.floor(response.length / 2);
      const body = [
        ': keepalive comment\r\n\r\n',
        'event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/progress",\r\ndata: "params":{"progressToken":"p1","progress":1,"total":2}}\r\n\r\n',
        sseEvent({ jsonrpc: '2.0', id: 99, method: 'elicitation/create', params: { message: 'x' } }),
        sseEvent({ jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: 'not mine' }] } }),
        `data: ${response.slice(0, half)}`,
        `${response.slice(half)}\r\n\r\n`,
      ];
      const { fetch } = fakeFetch(() => sseResponse(body));
      const notifications: JsonRpcNotification[] = [];
      const result = await new StreamableHttpTransport(URL_, { fetch }).request(
        req('tools/call', { name: 'x' }, 7),
        {
          onNotification: (n) => notifications.push(n),
        },
      );
      expect(result).toEqual({ content: [{ type: 'text', text: 'sse ok' }] });
      expect(notifications).toEqual([
        {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 'p1', progress: 1, total: 2 },
        },
      ]);
    });

    it('2.8: settles on the matching response even if the stream lingers, and closes the stream', async () => {
      let cancelled = false;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(sseEvent({ jsonrpc: '2.0', id: 1, result: { v: 1 } })));
        },
        cancel() {
          cancelled = true;
        },
      });
      const { fetch } = fakeFetch(
        () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
      );
      await expect(new StreamableHttpTransport(URL_, { fetch }).request(req('tools/list'))).resolves.toEqual({
        v: 1,
      });
      expect(cancelled).toBe(true);
    });

    it('2.10: a stream that ends before its response → StreamEndedError', async () => {
      const { fetch } = fakeFetch(() =>
        sseResponse([
          ': hi\n\n',
          sseEvent({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }),
        ]),
      );
      const error = await new StreamableHttpTransport(URL_, { fetch })
        .request(req('tools/call', { name: 'x' }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StreamEndedError);
      expect((error as StreamEndedError).code).toBe('STREAM_ENDED');
      expect((error as Error).message).toBe(
        'tools/call failed: the response stream ended before the response arrived',
      );
    });

    it('an SSE JSON-RPC error for our id → McpError', async () => {
      const { fetch } = fakeFetch(() =>
        sseResponse(
          sseEvent({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad', data: { f: 1 } } }),
        ),
      );
      const error = await new StreamableHttpTransport(URL_, { fetch })
        .request(req('tools/call', { name: 'x' }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
      expect((error as McpError).httpStatus).toBe(200);
    });

    it('200 text/html → InvalidResponseError', async () => {
      const { fetch } = fakeFetch(
        () => new Response('<html>login</html>', { status: 200, headers: { 'content-type': 'text/html' } }),
      );
      const error = await new StreamableHttpTransport(URL_, { fetch })
        .request(req('tools/list'))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidResponseError);
      expect((error as Error).message).toBe(
        'tools/list failed: invalid response: unexpected content-type "text/html": <html>login</html>',
      );
    });

    it('2.12: 502 with an HTML body → HttpError with status and excerpt', async () => {
      const html = `<html><body>${'Bad gateway '.repeat(40)}</body></html>`;
      const { fetch } = fakeFetch(
        () => new Response(html, { status: 502, headers: { 'content-type': 'text/html' } }),
      );
      const error = await new StreamableHttpTransport(URL_, { fetch })
        .request(req('tools/list'))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HttpError);
      const e = error as HttpError;
      expect(e.status).toBe(502);
      expect(e.code).toBe('HTTP_ERROR');
      expect(e.bodyExcerpt).toBe(`${html.slice(0, 200)}…`);
      expect(e.retryAfterMs).toBeUndefined();
      expect(e.message).toBe(`tools/list failed: HTTP 502: ${html.slice(0, 200)}…`);
    });

    it('2.12, 7.1: 400 with a JSON-RPC error body → McpError with code, data and httpStatus 400', async () => {
      const { fetch } = fakeFetch((call) =>
        jsonResponse(
          {
            jsonrpc: '2.0',
            id: call.body.id,
            error: { code: -32020, message: 'Header mismatch', data: { header: 'Mcp-Name' } },
          },
          { status: 400 },
        ),
      );
      const error = await new StreamableHttpTransport(URL_, { fetch })
        .request(req('tools/call', { name: 'x' }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      const e = error as McpError;
      expect(e.code).toBe(-32020);
      expect(e.data).toEqual({ header: 'Mcp-Name' });
      expect(e.httpStatus).toBe(400);
      expect(e.message).toBe('tools/call failed: Header mismatch (JSON-RPC -32020)');
    });

    it('429 with Retry-After: 2 → HttpError.retryAfterMs 2000', async () => {
      const { fetch } = fakeFetch(
        () => new Response('slow down', { status: 429, headers: { 'Retry-After': '2' } }),
      );
      const error = await new StreamableHttpTransport(URL_, { fetch })
        .request(req('tasks/get', { taskId: 't' }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).status).toBe(429);
      expect((error as HttpError).retryAfterMs).toBe(2_000);
    });

    it('429 + Retry-After: 2 + a JSON-RPC error body → McpError keeping httpStatus 429 and retryAfterMs 2000', async () => {
      const { fetch } = fakeFetch((call) =>
        jsonResponse(
          { jsonrpc: '2.0', id: call.body.id, error: { code: -32000, message: 'slow down' } },
          { status: 429, headers: { 'Retry-After': '2' } },
        ),
      );
      const error = await new StreamableHttpTransport(URL_, { fetch })
        .request(req('tasks/get', { taskId: 't' }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32000);
      expect((error as McpError).httpStatus).toBe(429);
      expect((error as McpError).retryAfterMs).toBe(2_000);
    });

    it('503 + Retry-After: 3 + JSON-RPC -32603 → McpError.retryAfterMs 3000; without Retry-After it is undefined', async () => {
      let header: Record<string, string> = { 'Retry-After': '3' };
      const { fetch } = fakeFetch((call) =>
        jsonResponse(
          { jsonrpc: '2.0', id: call.body.id, error: { code: -32603, message: 'overloaded' } },
          { status: 503, headers: header },
        ),
      );
      const t = new StreamableHttpTransport(URL_, { fetch });
      const first = (await t.request(req('tasks/get', { taskId: 't' })).catch((e: unknown) => e)) as McpError;
      expect([first.httpStatus, first.retryAfterMs]).toEqual([503, 3_000]);
      header = {};
      const second = (await t
        .request(req('tasks/get', { taskId: 't' }, 2))
        .catch((e: unknown) => e)) as McpError;
      expect([second.httpStatus, second.retryAfterMs]).toEqual([503, undefined]);
    });

    it('malformed JSON → InvalidResponseError', async () => {
      const { fetch } = fakeFetch(
        () => new Response('{"jsonrpc":"2.0",', { headers: { 'content-type': 'application/json' } }),
      );
      const error = await new StreamableHttpTransport(URL_, { fetch })
        .request(req('tools/list'))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidResponseError);
      expect((error as Error).message).toBe(
        'tools/list failed: invalid response: body is not JSON: {"jsonrpc":"2.0",',
      );
      expect((error as Error).cause).toBeInstanceOf(SyntaxError);
    });

    it('a JSON response with another id → InvalidResponseError', async () => {
      const { fetch } = fakeFetch(() => jsonResponse({ jsonrpc: '2.0', id: 42, result: {} }));
      const error = await new StreamableHttpTransport(URL_, { fetch })
        .request(req('tools/list', {}, 1))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidResponseError);
      expect((error as Error).message).toBe(
        'tools/list failed: invalid response: response id 42 does not match request id 1',
      );
    });

    it('202 to a request → InvalidResponseError', async () => {
      const { fetch } = fakeFetch(() => new Response(null, { status: 202 }));
      const error = await new StreamableHttpTransport(URL_, { fetch })
        .request(req('tools/list'))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidResponseError);
    });

    it.each(['json', 'sse'])(
      'a %s body larger than maxResponseBytes → ResponseTooLargeError',
      async (kind) => {
        const big = { jsonrpc: '2.0', id: 1, result: { blob: 'x'.repeat(5_000) } };
        const { fetch } = fakeFetch(() => (kind === 'json' ? jsonResponse(big) : sseResponse(sseEvent(big))));
        const error = await new StreamableHttpTransport(URL_, { fetch, maxResponseBytes: 1_024 })
          .request(req('tools/list'))
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ResponseTooLargeError);
        expect((error as ResponseTooLargeError).limitBytes).toBe(1_024);
        expect((error as Error).message).toBe('tools/list failed: response exceeded 1024 bytes');
      },
    );

    it('fetch throwing → NetworkError with the cause', async () => {
      const cause = new TypeError('fetch failed');
      const fetch = (async () => {
        throw cause;
      }) as unknown as typeof globalThis.fetch;
      const error = await new StreamableHttpTransport(URL_, { fetch })
        .request(req('tools/list'))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as Error).cause).toBe(cause);
      expect((error as Error).message).toBe('tools/list failed: network error: fetch failed');
    });
  });

  describe('time, abort, auth (2.11, 6.1)', () => {
    /** An endless SSE stream: a comment every 100 ms; errors like a real fetch body when `signal` aborts. */
    function endless(signal: AbortSignal | undefined): Response {
      let timer: ReturnType<typeof setInterval> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          timer = setInterval(() => controller.enqueue(new TextEncoder().encode(': ping\n\n')), 100);
          signal?.addEventListener('abort', () => {
            clearInterval(timer);
            controller.error(signal.reason);
          });
        },
        cancel() {
          clearInterval(timer);
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    }

    it('6.1: an endless stream with timeoutMs → RequestTimeoutError at exactly the budget', async () => {
      vi.useFakeTimers({ now: 0 });
      const { fetch, calls } = fakeFetch((call) => endless(call.signal));
      const t = new StreamableHttpTransport(URL_, { fetch });
      let error: unknown;
      let at = -1;
      void t.request(req('tools/call', { name: 'x' }), { timeoutMs: 1_000 }).catch((e: unknown) => {
        error = e;
        at = Date.now();
      });
      await vi.advanceTimersByTimeAsync(999);
      expect(error).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(error).toBeInstanceOf(RequestTimeoutError);
      expect(at).toBe(1_000);
      expect((error as RequestTimeoutError).timeoutMs).toBe(1_000);
      expect(calls[0]!.signal?.aborted).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('a silent endless stream (no chunks at all) also ends on the timeout', async () => {
      vi.useFakeTimers({ now: 0 });
      const { fetch } = fakeFetch((call) => {
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            call.signal?.addEventListener('abort', () => controller.error(call.signal?.reason));
          },
        });
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      });
      const p = new StreamableHttpTransport(URL_, { fetch }).request(req('tools/list'), { timeoutMs: 500 });
      const settled = p.catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(500);
      expect(await settled).toBeInstanceOf(RequestTimeoutError);
    });

    it('2.11: abort → rejects with signal.reason untouched and aborts the fetch signal', async () => {
      const { fetch, calls } = fakeFetch((call) => endless(call.signal));
      const controller = new AbortController();
      const reason = new Error('user abort');
      const p = new StreamableHttpTransport(URL_, { fetch }).request(req('tools/call', { name: 'x' }), {
        signal: controller.signal,
      });
      await new Promise((r) => setTimeout(r, 0));
      controller.abort(reason);
      await expect(p).rejects.toBe(reason);
      expect(calls[0]!.signal?.aborted).toBe(true);
      expect(calls[0]!.signal?.reason).toBe(reason);
    });

    it('2.11: an already-aborted signal rejects with its reason and sends nothing', async () => {
      const { fetch, calls } = fakeFetch(echoResult());
      const reason = new Error('early');
      await expect(
        new StreamableHttpTransport(URL_, { fetch }).request(req('tools/list'), {
          signal: AbortSignal.abort(reason),
        }),
      ).rejects.toBe(reason);
      expect(calls).toHaveLength(0);
    });

    it('STYLE 22: a settled request leaves no listener on the caller signal and no timer', async () => {
      vi.useFakeTimers({ now: 0 });
      const { fetch } = fakeFetch(echoResult());
      const controller = new AbortController();
      await new StreamableHttpTransport(URL_, { fetch }).request(req('tools/list'), {
        signal: controller.signal,
        timeoutMs: 60_000,
      });
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('401 with getHeaders → retried once with freshly fetched headers', async () => {
      let token = 0;
      const { fetch, calls } = fakeFetch((call, i) =>
        i === 0 ? new Response('expired', { status: 401 }) : echoResult()(call),
      );
      const t = new StreamableHttpTransport(URL_, {
        fetch,
        getHeaders: () => ({ Authorization: `Bearer t${++token}` }),
      });
      await expect(t.request(req('tools/list'))).resolves.toEqual({ ok: true });
      expect(calls.map((c) => c.headers.get('authorization'))).toEqual(['Bearer t1', 'Bearer t2']);
      expect(calls[1]!.body.id).toBe(calls[0]!.body.id);
    });

    it('401 twice with getHeaders → HttpError 401 after exactly two POSTs; without getHeaders after one', async () => {
      const { fetch, calls } = fakeFetch(() => new Response('no', { status: 401 }));
      const withHeaders = new StreamableHttpTransport(URL_, { fetch, getHeaders: () => ({}) });
      const e1 = await withHeaders.request(req('tools/list')).catch((e: unknown) => e);
      expect((e1 as HttpError).status).toBe(401);
      expect(calls).toHaveLength(2);
      const plain = new StreamableHttpTransport(URL_, { fetch });
      await plain.request(req('tools/list')).catch(() => undefined);
      expect(calls).toHaveLength(3);
    });

    it('close() aborts in-flight requests', async () => {
      const { fetch } = fakeFetch((call) => endless(call.signal));
      const t = new StreamableHttpTransport(URL_, { fetch });
      const p = t.request(req('tools/list'));
      await new Promise((r) => setTimeout(r, 0));
      await t.close();
      await expect(p).rejects.toBeInstanceOf(StreamEndedError);
    });
  });

  describe('with TaskClient', () => {
    it('6.4: a progress notification on the SSE reply reaches callTool(…, {onProgress}); others go to "notification"', async () => {
      const { fetch, calls } = fakeFetch((call) => {
        const token = (call.body.params as { _meta: { progressToken: string } })._meta.progressToken;
        return sseResponse([
          sseEvent({
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: token, progress: 0.5, total: 1, message: 'half' },
          }),
          sseEvent({
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: 'someone-else', progress: 1 },
          }),
          sseEvent({
            jsonrpc: '2.0',
            method: 'notifications/message',
            params: { level: 'info', data: 'log' },
          }),
          sseEvent({ jsonrpc: '2.0', id: call.body.id, result: { content: [{ type: 'text', text: 'ok' }] } }),
        ]);
      });
      const client = new TaskClient({ transport: new StreamableHttpTransport(URL_, { fetch }) });
      const progress: Progress[] = [];
      const other: string[] = [];
      client.on('notification', (n) => other.push(n.method));
      await expect(client.callTool('x', {}, { onProgress: (p) => progress.push(p) })).resolves.toEqual({
        content: [{ type: 'text', text: 'ok' }],
      });
      const token = (calls[0]!.body.params as { _meta: { progressToken: string } })._meta.progressToken;
      expect(progress).toEqual([{ progressToken: token, progress: 0.5, total: 1, message: 'half' }]);
      expect(other).toEqual(['notifications/progress', 'notifications/message']);
    });

    it('1.8, 2.3: after a 400 -32022 the resent POST has a new id and a header equal to _meta', async () => {
      const { fetch, calls } = fakeFetch((call, i) =>
        i === 0
          ? jsonResponse(
              {
                jsonrpc: '2.0',
                id: call.body.id,
                error: {
                  code: -32022,
                  message: 'Unsupported',
                  data: { supported: ['2026-07-28'], requested: '2026-07-28' },
                },
              },
              { status: 400 },
            )
          : jsonResponse({ jsonrpc: '2.0', id: call.body.id, result: { tools: [] } }),
      );
      const client = new TaskClient({ transport: new StreamableHttpTransport(URL_, { fetch }) });
      await client.listTools();
      expect(calls).toHaveLength(2);
      expect(calls[1]!.body.id).not.toBe(calls[0]!.body.id);
      for (const c of calls) {
        expect(c.headers.get('mcp-protocol-version')).toBe(
          (c.body.params as { _meta: Record<string, string> })._meta[
            'io.modelcontextprotocol/protocolVersion'
          ],
        );
      }
    });

    it('2.7: Mcp-Param-* from x-mcp-header after listTools (string as-is, number decimal, boolean lowercase, null omitted); invalid tools dropped with a warning', async () => {
      const tools = [
        {
          name: 'valid_tool',
          inputSchema: {
            type: 'object',
            properties: {
              region: { type: 'string', 'x-mcp-header': 'Region' },
              count: { type: 'integer', 'x-mcp-header': 'Count' },
              ratio: { type: 'number' },
              dry: { type: 'boolean', 'x-mcp-header': 'Dry' },
              note: { type: 'string', 'x-mcp-header': 'Note' },
              city: { type: 'string', 'x-mcp-header': 'City' },
              plain: { type: 'string' },
            },
          },
        },
        {
          name: 'bad_space',
          inputSchema: { type: 'object', properties: { v: { type: 'string', 'x-mcp-header': 'Bad Name' } } },
        },
        {
          name: 'bad_empty',
          inputSchema: { type: 'object', properties: { v: { type: 'string', 'x-mcp-header': '' } } },
        },
        {
          name: 'bad_dup',
          inputSchema: {
            type: 'object',
            properties: {
              a: { type: 'string', 'x-mcp-header': 'X' },
              b: { type: 'string', 'x-mcp-header': 'x' },
            },
          },
        },
        {
          name: 'bad_type',
          inputSchema: { type: 'object', properties: { o: { type: 'object', 'x-mcp-header': 'Obj' } } },
        },
        {
          name: 'bad_number',
          inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } },
        },
      ];
      const { fetch, calls } = fakeFetch((call) =>
        jsonResponse({
          jsonrpc: '2.0',
          id: call.body.id,
          result: call.body.method === 'tools/list' ? { tools } : { content: [] },
        }),
      );
      const client = new TaskClient({ transport: new StreamableHttpTransport(URL_, { fetch }) });
      const warnings: string[] = [];
      client.on('warning', (w) => warnings.push(w));
      const args = {
        region: 'eu-west 1',
        count: 42,
        ratio: 0.5,
        dry: false,
        note: null,
        city: 'Zürich',
        plain: 'p',
      };
      await client.callTool('valid_tool', args); // before listTools: no schema known, no Mcp-Param-*
      expect((await client.listTools()).map((t) => t.name)).toEqual(['valid_tool']);
      expect(warnings).toEqual([
        'tools/list: dropped tool "bad_space": property "v": x-mcp-header "Bad Name" has characters not allowed in a header name',
        'tools/list: dropped tool "bad_empty": property "v": x-mcp-header is empty',
        'tools/list: dropped tool "bad_dup": property "b": x-mcp-header "x" is used twice',
        'tools/list: dropped tool "bad_type": property "o": x-mcp-header on type "object" (only string, integer, boolean)',
        'tools/list: dropped tool "bad_number": property "n": x-mcp-header on type "number" (only string, integer, boolean)',
      ]);
      await client.callTool('valid_tool', args);
      const params = (c: FetchCall): Record<string, string> => {
        const out: Record<string, string> = {};
        c.headers.forEach((v, k) => {
          if (k.startsWith('mcp-param-')) out[k] = v;
        });
        return out;
      };
      expect(params(calls[0]!)).toEqual({});
      expect(params(calls[2]!)).toEqual({
        'mcp-param-region': 'eu-west 1',
        'mcp-param-count': '42',
        'mcp-param-dry': 'false',
        'mcp-param-city': '=?base64?WsO8cmljaA==?=',
      });
      expect(calls[2]!.body.params).toMatchObject({ name: 'valid_tool', arguments: args });
    });
  });
});
