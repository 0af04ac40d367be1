/**
 * The README's OpenAI Agents snippet. It needs a model, so it is type-checked and not run; the runnable host with a
 * scripted model is examples/openai-agents.ts (run by test/examples/adapters.test.ts).
 */
import type { TaskClient } from 'mcp-tasks-client';

declare const client: TaskClient;

// #region openai-agents
import { Agent, run } from '@openai/agents-core';
import { TaskMcpServer } from 'mcp-tasks-client/openai-agents';

const server = new TaskMcpServer(client, { maxWaitMs: 30_000, include: ['deploy_release'] });
await server.connect();
const agent = new Agent({ name: 'ops', instructions: 'Run operations.', mcpServers: [server] });
await run(agent, 'Deploy 1.2.3');
// #endregion openai-agents
