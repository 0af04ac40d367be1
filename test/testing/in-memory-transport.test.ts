import { afterEach, describe, expect, it, vi } from 'vitest';
import { TaskClient } from '../../src/client/task-client.js';
import { McpError, RequestTimeoutError, StreamEndedError } from '../../src/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../src/protocol/jsonrpc.js';
import { benchCatalog, InMemoryTransport, TaskServerCore } from '../../src/testing/index.js';
import type { ToolDefinition } from '../../src/testing/index.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};
let nextId = 1;
const req = (method: string, params: Record<string, unknown> = {}): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id: nextId++,
  method,
  params: { ...params, _meta: { ...META, ...(params._meta as object | undefined) } },
});

/** A tool that waits until its signal aborts (an inline job the caller may abandon). */
const hang: ToolDefinition = {
  name: 'hang',
  description: 'Never finishes on its own.',
  inputSchema: { type: 'object' },
  run: (ctx) =>
    new Promise((_, reject) => {
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
    }),
};

describe('InMemoryTransport', () => {
  afterEach(() => vi.useRealTimers());

  it('resolves with the result of core.handle, with no objects shared between client and server', async () => {
    const core = new TaskServerCore();
    const transport = new InMemoryTransport(core);
    const message = req('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    const pending = transport.request(message);
    (message.params as Record<string, unknown>).name = 'changed-after-send';
    const result = await pending;
    expect(result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: 'hi' }],
      structuredContent: { text: 'hi' },
    });
    expect(core.stats.counts()).toEqual({ 'tools/call': 1 });
  });

  it('maps JSON-RPC errors to McpError with the code, the data and the HTTP status the core would use', async () => {
    const transport = new InMemoryTransport(new TaskServerCore());
    const unknownTool = await transport.request(req('tools/call', { name: 'nope' })).catch((e: unknown) => e);
    expect(unknownTool).toBeInstanceOf(McpError);
    expect(unknownTool).toMatchObject({
      code: -32602,
      httpStatus: 400,
      method: 'tools/call',
      message: 'tools/call failed: Unknown tool: nope (JSON-RPC -32602)',
    });
    const unknownMethod = await transport.request(req('tasks/list')).catch((e: unknown) => e);
    expect(unknownMethod).toMatchObject({ code: -32601, httpStatus: 404 });
    const unsupported = await transport
      .request(req('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '1999-01-01' } }))
      .catch((e: unknown) => e);
    expect(unsupported).toMatchObject({ code: -32022, httpStatus: 400, data: { requested: '1999-01-01' } });
  });

  it('passes notifications to onNotification as they are produced', async () => {
    const transport = new InMemoryTransport(new TaskServerCore());
    const seen: JsonRpcNotification[] = [];
    await transport.request(
      req('tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: { progressToken: 'p1' } }),
      {
        onNotification: (n) => seen.push(n),
      },
    );
    expect(seen).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p1', progress: 1, total: 1, message: 'echoed' },
      },
    ]);
  });

  it('an aborted signal rejects with its reason untouched and stops the inline job; an already-aborted one sends nothing', async () => {
    const core = new TaskServerCore({ catalog: { tools: [hang] } });
    const transport = new InMemoryTransport(core);
    const reason = new Error('caller left');
    const controller = new AbortController();
    const noTasks = { 'io.modelcontextprotocol/clientCapabilities': {} }; // the server waits inline, never a task
    const pending = transport.request(req('tools/call', { name: 'hang', _meta: noTasks }), {
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(core.registry.size).toBe(0);
    await expect(transport.request(req('tools/list'), { signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
    expect(core.stats.counts()).toEqual({ 'tools/call': 1 });
  });

  it('timeoutMs rejects with RequestTimeoutError (fake timers)', async () => {
    vi.useFakeTimers();
    const transport = new InMemoryTransport(new TaskServerCore({ catalog: { tools: [hang] } }));
    const noTasks = { 'io.modelcontextprotocol/clientCapabilities': {} }; // so the server waits inline
    const pending = transport.request(req('tools/call', { name: 'hang', _meta: noTasks }), {
      timeoutMs: 1_000,
    });
    const outcome = pending.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(999);
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ method: 'tools/call', timeoutMs: 1_000 });
  });

  it('close() rejects pending requests and later ones with StreamEndedError', async () => {
    const transport = new InMemoryTransport(new TaskServerCore({ catalog: { tools: [hang] } }));
    const pending = transport.request(req('tools/call', { name: 'hang' }));
    await transport.close();
    await expect(pending).rejects.toBeInstanceOf(StreamEndedError);
    await expect(transport.request(req('tools/list'))).rejects.toBeInstanceOf(StreamEndedError);
  });

  it('notify() delivers a notification; the core answers nothing', async () => {
    const core = new TaskServerCore();
    await expect(
      new InMemoryTransport(core).notify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 99 },
      }),
    ).resolves.toBeUndefined();
  });

  it('transports to one core share a serverKey (one cap, one Retry-After); another core gets another', () => {
    const core = new TaskServerCore();
    const a = new InMemoryTransport(core);
    expect(new InMemoryTransport(core).serverKey).toBe(a.serverKey);
    expect(new InMemoryTransport(new TaskServerCore()).serverKey).not.toBe(a.serverKey);
    expect(a.serverKey).toMatch(/^memory:\/\/task-server-core\/\d+$/);
  });

  it('drives a TaskClient through a sleep_ms task: the completion is recorded, polls respect the floor (fake timers)', async () => {
    vi.useFakeTimers();
    const bench = benchCatalog();
    const core = new TaskServerCore({ catalog: bench.catalog, inlineBudgetMs: 0, pollIntervalMs: 100 });
    const client = new TaskClient({ transport: new InMemoryTransport(core) });
    let taskId = '';
    const pending = client.callTool(
      'sleep_ms',
      { ms: 150, key: 'k' },
      { onTask: (h) => (taskId = h.taskId) },
    );
    await vi.advanceTimersByTimeAsync(1_000);
    const result = await pending;
    const completion = bench.completions.get('k');
    expect(result.structuredContent).toEqual({
      ms: 150,
      key: 'k',
      startedAt: completion?.startedAt,
      completedAt: completion?.completedAt,
    });
    expect((completion?.completedAt ?? 0) - (completion?.startedAt ?? 0)).toBe(150);
    const createdAt = core.registry.get(taskId)?.createdAtMs ?? Number.NaN;
    // Polls never sooner than the floor (plus up to 5 % jitter): one while working, one after the completion at 150 ms
    const gets = core.stats.taskGetTimes(taskId);
    expect(gets).toHaveLength(2);
    const gapsMs = gets.map((at, i) => at - (i === 0 ? createdAt : (gets[i - 1] as number)));
    for (const gapMs of gapsMs) expect(gapMs).toBeGreaterThanOrEqual(100);
    await client.close();
  });

  it('sleep_ms rejects a non-string key with -32602', async () => {
    const transport = new InMemoryTransport(new TaskServerCore({ catalog: benchCatalog().catalog }));
    await expect(
      transport.request(req('tools/call', { name: 'sleep_ms', arguments: { ms: 1, key: 7 } })),
    ).rejects.toMatchObject({
      code: -32602,
      message: 'tools/call failed: Argument "key" must be a string (JSON-RPC -32602)',
    });
  });
});
