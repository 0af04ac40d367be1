/**
 * `mcp-tasks-client/openai-agents` with the real `@openai/agents-core`: `run(agent, …)` drives a `TaskMcpServer`
 * given to the agent's `mcpServers`, with a scripted `Model` (no API key, no network but loopback), against the
 * reference server over loopback HTTP.
 */
import {
  Agent,
  run,
  setTracingDisabled,
  Usage,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from '@openai/agents-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TaskMcpServer, type TaskMcpServerOptions } from '../../src/adapters/openai-agents/index.js';
import { Fixture } from './helpers.js';

type Call = { name: string; args: Record<string, unknown> };
type Step = Call[] | string | ((input: AgentInputItem[]) => Call[] | string);

/** A model that plays `steps`: function calls, or a final message. */
class ScriptedModel implements Model {
  #index = 0;
  constructor(readonly steps: Step[]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const index = this.#index++;
    const raw = this.steps[index] ?? 'done';
    const step = typeof raw === 'function' ? raw(request.input as AgentInputItem[]) : raw;
    const output =
      typeof step === 'string'
        ? [
            {
              type: 'message' as const,
              role: 'assistant' as const,
              status: 'completed' as const,
              content: [{ type: 'output_text' as const, text: step }],
            },
          ]
        : step.map((c, i) => ({
            type: 'function_call' as const,
            callId: `call-${index}-${i}`,
            name: c.name,
            arguments: JSON.stringify(c.args),
            status: 'completed' as const,
          }));
    return { usage: new Usage(), output, responseId: `r${index}` };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not used in these tests');
  }
}

/** The outputs of function calls in a run's history, as the model will read them. */
function toolOutputs(history: AgentInputItem[]): string[] {
  return history
    .filter(
      (item): item is Extract<AgentInputItem, { type: 'function_call_result' }> =>
        item.type === 'function_call_result',
    )
    .map((item) => {
      const output = item.output as unknown;
      if (typeof output === 'string') return output;
      if (Array.isArray(output))
        return output.map((part: { text?: unknown }) => String(part.text ?? JSON.stringify(part))).join('\n');
      if (output && typeof output === 'object' && 'text' in output)
        return String((output as { text: unknown }).text);
      return JSON.stringify(output);
    });
}

const fx = new Fixture();
setTracingDisabled(true); // nothing leaves the machine; spans are not needed here
beforeAll(() => fx.start());
afterEach(() => fx.reset());
afterAll(() => fx.stop());

function agentWith(model: Model, options: TaskMcpServerOptions = {}) {
  const client = fx.client();
  const server = new TaskMcpServer(client, { closeClient: false, ...options });
  const agent = new Agent({ name: 'ops', instructions: 'Use the tools.', model, mcpServers: [server] });
  return { client, server, agent };
}

describe('openai-agents adapter: run(agent) with a scripted Model', () => {
  it('lists tools with include and prefix, runs an inline tool and a task tool', async () => {
    const { client, server, agent } = agentWith(
      new ScriptedModel([
        [
          { name: 'ref_echo', args: { text: 'hey' } },
          { name: 'ref_slow_report', args: { title: 'W' } },
        ],
        'done',
      ]),
      { include: ['echo', 'slow_report'], prefix: 'ref_' },
    );
    await server.connect();
    expect((await server.listTools()).map((t) => t.name)).toEqual(['ref_echo', 'ref_slow_report']);
    const task = fx.nextTask(client);
    const running = run(agent, 'go');
    await task;
    fx.gate.open();
    const result = await running;
    expect(toolOutputs(result.history)).toEqual(['hey', 'report "W" is ready']);
    expect(result.finalOutput).toBe('done');
  });

  it('sends a question to onInput, and declines without it (the model reads why)', async () => {
    const { server, agent } = agentWith(
      new ScriptedModel([[{ name: 'deploy_release', args: { version: '9' } }], 'ok']),
      {
        onInput: () => ({ action: 'accept', content: { confirm: true } }),
      },
    );
    await server.connect();
    expect(toolOutputs((await run(agent, 'deploy')).history)).toEqual(['deployed 9']);
    const declined = agentWith(
      new ScriptedModel([[{ name: 'deploy_release', args: { version: '10' } }], 'ok']),
    );
    await declined.server.connect();
    expect(toolOutputs((await run(declined.agent, 'deploy')).history)).toEqual([
      `Deployment of 10 was not confirmed (decline); nothing deployed\nThe tool "deploy_release" needed a person's input ("Deploy 10 to production?") and no one was available to answer, so it was declined. Ask the user, then call the tool again if they agree.`,
    ]);
  });

  it('maps a cancelled task to a clear text', async () => {
    const { client, server, agent } = agentWith(
      new ScriptedModel([[{ name: 'slow_report', args: { title: 'c' } }], 'ok']),
    );
    await server.connect();
    const task = fx.nextTask(client);
    const running = run(agent, 'go');
    const handle = await task;
    await handle.cancel();
    const outputs = toolOutputs((await running).history);
    expect(outputs[0]).toMatch(
      /^The tool "slow_report" was cancelled before it finished \(task .+\)\. Its work may be partly done/,
    );
  });

  it("cancels the task when the run's signal aborts", async () => {
    const { client, server, agent } = agentWith(
      new ScriptedModel([[{ name: 'slow_report', args: { title: 'a' } }], 'never']),
    );
    await server.connect();
    const abort = new AbortController();
    const task = fx.nextTask(client);
    const running = run(agent, 'go', { signal: abort.signal });
    const handle = await task;
    abort.abort(new Error('stopped'));
    await running.catch(() => undefined);
    await expect(handle.result()).rejects.toMatchObject({ code: 'TASK_CANCELLED' });
    expect(fx.server.stats.taskCancels(handle.taskId)).toHaveLength(1);
  });

  it('hands off after maxWaitMs, then task_result in a later run returns the outcome', async () => {
    let taskId = '';
    const model = new ScriptedModel([
      [{ name: 'slow_report', args: { title: 'Z' } }],
      'started it',
      (input) => {
        taskId = (JSON.parse(toolOutputs(input)[0] ?? '{}') as { taskId: string }).taskId;
        return [{ name: 'task_result', args: { taskId } }];
      },
      'finished',
    ]);
    const { client, server, agent } = agentWith(model, { maxWaitMs: 50, include: ['slow_report'] });
    await server.connect();
    expect((await server.listTools()).map((t) => t.name)).toEqual([
      'slow_report',
      'task_status',
      'task_result',
      'task_cancel',
    ]);
    const adapted = fx.nextTask(client); // the adapter's own handle: the one task_result reads
    const first = await run(agent, 'write Z');
    expect(JSON.parse(toolOutputs(first.history)[0] ?? '{}')).toMatchObject({
      status: 'pending',
      taskStatus: 'working',
      statusMessage: 'drafting',
    });
    const pendingId = (JSON.parse(toolOutputs(first.history)[0] ?? '{}') as { taskId: string }).taskId;
    const handle = await adapted;
    expect(handle.taskId).toBe(pendingId);
    fx.gate.open();
    await handle.result();
    const second = await run(agent, [...first.history, { role: 'user', content: 'done?' }]);
    expect(taskId).toBe(pendingId);
    expect(toolOutputs(second.history).at(-1)).toBe('report "Z" is ready');
    expect(second.finalOutput).toBe('finished');
  });
});
