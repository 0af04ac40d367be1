/**
 * An OpenAI Agents SDK host with a task-aware MCP server, runnable with no API key:
 * `npx tsx examples/openai-agents.ts`.
 *
 * It starts the reference task server on loopback, wraps a `TaskClient` in `TaskMcpServer` (the Agents SDK's
 * `MCPServer` interface), and runs `run(agent, …)` with a scripted `Model`: deploy a release (its question
 * answered by `onInput`), start a re-index that outlives `maxWaitMs` (a "pending" result), and, in a later run,
 * fetch the outcome with `task_result`.
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
import { TaskMcpServer } from 'mcp-tasks-client/openai-agents';
import { StreamableHttpTransport, TaskClient } from 'mcp-tasks-client';
import { createTaskServer } from 'mcp-tasks-client/testing';

type Call = { name: string; args: Record<string, unknown> };
type Step = Call[] | string | ((input: AgentInputItem[]) => Call[]);

/** A stand-in for a real model: each call plays the next scripted step. */
class ScriptedModel implements Model {
  #turn = 0;
  constructor(readonly steps: Step[]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const turn = this.#turn++;
    const raw = this.steps[turn] ?? 'Done.';
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
            callId: `call-${turn}-${i}`,
            name: c.name,
            arguments: JSON.stringify(c.args),
            status: 'completed' as const,
          }));
    return { usage: new Usage(), output, responseId: `turn-${turn}` };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('streaming is not scripted in this example');
  }
}

const textOf = (output: unknown): string =>
  typeof output === 'string'
    ? output
    : Array.isArray(output)
      ? output.map((p: { text?: string }) => p.text ?? '').join('\n')
      : JSON.stringify(output);

function show(items: AgentInputItem[]): void {
  for (const item of items) {
    if (item.type === 'function_call') console.log(`  model → ${item.name}(${item.arguments})`);
    else if (item.type === 'function_call_result') console.log(`  tool  ← ${textOf(item.output)}`);
    else if (item.type === 'message' && item.role === 'assistant')
      console.log(`  assistant: ${textOf(item.content)}`);
  }
}

setTracingDisabled(true);
const server = await createTaskServer({ timeScale: 0.5 });
const mcp = new TaskMcpServer(new TaskClient({ transport: new StreamableHttpTransport(server.url) }), {
  maxWaitMs: 1_000,
  include: ['deploy_release', 'reindex_corpus'],
  onInput: async (event, context) => {
    console.log(
      `  [UI] ${context.toolName} asks: ${(event.request.params as { message?: string }).message} → the person accepts`,
    );
    return { action: 'accept', content: { confirm: true } };
  },
  onStatus: (update) =>
    update.statusMessage &&
    console.log(`  [status] ${update.toolName}: ${update.status} ${update.statusMessage}`),
});
try {
  await mcp.connect();
  console.log(`tools: ${(await mcp.listTools()).map((t) => t.name).join(', ')}\n\nturn 1`);
  let taskId = '';
  const model = new ScriptedModel([
    [{ name: 'deploy_release', args: { version: '3.0.0' } }],
    [{ name: 'reindex_corpus', args: { documents: 1500 } }],
    'Deployed 3.0.0; the re-index is still running.',
    (input) => {
      const last = input.filter((i) => i.type === 'function_call_result').at(-1);
      taskId = (JSON.parse(textOf(last && 'output' in last ? last.output : '{}')) as { taskId: string })
        .taskId;
      return [{ name: 'task_result', args: { taskId } }];
    },
    'The re-index finished.',
  ]);
  const agent = new Agent({
    name: 'ops',
    instructions: 'Run operations with the tools.',
    model,
    mcpServers: [mcp],
  });
  const first = await run(agent, 'Deploy 3.0.0, then re-index.');
  show(first.history);

  await new Promise((resolve) => setTimeout(resolve, 2_000)); // the user comes back later
  console.log('\nturn 2');
  const second = await run(agent, [...first.history, { role: 'user', content: 'Is the re-index done?' }]);
  show(second.history.slice(first.history.length));
} finally {
  await mcp.close(); // closes the TaskClient too
  await server.close();
}
