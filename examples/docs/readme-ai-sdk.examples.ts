/**
 * The README's AI SDK snippet. It needs a language model, so it is type-checked and not run; the runnable host
 * with the AI SDK's mock model is examples/ai-sdk.ts (run by test/examples/adapters.test.ts).
 */
import type { LanguageModel } from 'ai';
import type { InputRequiredEvent, InputResponse, TaskClient } from 'mcp-tasks-client';

declare const client: TaskClient;
declare const model: LanguageModel;
declare function askInMyUi(event: InputRequiredEvent): Promise<InputResponse>;

// #region ai-sdk
import { generateText, stepCountIs } from 'ai';
import { createTaskTools } from 'mcp-tasks-client/ai-sdk';

const tools = await createTaskTools(client, { maxWaitMs: 30_000, onInput: (event) => askInMyUi(event) });
const { text } = await generateText({ model, tools, stopWhen: stepCountIs(5), prompt: 'Deploy 1.2.3' });
// #endregion ai-sdk
console.log(text);
