/**
 * A Vercel AI SDK host with task-aware MCP tools, runnable with no API key: `npx tsx examples/ai-sdk.ts`.
 *
 * It starts the reference task server on loopback, turns its tools into an AI SDK `ToolSet` with
 * `createTaskTools`, and lets `generateText` drive them with the AI SDK's own mock model (`ai/test`), scripted to:
 * 1. deploy a release (a task whose server asks for confirmation: `onInput` plays the person and accepts);
 * 2. re-index a big corpus (a task that outlives `maxWaitMs`: the model gets a "pending" result with the taskId);
 * 3. in a later turn, fetch that outcome with `task_result`.
 */
import { generateText, stepCountIs, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createTaskTools } from 'mcp-tasks-client/ai-sdk';
import { StreamableHttpTransport, TaskClient } from 'mcp-tasks-client';
import { createTaskServer } from 'mcp-tasks-client/testing';

type Call = { toolName: string; input: Record<string, unknown> };
const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** A stand-in for a real model: each turn plays the next scripted step (tool calls, or a final text). */
function scriptedModel(
  steps: Array<Call[] | string | ((messages: unknown[]) => Call[])>,
): MockLanguageModelV3 {
  let turn = 0;
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const raw = steps[turn++] ?? 'Done.';
      const step = typeof raw === 'function' ? raw(prompt) : raw;
      if (typeof step === 'string')
        return {
          content: [{ type: 'text', text: step }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      return {
        content: step.map((c, i) => ({
          type: 'tool-call' as const,
          toolCallId: `call-${turn}-${i}`,
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

function show(messages: ModelMessage[]): void {
  for (const message of messages) {
    for (const part of Array.isArray(message.content)
      ? message.content
      : [{ type: 'text' as const, text: message.content }]) {
      if (part.type === 'tool-call') console.log(`  model → ${part.toolName}(${JSON.stringify(part.input)})`);
      else if (part.type === 'tool-result') console.log(`  tool  ← ${JSON.stringify(part.output)}`);
      else if (part.type === 'text' && part.text) console.log(`  ${message.role}: ${part.text}`);
    }
  }
}

const server = await createTaskServer({ timeScale: 0.5 });
const client = new TaskClient({ transport: new StreamableHttpTransport(server.url) });
try {
  const tools = await createTaskTools(client, {
    maxWaitMs: 1_000,
    onInput: async (event, context) => {
      console.log(
        `  [UI] ${context.toolName} asks: ${JSON.stringify(event.request.params)} → the person accepts`,
      );
      return { action: 'accept', content: { confirm: true, note: 'approved in the example' } };
    },
    onStatus: (update) =>
      update.statusMessage &&
      console.log(`  [status] ${update.toolName}: ${update.status} ${update.statusMessage}`),
  });
  console.log(`tools: ${Object.keys(tools).join(', ')}\n\nturn 1`);
  const first = await generateText({
    model: scriptedModel([
      [{ toolName: 'deploy_release', input: { version: '1.2.3' } }],
      [{ toolName: 'reindex_corpus', input: { documents: 1500 } }],
      'Deployed 1.2.3; the re-index is still running, I will check back.',
    ]),
    tools,
    stopWhen: stepCountIs(5),
    prompt: 'Deploy 1.2.3, then re-index the corpus.',
  });
  show(first.response.messages);

  const pending = first.steps[1]?.toolResults[0]?.output as { taskId: string; checkAgainAfterMs: number };
  await new Promise((resolve) => setTimeout(resolve, 2_000)); // the user comes back later (task_result waits up to maxWaitMs more)
  console.log('\nturn 2');
  const second = await generateText({
    model: scriptedModel([
      [{ toolName: 'task_result', input: { taskId: pending.taskId } }],
      'The re-index finished.',
    ]),
    tools,
    stopWhen: stepCountIs(5),
    messages: [...first.response.messages, { role: 'user', content: 'Is the re-index done?' }],
  });
  show(second.response.messages);
} finally {
  await client.close();
  await server.close();
}
