import { afterEach, describe, expect, it } from 'vitest';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { pollTask, rpc } from './rpc.js';

let server: TaskServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('reference server: inline vs task by deadline', () => {
  it('answers inline when the job ends within inlineBudgetMs', async () => {
    server = await createTaskServer({ inlineBudgetMs: 200 });
    const reply = await rpc(server.url, 'tools/call', {
      name: 'reindex_corpus',
      arguments: { documents: 5 },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Indexed 5 documents' }],
    });
  });

  it('returns a flat CreateTaskResult when the job outlives the budget, and the task completes', async () => {
    server = await createTaskServer({ inlineBudgetMs: 20, pollIntervalMs: 40, ttlMs: 60_000 });
    const reply = await rpc(server.url, 'tools/call', {
      name: 'reindex_corpus',
      arguments: { documents: 100 },
    });
    const created = reply.body.result!;
    expect(created).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: 60_000,
      pollIntervalMs: 40,
    });
    expect(created.taskId).toEqual(expect.any(String));
    expect(created.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(created.lastUpdatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    for (const key of ['task', 'result', 'error', 'inputRequests', 'requestState'])
      expect(created).not.toHaveProperty(key);

    const messages = new Set<string>();
    const done = await pollTask(server.url, created.taskId, (t) => {
      if (t.statusMessage !== undefined) messages.add(t.statusMessage);
      return t.status === 'completed';
    });
    expect(done).toMatchObject({
      resultType: 'complete',
      status: 'completed',
      result: { content: [{ text: 'Indexed 100 documents' }] },
    });
    expect([...messages].some((m) => /^indexed \d+\/100$/.test(m))).toBe(true);
  });

  it('waits inline for a slow job when the client did not declare the extension', async () => {
    server = await createTaskServer({ inlineBudgetMs: 10 });
    const reply = await rpc(
      server.url,
      'tools/call',
      { name: 'reindex_corpus', arguments: { documents: 30 } },
      { tasks: false },
    );
    expect(reply.body.result).toMatchObject({
      resultType: 'complete',
      content: [{ text: 'Indexed 30 documents' }],
    });
    expect(server.core.registry.size).toBe(0);
  });

  it('answers -32021 naming the extension for a task-only tool without the extension', async () => {
    server = await createTaskServer();
    const reply = await rpc(
      server.url,
      'tools/call',
      { name: 'deploy_release', arguments: { version: '1.0.0' } },
      { tasks: false },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.error?.code).toBe(-32021);
    expect(reply.body.error?.data).toEqual({
      requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    });
  });

  it('answers -32021 to tasks/* without the extension', async () => {
    server = await createTaskServer();
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const reply = await rpc(server.url, method, { taskId: 'x', inputResponses: {} }, { tasks: false });
      expect(reply.status).toBe(400);
      expect(reply.body.error?.code).toBe(-32021);
    }
  });

  it('turns a slow resource and a slow prompt into tasks, fast ones stay inline', async () => {
    server = await createTaskServer({ inlineBudgetMs: 20 });
    const slowResource = await rpc(server.url, 'resources/read', { uri: 'demo://slow-report' });
    expect(slowResource.body.result?.resultType).toBe('task');
    const finished = await pollTask(server.url, slowResource.body.result!.taskId);
    expect(finished.result).toMatchObject({
      contents: [{ uri: 'demo://slow-report' }],
      cacheScope: 'public',
      ttlMs: 0,
    });
    const readme = await rpc(server.url, 'resources/read', { uri: 'demo://readme' });
    expect(readme.body.result).toMatchObject({
      resultType: 'complete',
      contents: [{ uri: 'demo://readme' }],
    });
    const slowPrompt = await rpc(server.url, 'prompts/get', {
      name: 'slow_briefing',
      arguments: { topic: 'tasks' },
    });
    expect(slowPrompt.body.result?.resultType).toBe('task');
    const prompt = await rpc(server.url, 'prompts/get', { name: 'summarize', arguments: { text: 'hi' } });
    expect(prompt.body.result).toMatchObject({ resultType: 'complete', messages: [{ role: 'user' }] });
  });

  it('answers -32602 for an unknown tool, resource or prompt', async () => {
    server = await createTaskServer();
    for (const [method, params] of [
      ['tools/call', { name: 'nope' }],
      ['resources/read', { uri: 'demo://nope' }],
      ['prompts/get', { name: 'nope' }],
    ] as const) {
      const reply = await rpc(server.url, method, params);
      expect(reply.body.error?.code).toBe(-32602);
    }
  });
});
