/**
 * `mcp-tasks-client/langchain` with the real `@langchain/core` and `langchain` packages: `createAgent` (a LangGraph
 * agent loop) drives the tools with LangChain's fake chat model (`fakeModel()` from `@langchain/core/testing`),
 * against the reference server over loopback HTTP.
 */
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent } from 'langchain';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createTaskTools,
  TASK_STATUS_EVENT,
  type TaskToolUpdate,
} from '../../src/adapters/langchain/index.js';
import { Fixture } from './helpers.js';

const fx = new Fixture();
beforeAll(() => fx.start());
afterEach(() => fx.reset());
afterAll(() => fx.stop());

const toolMessages = (messages: BaseMessage[]): ToolMessage[] =>
  messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

describe('langchain adapter: createAgent with fakeModel()', () => {
  it('runs an inline tool and a task tool; structuredContent is the artifact; status reaches streamEvents', async () => {
    const client = fx.client();
    const tools = await createTaskTools(client, { include: ['echo', 'reindex_corpus'] });
    expect(tools.map((t) => t.name)).toEqual(['echo', 'reindex_corpus']);
    const model = fakeModel()
      .respondWithTools([
        { name: 'echo', args: { text: 'hello' }, id: 'c1' },
        { name: 'reindex_corpus', args: { documents: 500 }, id: 'c2' },
      ])
      .respond(new AIMessage('done'));
    const agent = createAgent({ model, tools });
    const updates: TaskToolUpdate[] = [];
    const task = fx.nextTask(client);
    let state: { messages: BaseMessage[] } | undefined;
    for await (const event of agent.streamEvents(
      { messages: [{ role: 'user', content: 'go' }] },
      { version: 'v2' },
    )) {
      if (event.event === 'on_custom_event' && event.name === TASK_STATUS_EVENT)
        updates.push(event.data as TaskToolUpdate);
      if (event.event === 'on_chain_end' && event.name === 'LangGraph')
        state = event.data.output as { messages: BaseMessage[] };
    }
    const [echo, reindex] = toolMessages(state?.messages ?? []);
    expect(echo).toMatchObject({
      content: 'hello',
      status: 'success',
      tool_call_id: 'c1',
      artifact: { structuredContent: { text: 'hello' } },
    });
    expect(reindex).toMatchObject({
      content: 'Indexed 500 documents',
      status: 'success',
      artifact: { structuredContent: { documents: 500 } },
    });
    const handle = await task;
    expect(
      updates.some(
        (u) => u.taskId === handle.taskId && u.toolCallId === 'c2' && u.statusMessage?.startsWith('indexed '),
      ),
    ).toBe(true);
  });

  it('sends a question to onInput; without onInput the ToolMessage is an error telling the model a person was needed', async () => {
    const answered = await createTaskTools(fx.client(), {
      include: ['deploy_release'],
      onInput: () => ({ action: 'accept', content: { confirm: true } }),
    });
    const declined = await createTaskTools(fx.client(), { include: ['deploy_release'], prefix: 'nobody_' });
    const model = fakeModel()
      .respondWithTools([
        { name: 'deploy_release', args: { version: '3.1' }, id: 'a' },
        { name: 'nobody_deploy_release', args: { version: '3.2' }, id: 'b' },
      ])
      .respond(new AIMessage('ok'));
    const result = await createAgent({ model, tools: [...answered, ...declined] }).invoke({
      messages: [{ role: 'user', content: 'deploy' }],
    });
    const [a, b] = toolMessages(result.messages);
    expect(a).toMatchObject({ content: 'deployed 3.1', status: 'success' });
    expect(b?.status).toBe('error');
    expect(b?.content).toBe(
      `Deployment of 3.2 was not confirmed (decline); nothing deployed\nThe tool "deploy_release" needed a person's input ("Deploy 3.2 to production?") and no one was available to answer, so it was declined. Ask the user, then call the tool again if they agree.`,
    );
  });

  it('maps a failed task to an error ToolMessage', async () => {
    const tools = await createTaskTools(fx.client(), { include: ['flaky_job'] });
    const model = fakeModel()
      .respondWithTools([{ name: 'flaky_job', args: {}, id: 'f' }])
      .respond(new AIMessage('ok'));
    const result = await createAgent({ model, tools }).invoke({ messages: [{ role: 'user', content: 'x' }] });
    expect(toolMessages(result.messages)[0]).toMatchObject({
      status: 'error',
      artifact: { code: 'TASK_FAILED' },
    });
  });

  it("cancels the task when the run's signal aborts", async () => {
    const client = fx.client();
    const tools = await createTaskTools(client, { include: ['slow_report'] });
    const model = fakeModel()
      .respondWithTools([{ name: 'slow_report', args: { title: 't' }, id: 's' }])
      .respond(new AIMessage('never'));
    const abort = new AbortController();
    const task = fx.nextTask(client);
    const run = createAgent({ model, tools }).invoke(
      { messages: [{ role: 'user', content: 'x' }] },
      { signal: abort.signal },
    );
    const handle = await task;
    abort.abort(new Error('stopped by the user'));
    await expect(run).rejects.toThrow();
    await expect(handle.result()).rejects.toMatchObject({ code: 'TASK_CANCELLED' });
    expect(fx.server.stats.taskCancels(handle.taskId)).toHaveLength(1);
  });

  it('hands off after maxWaitMs, then task_result in a later turn returns the outcome', async () => {
    const client = fx.client();
    const tools = await createTaskTools(client, { maxWaitMs: 50, include: ['slow_report'] });
    expect(tools.map((t) => t.name)).toEqual(['slow_report', 'task_status', 'task_result', 'task_cancel']);
    const model = fakeModel()
      .respondWithTools([{ name: 'slow_report', args: { title: 'R' }, id: 'r1' }])
      .respond(new AIMessage('it is running'))
      .respond((messages) => {
        const pending = JSON.parse(String(toolMessages(messages)[0]?.content)) as { taskId: string };
        return new AIMessage({
          content: '',
          tool_calls: [{ name: 'task_result', args: { taskId: pending.taskId }, id: 'r2' }],
        });
      })
      .respond(new AIMessage('here it is'));
    const agent = createAgent({ model, tools });
    const adapted = fx.nextTask(client); // the tool set's own handle: the one task_result reads
    const first = await agent.invoke({ messages: [{ role: 'user', content: 'write R' }] });
    const pending = toolMessages(first.messages)[0];
    expect(JSON.parse(String(pending?.content))).toMatchObject({
      status: 'pending',
      taskStatus: 'working',
      statusMessage: 'drafting',
      toolName: 'slow_report',
    });
    const taskId = (pending?.artifact as { taskId: string }).taskId;
    const handle = await adapted;
    expect(handle.taskId).toBe(taskId);
    fx.gate.open();
    await handle.result();
    const second = await agent.invoke({
      messages: [...first.messages, { role: 'user', content: 'done yet?' }],
    });
    expect(toolMessages(second.messages).at(-1)).toMatchObject({
      content: 'report "R" is ready',
      status: 'success',
      tool_call_id: 'r2',
      artifact: { structuredContent: { title: 'R', pages: 3 } },
    });
  });
});
