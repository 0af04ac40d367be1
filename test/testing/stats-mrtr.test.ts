import { afterEach, describe, expect, it } from 'vitest';
import { createTaskServer, TaskServerCore, type TaskServer } from '../../src/testing/index.js';
import { pollTask, rpc } from './rpc.js';

let server: TaskServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('reference server: stats', () => {
  it('counts requests per method and records tasks/get arrival times on the injected clock', async () => {
    let clock = 5_000;
    server = await createTaskServer({ inlineBudgetMs: 10, pollIntervalMs: 100, now: () => clock });
    const created = await rpc(server.url, 'tools/call', {
      name: 'reindex_corpus',
      arguments: { documents: 100_000 },
    });
    const taskId = created.body.result!.taskId as string;
    for (let i = 0; i < 3; i++) {
      await rpc(server.url, 'tasks/get', { taskId });
      clock += 100;
    }
    await rpc(server.url, 'tasks/cancel', { taskId });
    expect(server.stats.taskGetTimes(taskId)).toEqual([5_000, 5_100, 5_200]);
    expect(server.stats.count('tasks/get')).toBe(3);
    expect(server.stats.counts()).toEqual({ 'tools/call': 1, 'tasks/get': 3, 'tasks/cancel': 1 });
    expect(server.stats.taskCancels()).toEqual([{ taskId, at: 5_300 }]);
    server.stats.reset();
    expect(server.stats.counts()).toEqual({});
  });
});

describe('reference server: MRTR', () => {
  it('asks confirm_action for input first, then answers the retry inline', async () => {
    server = await createTaskServer();
    const params = { name: 'confirm_action', arguments: { action: 'wipe cache' } };
    const round1 = (await rpc(server.url, 'tools/call', params)).body.result!;
    expect(round1).toMatchObject({
      resultType: 'input_required',
      inputRequests: { confirm: { method: 'elicitation/create' } },
    });
    expect(round1.requestState).toEqual(expect.any(String));
    expect(round1).not.toHaveProperty('taskId');

    const retry = {
      ...params,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      requestState: round1.requestState,
    };
    const round2 = (await rpc(server.url, 'tools/call', retry)).body.result!;
    expect(round2).toMatchObject({ resultType: 'complete', content: [{ text: 'Performed "wipe cache"' }] });

    const tampered = await rpc(server.url, 'tools/call', {
      ...retry,
      requestState: `${String(round1.requestState)}x`,
    });
    expect(tampered.body.error?.code).toBe(-32602);
    const otherTool = await rpc(server.url, 'tools/call', {
      name: 'echo',
      arguments: { text: 'x' },
      requestState: round1.requestState,
    });
    expect(otherTool.body.error?.code).toBe(-32602);
  });

  it('composes an MRTR round with a task (test_tool_with_task)', async () => {
    server = await createTaskServer({ fixtures: 'conformance', timeScale: 0.2 });
    const round1 = (await rpc(server.url, 'tools/call', { name: 'test_tool_with_task', arguments: {} })).body
      .result!;
    expect(round1.resultType).toBe('input_required');
    const round2 = (
      await rpc(server.url, 'tools/call', {
        name: 'test_tool_with_task',
        arguments: {},
        inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
        requestState: round1.requestState,
      })
    ).body.result!;
    expect(round2.resultType).toBe('task');
    expect(round2).not.toHaveProperty('requestState');
    const done = await pollTask(server.url, round2.taskId);
    expect(done.result.content[0].text).toContain('Alice');
  });

  it('answers -32021 naming a missing top-level capability', async () => {
    server = await createTaskServer({ fixtures: 'conformance' });
    const reply = await rpc(server.url, 'tools/call', { name: 'test_missing_capability', arguments: {} });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { sampling: {} } },
    });
  });
});

describe('TaskServerCore without HTTP', () => {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
  };

  it('skips header checks when no headers are given, and stores a task before answering', async () => {
    const core = new TaskServerCore({ inlineBudgetMs: 5 });
    try {
      const reply = await core.handle({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'reindex_corpus', arguments: { documents: 10_000 }, _meta: meta },
      });
      expect(reply.status).toBe(200);
      const result = (reply.response as unknown as { result: { resultType: string; taskId: string } }).result;
      expect(result.resultType).toBe('task');
      expect(core.registry.get(result.taskId)?.run.status).toBe('working');
    } finally {
      core.close();
    }
  });

  it('checks headers when given, answers notifications with 202 and rejects batches', async () => {
    const core = new TaskServerCore();
    const message = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } };
    expect((await core.handle(message, { 'mcp-method': 'tools/list' })).response).toMatchObject({
      error: { code: -32020 },
    });
    expect(
      await core.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }),
    ).toEqual({ status: 202, notifications: [] });
    expect(await core.handle([message])).toMatchObject({
      status: 400,
      response: { id: null, error: { code: -32600 } },
    });
  });
});

describe('reference server: abandoned inline requests', () => {
  it('stops the job when the client closes its POST during an inline wait', async () => {
    let started = false;
    let aborted = false;
    server = await createTaskServer({
      demo: false,
      catalog: {
        tools: [
          {
            name: 'hang',
            description: 'Waits until aborted.',
            inputSchema: { type: 'object', properties: {} },
            run: async (ctx) => {
              started = true;
              ctx.signal.addEventListener('abort', () => (aborted = true));
              await ctx.sleep(10_000);
              return { content: [] };
            },
          },
        ],
      },
    });
    const controller = new AbortController();
    const call = rpc(
      server.url,
      'tools/call',
      { name: 'hang', arguments: {} },
      { tasks: false, signal: controller.signal },
    );
    // Waits (not measures): until the job runs, then until the server has seen the POST closed.
    await expect.poll(() => started, { timeout: 10_000 }).toBe(true);
    expect(aborted).toBe(false);
    controller.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => aborted, { timeout: 10_000 }).toBe(true);
  });
});
