/**
 * Any result a server sends reaches each framework as something it can carry: within MAX_CARRIED_RESULT_CHARS of
 * text and MAX_CARRIED_DEPTH of nesting, with a note for the model saying what was cut, and never an untyped error
 * such as `RangeError: Maximum call stack size exceeded` (LangChain died of a `structuredContent` nested 20,000
 * levels deep). Each framework runs its own agent loop (real `@langchain/core`/`langchain`, `ai`,
 * `@openai/agents-core`) against the reference server core over the in-memory transport, which hands the client
 * the very objects the tool returned (a wire would need a serializer that survives that depth).
 */
import { fakeModel } from '@langchain/core/testing';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { Agent, run, setTracingDisabled, Usage, type Model, type ModelResponse } from '@openai/agents-core';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { createTaskTools as aiSdkTools } from '../../src/adapters/ai-sdk/index.js';
import { createTaskTools as langChainTools } from '../../src/adapters/langchain/index.js';
import { TaskMcpServer } from '../../src/adapters/openai-agents/index.js';
import {
  carriedResult,
  MAX_CARRIED_DEPTH,
  MAX_CARRIED_RESULT_CHARS,
} from '../../src/adapters/shared/outcome.js';
import { TaskClient } from '../../src/index.js';
import { InMemoryTransport, TaskServerCore, type ToolDefinition } from '../../src/testing/index.js';

setTracingDisabled(true);

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

const HUGE_TEXT = 'x'.repeat(3 * MAX_CARRIED_RESULT_CHARS);

/** Tools whose results no framework should have to carry as they are. */
const hostile: ToolDefinition[] = [
  {
    name: 'deep_result',
    description: 'structuredContent nested 20,000 levels deep',
    inputSchema: { type: 'object' },
    run: async () => ({ content: [], structuredContent: nested(20_000) }),
  },
  {
    name: 'huge_text',
    description: '3 MB of text',
    inputSchema: { type: 'object' },
    run: async () => ({ content: [{ type: 'text', text: HUGE_TEXT }] }),
  },
  {
    name: 'huge_image',
    description: 'a 2 MB image',
    inputSchema: { type: 'object' },
    run: async () => ({
      content: [
        { type: 'text', text: 'the chart:' },
        { type: 'image', data: 'A'.repeat(2_000_000), mimeType: 'image/png' },
      ],
    }),
  },
];

const clients: TaskClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function client(): TaskClient {
  const core = new TaskServerCore({ catalog: { tools: hostile } });
  const c = new TaskClient({ transport: new InMemoryTransport(core) });
  clients.push(c);
  return c;
}

describe('carriedResult (the bound every adapter applies)', () => {
  it('keeps a result within both bounds as it is, with no note', () => {
    const result = {
      content: [{ type: 'text', text: 'ok' }],
      structuredContent: nested(MAX_CARRIED_DEPTH - 2),
    };
    expect(carriedResult(result)).toEqual({ result });
  });

  it('gives a structuredContent nested past the bound as JSON text, and says so', () => {
    const { result, note } = carriedResult({ content: [], structuredContent: nested(20_000) });
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toHaveLength(1);
    const text = (result.content[0] as unknown as { text: string }).text;
    expect(text.startsWith('{"a":{"a":')).toBe(true);
    expect(text.length).toBe(20_000 * 5 + '{"leaf":true}'.length + 20_000);
    expect(note).toBe(
      `Note: the result was too large or too deep to pass on whole: structuredContent (nested deeper than ${MAX_CARRIED_DEPTH} levels) is given as JSON text.`,
    );
  });

  it('cuts text past the bound and leaves out a block that does not fit, and says what was cut', () => {
    const { result, note } = carriedResult({
      content: [
        { type: 'text', text: HUGE_TEXT },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ],
    });
    expect((result.content[0] as unknown as { text: string }).text).toHaveLength(MAX_CARRIED_RESULT_CHARS);
    expect(result.content[1]).toEqual({
      type: 'text',
      text: '[image content of 53 characters of JSON left out]',
    });
    expect(note).toBe(
      `Note: the result was too large or too deep to pass on whole: a text block was cut to ${MAX_CARRIED_RESULT_CHARS} of its ${HUGE_TEXT.length} characters; a block of type "image" (53 characters of JSON) was left out.`,
    );
  });

  it('never ends a cut inside a surrogate pair', () => {
    const text = `${'a'.repeat(MAX_CARRIED_RESULT_CHARS - 1)}😀`;
    const { result } = carriedResult({ content: [{ type: 'text', text }] });
    expect((result.content[0] as unknown as { text: string }).text).toBe(
      'a'.repeat(MAX_CARRIED_RESULT_CHARS - 1),
    );
  });
});

describe('every adapter carries any result (real frameworks)', () => {
  it.each(['deep_result', 'huge_text', 'huge_image'])(
    'LangChain createAgent: %s becomes a ToolMessage with the note',
    async (name) => {
      const tools = await langChainTools(client(), { include: [name] });
      const model = fakeModel()
        .respondWithTools([{ name, args: {}, id: 'c1' }])
        .respond(new AIMessage('done'));
      const state = (await createAgent({ model, tools }).invoke({
        messages: [{ role: 'user', content: 'go' }],
      })) as { messages: BaseMessage[] };
      const message = state.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m));
      expect(message?.status).toBe('success');
      const content = String(message?.content);
      expect(content.length).toBeLessThanOrEqual(MAX_CARRIED_RESULT_CHARS + 1_000);
      expect(content).toContain('Note: the result was too large or too deep to pass on whole');
    },
  );

  it.each(['deep_result', 'huge_text', 'huge_image'])(
    'AI SDK generateText: %s reaches the model with the note',
    async (name) => {
      const tools = await aiSdkTools(client(), { include: [name] });
      let step = 0;
      const usage = {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      };
      const model = new MockLanguageModelV3({
        doGenerate: async () =>
          step++ === 0
            ? {
                content: [{ type: 'tool-call', toolCallId: 'c1', toolName: name, input: '{}' }],
                finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
                usage,
                warnings: [],
              }
            : {
                content: [{ type: 'text', text: 'done' }],
                finishReason: { unified: 'stop', raw: 'stop' },
                usage,
                warnings: [],
              },
      });
      const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3) });
      const toolResult = result.steps[0]?.toolResults[0];
      expect(toolResult?.type).toBe('tool-result');
      const output = (toolResult as { output: { note?: string } }).output;
      expect(output.note).toContain('Note: the result was too large or too deep to pass on whole');
      expect(JSON.stringify(output).length).toBeLessThanOrEqual(MAX_CARRIED_RESULT_CHARS + 1_000);
    },
  );

  it.each(['deep_result', 'huge_text', 'huge_image'])(
    'OpenAI Agents run(agent): %s becomes a function output with the note',
    async (name) => {
      const server = new TaskMcpServer(client(), { closeClient: false, include: [name] });
      await server.connect();
      let step = 0;
      const model: Model = {
        async getResponse(): Promise<ModelResponse> {
          const output =
            step++ === 0
              ? [
                  {
                    type: 'function_call' as const,
                    callId: 'c1',
                    name,
                    arguments: '{}',
                    status: 'completed' as const,
                  },
                ]
              : [
                  {
                    type: 'message' as const,
                    role: 'assistant' as const,
                    status: 'completed' as const,
                    content: [{ type: 'output_text' as const, text: 'done' }],
                  },
                ];
          return { usage: new Usage(), output };
        },
        async *getStreamedResponse() {
          throw new Error('not streamed');
        },
      };
      const agent = new Agent({ name: 'ops', instructions: 'Use the tools.', model, mcpServers: [server] });
      const result = await run(agent, 'go');
      const item = result.history.find((i) => i.type === 'function_call_result') as
        | { output: unknown }
        | undefined;
      const text = JSON.stringify(item?.output);
      expect(text).toContain('Note: the result was too large or too deep to pass on whole');
      expect(text.length).toBeLessThanOrEqual(MAX_CARRIED_RESULT_CHARS * 1.1);
      await server.close();
    },
  );
});
