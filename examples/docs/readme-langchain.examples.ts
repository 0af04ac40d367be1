/**
 * The README's LangChain snippet. It needs a chat model, so it is type-checked and not run; the runnable host with
 * LangChain's fake model is examples/langchain.ts (run by test/examples/adapters.test.ts).
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { TaskClient } from 'mcp-tasks-client';

declare const client: TaskClient;
declare const model: BaseChatModel;

// #region langchain
import { createAgent } from 'langchain';
import { createTaskTools } from 'mcp-tasks-client/langchain';

const tools = await createTaskTools(client, { maxWaitMs: 30_000, prefix: 'ops_' });
const agent = createAgent({ model, tools });
await agent.invoke({ messages: [{ role: 'user', content: 'Deploy 1.2.3' }] });
// #endregion langchain
