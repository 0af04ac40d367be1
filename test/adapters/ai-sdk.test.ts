/**
 * `mcp-tasks-client/ai-sdk` with the real `ai` package: `generateText` drives the tools with the AI SDK's own mock
 * model (`MockLanguageModelV3` from `ai/test`), against the reference server over loopback HTTP.
 */
import { generateText, stepCountIs, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTaskTools, type TaskToolUpdate } from '../../src/adapters/ai-sdk/index.js';
import { createGate, Fixture, MemoryTaskStore } from './helpers.js';

type Call = { toolName: string; input: Record<string, unknown> };
type Step = Call[] | ((prompt: unknown[]) => Call[]) | string;

/** A mock model that plays `steps` in order: tool calls, or a final text. */
function scriptedModel(steps: Step[]): MockLanguageModelV3 {
  let index = 0;
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      const step = steps[index++] ?? 'done';
      if (typeof step === 'string')
        return {
          content: [{ type: 'text', text: step }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      const calls = typeof step === 'function' ? step(options.prompt as unknown[]) : step;
      return {
        content: calls.map((c, i) => ({
          type: 'tool-call' as const,
          toolCallId: `call-${index}-${i}`,
          toolName: c.toolName,
          input: JSON.stringify(c.input),
        })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
}

/** The tool-result parts the model saw, in order. */
function toolOutputs(messages: ModelMessage[]): Array<{ type: string; value: unknown }> {
  const outputs: Array<{ type: string; value: unknown }> = [];
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content)
      if (part.type === 'tool-result') outputs.push(part.output as { type: string; value: unknown });
  }
  return outputs;
}

const fx = new Fixture();
beforeAll(() => fx.start());
afterEach(() => fx.reset());
afterAll(() => fx.stop());

describe('ai-sdk adapter: generateText with MockLanguageModelV3', () => {
  it('runs an inline tool and returns content and structuredContent', async () => {
    const tools = await createTaskTools(fx.client(), { include: ['echo'] });
    expect(Object.keys(tools)).toEqual(['echo']);
    const result = await generateText({
      model: scriptedModel([[{ toolName: 'echo', input: { text: 'hi' } }], 'ok']),
      tools,
      stopWhen: stepCountIs(3),
      prompt: 'say hi',
    });
    expect(toolOutputs(result.response.messages)).toEqual([
      { type: 'json', value: { content: [{ type: 'text', text: 'hi' }], structuredContent: { text: 'hi' } } },
    ]);
    expect(result.text).toBe('ok');
  });

  it('waits for a task tool through the unified promise and reports its status', async () => {
    const client = fx.client();
    const updates: TaskToolUpdate[] = [];
    const tools = await createTaskTools(client, { onStatus: (u) => updates.push(u) });
    const task = fx.nextTask(client);
    const model = scriptedModel([[{ toolName: 'slow_report', input: { title: 'Q3' } }], 'done']);
    const run = generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'write it' });
    await task;
    fx.gate.open();
    const result = await run;
    expect(toolOutputs(result.response.messages)[0]).toEqual({
      type: 'json',
      value: {
        content: [{ type: 'text', text: 'report "Q3" is ready' }],
        structuredContent: { title: 'Q3', pages: 3 },
      },
    });
    expect(
      updates.some(
        (u) =>
          u.toolName === 'slow_report' && u.status === 'working' && u.taskId && u.toolCallId === 'call-1-0',
      ),
    ).toBe(true);
    // nothing of the call is left listening on the client or the handle
    const handle = await task;
    expect(client.listenerCount('inputRequired')).toBe(0);
    expect(handle.listenerCount('status') + handle.listenerCount('inputRequired')).toBe(0);
  });

  it('with preliminaryResults yields status as preliminary tool results; the model reads only the final one', async () => {
    const client = fx.client();
    const tools = await createTaskTools(client, { include: ['slow_report'], preliminaryResults: true });
    const task = fx.nextTask(client);
    const run = generateText({
      model: scriptedModel([[{ toolName: 'slow_report', input: { title: 'P' } }], 'ok']),
      tools,
      stopWhen: stepCountIs(3),
      prompt: 'p',
    });
    await task;
    fx.gate.open();
    expect(toolOutputs((await run).response.messages)).toEqual([
      {
        type: 'json',
        value: {
          content: [{ type: 'text', text: 'report "P" is ready' }],
          structuredContent: { title: 'P', pages: 3 },
        },
      },
    ]);

    fx.gate = createGate();
    const parts: unknown[] = [];
    const execute = tools.slow_report?.execute as (
      input: unknown,
      options: unknown,
    ) => AsyncIterable<unknown>;
    const next = fx.nextTask(client);
    const iterate = (async () => {
      for await (const part of execute({ title: 'Q' }, { toolCallId: 'direct', messages: [] }))
        parts.push(part);
    })();
    await next;
    fx.gate.open();
    await iterate;
    expect(parts.slice(0, -1).every((p) => (p as { status: string }).status === 'running')).toBe(true);
    expect(parts).toContainEqual({
      status: 'running',
      update: expect.objectContaining({
        toolName: 'slow_report',
        toolCallId: 'direct',
        status: 'working',
        statusMessage: 'drafting',
      }),
    });
    expect(parts.at(-1)).toEqual({
      content: [{ type: 'text', text: 'report "Q" is ready' }],
      structuredContent: { title: 'Q', pages: 3 },
    });
  });

  it('sends a task question to onInput and the answer to the server', async () => {
    const questions: string[] = [];
    const tools = await createTaskTools(fx.client(), {
      onInput: (event, context) => {
        questions.push(`${context.toolName}: ${(event.request.params as { message: string }).message}`);
        return { action: 'accept', content: { confirm: true, note: 'from the UI' } };
      },
    });
    const result = await generateText({
      model: scriptedModel([[{ toolName: 'deploy_release', input: { version: '1.2.3' } }], 'shipped']),
      tools,
      stopWhen: stepCountIs(3),
      prompt: 'deploy',
    });
    expect(questions).toEqual(['deploy_release: Deploy 1.2.3 to production?']);
    expect(toolOutputs(result.response.messages)[0]).toMatchObject({
      type: 'json',
      value: { content: [{ type: 'text', text: 'deployed 1.2.3 (from the UI)' }] },
    });
  });

  it('answers a multi round-trip question through onInput too', async () => {
    const tools = await createTaskTools(fx.client(), {
      onInput: () => ({ action: 'accept', content: { confirm: true } }),
    });
    const result = await generateText({
      model: scriptedModel([[{ toolName: 'confirm_action', input: { action: 'wipe cache' } }], 'ok']),
      tools,
      stopWhen: stepCountIs(3),
      prompt: 'wipe',
    });
    expect(toolOutputs(result.response.messages)[0]).toMatchObject({
      value: { structuredContent: { action: 'wipe cache', performed: true } },
    });
  });

  it('without onInput declines politely and tells the model a person was needed (task and MRTR)', async () => {
    const client = fx.client();
    const tools = await createTaskTools(client);
    const model = scriptedModel([
      [{ toolName: 'deploy_release', input: { version: '2.0.0' } }],
      [{ toolName: 'confirm_action', input: { action: 'purge' } }],
      'ok',
    ]);
    const result = await generateText({ model, tools, stopWhen: stepCountIs(4), prompt: 'deploy' });
    const [deploy, confirm] = toolOutputs(result.response.messages);
    expect(deploy?.type).toBe('error-text');
    expect(deploy?.value).toContain('Deployment of 2.0.0 was not confirmed (decline)');
    expect(deploy?.value).toContain(
      `The tool "deploy_release" needed a person's input ("Deploy 2.0.0 to production?") and no one was available to answer, so it was declined.`,
    );
    expect(confirm).toMatchObject({ type: 'json', value: { structuredContent: { performed: false } } });
    expect((confirm?.value as { note: string }).note).toContain(
      `The tool "confirm_action" needed a person's input ("Perform \\"purge\\"?")`,
    );
  });

  it('maps tool errors and failed tasks to tool-error texts the model reads', async () => {
    const tools = await createTaskTools(fx.client());
    const model = scriptedModel([
      [
        { toolName: 'lint_file', input: { path: 'a.ts' } },
        { toolName: 'flaky_job', input: {} },
      ],
      'ok',
    ]);
    const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'lint' });
    const [lint, flaky] = toolOutputs(result.response.messages);
    expect(lint).toEqual({ type: 'error-text', value: 'a.ts: 3 problems (2 errors, 1 warning)' });
    expect(flaky?.type).toBe('error-text');
    expect(flaky?.value).toMatch(
      /^The tool "flaky_job" failed on the server \(task .+\): flaky_job: upstream service unavailable \(JSON-RPC -32603\)\.$/,
    );
  });

  it('cancels the task when the AI SDK aborts the call', async () => {
    const client = fx.client();
    const tools = await createTaskTools(client);
    const task = fx.nextTask(client);
    const abort = new AbortController();
    const run = generateText({
      model: scriptedModel([[{ toolName: 'slow_report', input: { title: 'x' } }], 'never']),
      tools,
      abortSignal: abort.signal,
      stopWhen: stepCountIs(3),
      prompt: 'go',
    });
    const handle = await task;
    abort.abort(new Error('user pressed stop'));
    await expect(run).rejects.toThrow('user pressed stop');
    await expect(handle.result()).rejects.toMatchObject({ code: 'TASK_CANCELLED' });
    expect(fx.server.stats.taskCancels(handle.taskId)).toHaveLength(1);
  });

  it("detaches instead with onAbort: 'detach' (the task keeps running)", async () => {
    const client = fx.client();
    const tools = await createTaskTools(client, { onAbort: 'detach' });
    const task = fx.nextTask(client);
    const abort = new AbortController();
    const run = generateText({
      model: scriptedModel([[{ toolName: 'slow_report', input: { title: 'x' } }], 'never']),
      tools,
      abortSignal: abort.signal,
      stopWhen: stepCountIs(3),
      prompt: 'go',
    });
    const handle = await task;
    abort.abort(new Error('stop'));
    await expect(run).rejects.toThrow('stop');
    expect(fx.server.stats.taskCancels(handle.taskId)).toHaveLength(0);
    fx.gate.open();
    await expect(handle.result()).resolves.toMatchObject({ structuredContent: { title: 'x' } });
  });

  it('hands a long task off after maxWaitMs and returns its outcome from task_result in a later turn', async () => {
    const client = fx.client();
    const tools = await createTaskTools(client, { maxWaitMs: 50 });
    expect(Object.keys(tools)).toEqual(expect.arrayContaining(['task_status', 'task_result', 'task_cancel']));
    const adapted = fx.nextTask(client); // the tool set's own handle: the one task_status and task_result read
    const first = await generateText({
      model: scriptedModel([[{ toolName: 'slow_report', input: { title: 'Q4' } }], 'started']),
      tools,
      stopWhen: stepCountIs(3),
      prompt: 'write',
    });
    const pending = toolOutputs(first.response.messages)[0]?.value as {
      status: string;
      taskId: string;
      taskStatus: string;
      statusMessage: string;
      checkAgainAfterMs: number;
    };
    expect(pending).toMatchObject({ status: 'pending', taskStatus: 'working', statusMessage: 'drafting' });
    expect(pending.checkAgainAfterMs).toBeGreaterThan(0);
    const handle = await adapted;
    expect(handle.taskId).toBe(pending.taskId);
    fx.gate.open();
    await handle.result();
    const second = await generateText({
      model: scriptedModel([
        [
          { toolName: 'task_status', input: { taskId: pending.taskId } },
          { toolName: 'task_result', input: { taskId: pending.taskId } },
        ],
        'here it is',
      ]),
      tools,
      stopWhen: stepCountIs(3),
      messages: [...first.response.messages, { role: 'user', content: 'is it done?' }],
    });
    const [status, outcome] = toolOutputs(second.response.messages).slice(-2);
    expect(status).toMatchObject({
      value: { structuredContent: { taskId: pending.taskId, status: 'completed', done: true } },
    });
    expect(outcome).toEqual({
      type: 'json',
      value: {
        content: [{ type: 'text', text: 'report "Q4" is ready' }],
        structuredContent: { title: 'Q4', pages: 3 },
      },
    });
  });

  it('task_result works after a restart when the client has a store; task_cancel cancels', async () => {
    const store = new MemoryTaskStore();
    const before = await createTaskTools(fx.client(store), { maxWaitMs: 0 });
    const first = await generateText({
      model: scriptedModel([
        [
          { toolName: 'slow_report', input: { title: 'A' } },
          { toolName: 'slow_report', input: { title: 'B' } },
        ],
        'ok',
      ]),
      tools: before,
      stopWhen: stepCountIs(3),
      prompt: 'two',
    });
    const [a, b] = toolOutputs(first.response.messages).map((o) => (o.value as { taskId: string }).taskId);
    await fx.clients[0]?.close(); // the process "restarts"
    const after = await createTaskTools(fx.client(store), { maxWaitMs: 5_000 });
    const cancel = await generateText({
      model: scriptedModel([[{ toolName: 'task_cancel', input: { taskId: b } }], 'ok']),
      tools: after,
      stopWhen: stepCountIs(3),
      prompt: 'cancel B',
    });
    expect(toolOutputs(cancel.response.messages)[0]).toMatchObject({
      value: { structuredContent: { taskId: b, cancelRequested: true } },
    });
    fx.gate.open();
    const second = await generateText({
      model: scriptedModel([
        [
          { toolName: 'task_result', input: { taskId: a } },
          { toolName: 'task_result', input: { taskId: 'nope' } },
        ],
        'ok',
      ]),
      tools: after,
      stopWhen: stepCountIs(3),
      prompt: 'A?',
    });
    const [resultA, unknown] = toolOutputs(second.response.messages);
    expect(resultA).toMatchObject({ type: 'json', value: { structuredContent: { title: 'A' } } });
    expect(unknown).toEqual({
      type: 'error-text',
      value: `No task "nope" is known here: it was not started by these tools and the client's store has no record of it.`,
    });
    expect(fx.server.stats.taskCancels(b)).toHaveLength(1);
  });

  it('selects tools by include/exclude and prefixes every name', async () => {
    const tools = await createTaskTools(fx.client(), {
      exclude: ['flaky_job', 'lint_file'],
      prefix: 'ref__',
      maxWaitMs: 10,
    });
    expect(Object.keys(tools).sort()).toEqual([
      'ref__confirm_action',
      'ref__deploy_release',
      'ref__echo',
      'ref__reindex_corpus',
      'ref__slow_report',
      'ref__task_cancel',
      'ref__task_result',
      'ref__task_status',
    ]);
    const result = await generateText({
      model: scriptedModel([[{ toolName: 'ref__echo', input: { text: 'p' } }], 'ok']),
      tools,
      stopWhen: stepCountIs(3),
      prompt: 'x',
    });
    expect(toolOutputs(result.response.messages)[0]).toMatchObject({
      value: { structuredContent: { text: 'p' } },
    });
    await expect(createTaskTools(fx.client(), { maxWaitMs: 'soon' as unknown as number })).rejects.toThrow(
      'createTaskTools: invalid option "maxWaitMs"',
    );
  });
});
