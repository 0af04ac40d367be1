import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CancelNotConfirmedError,
  InvalidResponseError,
  RequestTimeoutError,
  TaskClient,
  type TaskClientOptions,
  TaskDetachedError,
  type TaskHandle,
} from '../../src/index.js';
import type { CallToolResult } from '../../src/protocol/results.js';
import { ScriptedTransport, type Handler } from '../helpers/scripted-transport.js';
import {
  AbortableTransport,
  completed,
  created,
  deferred,
  detailed,
  flush,
  toolResult,
  outcome,
} from '../helpers/unit-fixtures.js';
import '../helpers/no-jitter.js';

function setup(
  handler: Handler,
  options: Partial<TaskClientOptions> = {},
  Transport: typeof ScriptedTransport = ScriptedTransport,
) {
  const transport = new Transport(handler);
  const client = new TaskClient({ transport, ...options });
  const violations: string[] = [];
  client.on('serverViolation', (d) => violations.push(d));
  return { transport, client, violations };
}

describe('TaskClient result dispatch (1.7, 5.2–5.5)', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('1.7: an absent resultType is complete: the inline result is returned without polling', async () => {
    const { transport, client } = setup(() => toolResult('inline'));
    await expect(client.callTool('greet', { who: 'x' })).resolves.toEqual(toolResult('inline'));
    expect(transport.sent.map((s) => s.message.method)).toEqual(['tools/call']);
  });

  it('1.7: an unknown resultType → InvalidResponseError', async () => {
    const { client } = setup(() => ({ resultType: 'deferred', content: [] }));
    const error = await client.callTool('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toBe(
      'tools/call failed: invalid response: unexpected resultType "deferred" for tools/call',
    );
  });

  it.each([
    ['server/discover', 'input_required', (c: TaskClient) => c.discover()],
    ['server/discover', 'task', (c: TaskClient) => c.discover()],
    ['tools/list', 'input_required', (c: TaskClient) => c.listTools()],
    ['tools/list', 'banana', (c: TaskClient) => c.listTools()],
  ])('1.7, 4.1: %s answering resultType %s → InvalidResponseError', async (method, resultType, call) => {
    const { client } = setup(() => ({
      resultType,
      supportedVersions: ['2026-07-28'],
      capabilities: {},
      tools: [],
    }));
    const error = await call(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).method).toBe(method);
    expect((error as Error).message).toBe(
      `${method} failed: invalid response: unexpected resultType "${resultType}" for ${method}`,
    );
  });

  it('1.7: resultType "complete" on server/discover and tools/list is accepted', async () => {
    const { client } = setup(() => ({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: {},
      tools: [],
    }));
    await expect(client.discover()).resolves.toMatchObject({ supportedVersions: ['2026-07-28'] });
    await expect(client.listTools()).resolves.toEqual([]);
  });

  it('"Seed vs spec" 2: a nested {task:{...}} creation result is unwrapped and reported as a serverViolation', async () => {
    const { resultType, ...task } = created();
    const { client, violations } = setup((m) =>
      m === 'tools/call' ? { resultType, task } : completed(toolResult('nested ok')),
    );
    const done = outcome(client.callTool('job'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(done.value).toEqual(toolResult('nested ok'));
    expect(violations).toEqual([
      'tools/call: CreateTaskResult nested under "task" (the specification makes it flat)',
    ]);
  });

  it('5.4: a CreateTaskResult without taskId → InvalidResponseError', async () => {
    const { client } = setup(() => ({ resultType: 'task', status: 'working', ttlMs: 1_000 }));
    const error = await client.callTool('job').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).method).toBe('tools/call');
  });

  it('5.3: a task result on resources/read is accepted by default', async () => {
    const contents = { contents: [{ uri: 'file:///a', text: 'A' }] };
    const { transport, client } = setup((m) => (m === 'resources/read' ? created() : completed(contents)));
    const done = outcome(client.readResource('file:///a'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(done.value).toEqual(contents);
    expect(transport.of('tasks/get')).toHaveLength(1);
  });

  it('5.3: a task result on prompts/get is accepted by default', async () => {
    const prompt = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] };
    const { client } = setup((m) => (m === 'prompts/get' ? created() : completed(prompt)));
    const done = outcome(client.getPrompt('p', { a: '1' }));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(done.value).toEqual(prompt);
  });

  it('5.17: startTool returns the inline result or a handle; the "task" event fires once', async () => {
    const { client } = setup((m, p) =>
      m === 'tools/call' ? (p.name === 'fast' ? toolResult('now') : created()) : detailed(),
    );
    const tasks: TaskHandle<unknown>[] = [];
    client.on('task', (h) => tasks.push(h));
    await expect(client.startTool('fast')).resolves.toEqual({
      resultType: 'complete',
      result: toolResult('now'),
    });
    const slow = await client.startTool('slow');
    expect(slow.resultType).toBe('task');
    expect(tasks).toHaveLength(1);
    await client.close();
  });

  it('rejects invalid options with a TypeError naming the option and value', () => {
    const transport = new ScriptedTransport(() => ({}));
    expect(() => new TaskClient({ transport, polling: { minIntervalMs: -1 } })).toThrow(
      'TaskClient: option "polling.minIntervalMs" must not be negative; got -1',
    );
    expect(() => new TaskClient({ transport, limits: { maxConcurrentPolls: 0 } })).toThrow(
      'TaskClient: option "limits.maxConcurrentPolls" must be a whole number, 1 or more; got 0',
    );
    expect(
      () => new TaskClient({ transport, polling: { minIntervalMs: 5_000, maxIntervalMs: 1_000 } }),
    ).toThrow(
      new TypeError(
        'TaskClient: option "polling.minIntervalMs" (5000) exceeds "polling.maxIntervalMs" (1000)',
      ),
    );
  });
});

describe('TaskClient abort and time budgets (STYLE 9, 10; 5.14, 6.1)', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  const server: Handler = (m) => (m === 'tools/call' ? created() : m === 'tasks/cancel' ? {} : detailed());

  it('STYLE 9: aborting callTool after the task exists sends tasks/cancel once and rejects with signal.reason untouched', async () => {
    const { transport, client } = setup(server);
    const controller = new AbortController();
    const reason = { custom: 'reason object' };
    const done = outcome(client.callTool('job', {}, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(1_500);
    controller.abort(reason);
    await flush();
    expect(done.error).toBe(reason);
    expect(transport.of('tasks/cancel').map((s) => s.message.params?.taskId)).toEqual(['t1']);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(transport.of('tasks/get')).toHaveLength(1);
    expect(transport.of('tasks/cancel')).toHaveLength(1);
  });

  it('STYLE 9 (behaviour 3): aborted before the response arrives → the response is still read, its task cancelled, rejects with signal.reason', async () => {
    const gate = deferred<Record<string, unknown>>();
    const { transport, client } = setup(
      (m) => (m === 'tools/call' ? gate.promise : m === 'tasks/cancel' ? {} : detailed()),
      {},
      AbortableTransport,
    );
    const controller = new AbortController();
    const reason = new Error('user gave up');
    const done = outcome(client.callTool('job', {}, { signal: controller.signal }));
    await flush();
    controller.abort(reason);
    await flush();
    expect(done.settled).toBe(false);
    gate.resolve(created());
    await vi.advanceTimersByTimeAsync(10_000);
    expect(done.error).toBe(reason);
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    expect(transport.of('tasks/get')).toHaveLength(0);
  });

  it('STYLE 9: an abort that races a task creation still cancels the task and never leaves it polling', async () => {
    // The transport ignores the abort and delivers the CreateTaskResult anyway (the response was already in flight).
    const gate = deferred<Record<string, unknown>>();
    const { transport, client } = setup((m) =>
      m === 'tools/call' ? gate.promise : m === 'tasks/cancel' ? {} : detailed(),
    );
    const controller = new AbortController();
    const reason = new Error('raced');
    const done = outcome(client.callTool('job', {}, { signal: controller.signal }));
    await flush();
    controller.abort(reason);
    gate.resolve(created());
    await flush();
    expect(done.error).toBe(reason);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    expect(transport.of('tasks/get')).toHaveLength(0);
  });

  it("STYLE 9: onAbort: 'detach' → no tasks/cancel; the task keeps polling", async () => {
    const { transport, client } = setup(server);
    const controller = new AbortController();
    let handle: TaskHandle<CallToolResult> | undefined;
    const done = outcome(
      client.callTool(
        'job',
        {},
        { signal: controller.signal, onAbort: 'detach', onTask: (h) => void (handle = h) },
      ),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    const reason = new Error('detach');
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(done.error).toBeInstanceOf(TaskDetachedError); // names the task left running; the reason is its cause
    expect(done.error).toMatchObject({ code: 'TASK_DETACHED', taskId: handle?.taskId, cause: reason });
    expect(transport.of('tasks/cancel')).toHaveLength(0);
    expect(transport.of('tasks/get')).toHaveLength(3);
    expect(handle?.done).toBe(false);
    await client.close();
  });

  it('6.1: maxTotalTimeoutMs → RequestTimeoutError and tasks/cancel once', async () => {
    const { transport, client } = setup(server);
    const done = outcome(client.callTool('job', {}, { maxTotalTimeoutMs: 2_500 }));
    await vi.advanceTimersByTimeAsync(2_499);
    expect(done.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done.error).toBeInstanceOf(RequestTimeoutError);
    expect((done.error as RequestTimeoutError).timeoutMs).toBe(2_500);
    expect((done.error as Error).message).toBe('tools/call timed out after 2500 ms');
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(transport.of('tasks/get')).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("maxTotalTimeoutMs with onAbort 'detach' → RequestTimeoutError carrying taskId, nothing cancelled", async () => {
    const { transport, client } = setup(server);
    const done = outcome(client.callTool('job', {}, { maxTotalTimeoutMs: 2_500, onAbort: 'detach' }));
    await vi.advanceTimersByTimeAsync(2_500);
    expect(done.error).toBeInstanceOf(RequestTimeoutError); // an error of ours, one per call: it names the task
    expect((done.error as RequestTimeoutError).taskId).toBe('t1');
    expect(transport.of('tasks/cancel')).toHaveLength(0);
    await client.close();
  });

  it('the handle of a cancelled unified call rejects with CancelNotConfirmedError (behaviour 1: only the server says cancelled)', async () => {
    const { client } = setup(server);
    const controller = new AbortController();
    let handle: TaskHandle<CallToolResult> | undefined;
    const done = outcome(
      client.callTool('job', {}, { signal: controller.signal, onTask: (h) => void (handle = h) }),
    );
    await flush();
    controller.abort(new Error('stop'));
    await flush();
    expect((done.error as Error).message).toBe('stop');
    await expect(handle!.result()).rejects.toBeInstanceOf(CancelNotConfirmedError);
  });

  it('STYLE 22: no abort listener is left on the caller signal after the call settles (inline and task)', async () => {
    const { client } = setup((m, p) =>
      m === 'tools/call' ? (p.name === 'inline' ? toolResult('i') : created()) : completed(),
    );
    const controller = new AbortController();
    await client.callTool('inline', {}, { signal: controller.signal, maxTotalTimeoutMs: 60_000 });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const call = client.callTool('task', {}, { signal: controller.signal, maxTotalTimeoutMs: 60_000 });
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(call).resolves.toEqual(toolResult('done'));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('close() stops all polling', async () => {
    const { transport, client } = setup(server);
    client.callTool('job').catch(() => undefined);
    await vi.advanceTimersByTimeAsync(1_000);
    await client.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(transport.of('tasks/get')).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('autoPoll: false → nothing polls until client.tick(), which returns the next due time', async () => {
    const { transport, client } = setup(
      (m) => (m === 'tools/call' ? created({ pollIntervalMs: 2_000 }) : completed()),
      { polling: { mode: 'manual' } },
    );
    const done = outcome(client.callTool('job'));
    await flush();
    expect(await client.tick()).toBe(2_000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(transport.of('tasks/get')).toHaveLength(0);
    expect(await client.tick()).toBeUndefined();
    expect(transport.of('tasks/get')).toHaveLength(1);
    await flush();
    expect(done.value).toEqual(toolResult('done'));
  });
});
