import { afterEach, describe, expect, it } from 'vitest';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { pollTask, rpc } from './rpc.js';

let server: TaskServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function startTask(url: string, name: string, args: Record<string, unknown>): Promise<string> {
  const reply = await rpc(url, 'tools/call', { name, arguments: args });
  expect(reply.body.result?.resultType).toBe('task');
  return reply.body.result!.taskId as string;
}

describe('reference server: tasks', () => {
  it('answers -32602 (HTTP 400) for an unknown taskId on tasks/get, tasks/update and tasks/cancel', async () => {
    server = await createTaskServer();
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const reply = await rpc(server.url, method, { taskId: 'no-such-task', inputResponses: {} });
      expect(reply.status).toBe(400);
      expect(reply.body.error?.code).toBe(-32602);
    }
  });

  it('keeps a task for ttlMs from creation on the injected clock, then answers -32602', async () => {
    let clock = Date.UTC(2026, 7, 1, 9, 0, 0);
    server = await createTaskServer({ ttlMs: 1_000, inlineBudgetMs: 10, now: () => clock });
    const taskId = await startTask(server.url, 'reindex_corpus', { documents: 100_000 });
    const first = await rpc(server.url, 'tasks/get', { taskId });
    expect(first.body.result).toMatchObject({
      taskId,
      status: 'working',
      createdAt: '2026-08-01T09:00:00.000Z',
      ttlMs: 1_000,
    });
    clock += 999;
    expect((await rpc(server.url, 'tasks/get', { taskId })).body.result?.taskId).toBe(taskId);
    clock += 1;
    const expired = await rpc(server.url, 'tasks/get', { taskId });
    expect(expired.body.error?.code).toBe(-32602);
    expect(server.core.registry.size).toBe(0);
  });

  it('never expires a task with ttlMs null', async () => {
    let clock = 0;
    server = await createTaskServer({ ttlMs: null, inlineBudgetMs: 10, now: () => clock });
    const taskId = await startTask(server.url, 'reindex_corpus', { documents: 100_000 });
    clock += 10 ** 12;
    expect((await rpc(server.url, 'tasks/get', { taskId })).body.result).toMatchObject({
      taskId,
      ttlMs: null,
    });
  });

  it('delivers tasks/update answers to the job, ignoring keys that are not outstanding', async () => {
    server = await createTaskServer({ timeScale: 0.1 });
    const taskId = await startTask(server.url, 'deploy_release', { version: '1.2.3' });
    const waiting = await pollTask(server.url, taskId, (t) => t.status === 'input_required');
    expect(waiting.inputRequests.confirm).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'Deploy 1.2.3 to production?' },
    });

    const ignored = await rpc(server.url, 'tasks/update', {
      taskId,
      inputResponses: { unknown: { action: 'accept' } },
    });
    expect(ignored.body.result).toEqual({ resultType: 'complete' });
    expect((await rpc(server.url, 'tasks/get', { taskId })).body.result?.status).toBe('input_required');

    const ack = await rpc(server.url, 'tasks/update', {
      taskId,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true, note: 'go' } } },
    });
    expect(ack.body.result).toEqual({ resultType: 'complete' });
    const done = await pollTask(server.url, taskId);
    expect(done).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'deployed 1.2.3 (go)' }] },
    });
    expect(server.stats.taskUpdates(taskId).map((u) => Object.keys(u.inputResponses))).toEqual([
      ['unknown'],
      ['confirm'],
    ]);
  });

  it('ends a declined deploy as completed with isError, never failed', async () => {
    server = await createTaskServer({ timeScale: 0.1 });
    const taskId = await startTask(server.url, 'deploy_release', { version: '2.0.0' });
    await pollTask(server.url, taskId, (t) => t.status === 'input_required');
    await rpc(server.url, 'tasks/update', { taskId, inputResponses: { confirm: { action: 'decline' } } });
    const done = await pollTask(server.url, taskId);
    expect(done).toMatchObject({ status: 'completed', result: { isError: true } });
  });

  it('keeps unanswered keys pending after a partial answer', async () => {
    server = await createTaskServer({ fixtures: 'conformance' });
    const taskId = await startTask(server.url, 'multi_input', {});
    const waiting = await pollTask(
      server.url,
      taskId,
      (t) => Object.keys(t.inputRequests ?? {}).length === 2,
    );
    const [first, second] = Object.keys(waiting.inputRequests);
    await rpc(server.url, 'tasks/update', {
      taskId,
      inputResponses: { [first!]: { action: 'accept', content: { name: 'Ada' } } },
    });
    const partial = (await rpc(server.url, 'tasks/get', { taskId })).body.result!;
    expect(partial.status).toBe('input_required');
    expect(Object.keys(partial.inputRequests)).toEqual([second]);
    await rpc(server.url, 'tasks/update', {
      taskId,
      inputResponses: { [second!]: { action: 'accept', content: { confirm: true } } },
    });
    expect((await pollTask(server.url, taskId)).status).toBe('completed');
  });

  it('fails a task whose question stays unanswered for inputTimeoutMs', async () => {
    server = await createTaskServer({ timeScale: 0.1, inputTimeoutMs: 50 });
    const taskId = await startTask(server.url, 'deploy_release', { version: '3.0.0' });
    const done = await pollTask(server.url, taskId);
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({
      code: -32603,
      message: expect.stringContaining('not answered within 50 ms'),
    });
    expect(done).not.toHaveProperty('result');
  });

  it('acks tasks/cancel, ends a running task cancelled, and acks again once terminal', async () => {
    server = await createTaskServer({ inlineBudgetMs: 10 });
    const taskId = await startTask(server.url, 'reindex_corpus', { documents: 100_000 });
    const ack = await rpc(server.url, 'tasks/cancel', { taskId });
    expect(ack.body.result).toEqual({ resultType: 'complete' });
    expect((await rpc(server.url, 'tasks/get', { taskId })).body.result?.status).toBe('cancelled');
    expect((await rpc(server.url, 'tasks/cancel', { taskId })).body.result).toEqual({
      resultType: 'complete',
    });
    expect(server.stats.taskCancels(taskId)).toHaveLength(2);
  });

  it('keeps a completed task completed when cancelled afterwards', async () => {
    server = await createTaskServer({ timeScale: 0.5, inlineBudgetMs: 20 });
    const taskId = await startTask(server.url, 'lint_file', { path: 'a.ts' });
    await pollTask(server.url, taskId);
    await rpc(server.url, 'tasks/cancel', { taskId });
    expect((await rpc(server.url, 'tasks/get', { taskId })).body.result?.status).toBe('completed');
  });

  it('reports a JSON-RPC failure as failed + error, and a tool error as completed + isError', async () => {
    server = await createTaskServer({ timeScale: 0.5 });
    const flaky = await pollTask(server.url, await startTask(server.url, 'flaky_job', {}));
    expect(flaky).toMatchObject({ status: 'failed', error: { code: -32603, data: { retryable: true } } });
    const lint = await pollTask(server.url, await startTask(server.url, 'lint_file', { path: 'src/x.ts' }));
    expect(lint).toMatchObject({
      status: 'completed',
      result: { isError: true, content: [{ type: 'text' }] },
    });
  });
});
