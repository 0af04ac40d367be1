/**
 * A LangChain.js host with task-aware MCP tools, runnable with no API key: `npx tsx examples/langchain.ts`.
 *
 * It starts the reference task server on loopback, turns its tools into LangChain `StructuredTool`s with
 * `createTaskTools`, and runs a real `createAgent` loop with LangChain's fake chat model (`fakeModel()`), scripted
 * to: deploy a release (its question answered by `onInput`), start a re-index that outlives `maxWaitMs` (a
 * "pending" ToolMessage), and, in a later turn, fetch the outcome with `task_result`. Task status arrives as the
 * custom event `mcp_task_status` in `streamEvents`.
 */
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent } from 'langchain';
import { createTaskTools, TASK_STATUS_EVENT, type TaskToolUpdate } from 'mcp-tasks-client/langchain';
import { StreamableHttpTransport, TaskClient } from 'mcp-tasks-client';
import { createTaskServer } from 'mcp-tasks-client/testing';

function show(messages: BaseMessage[]): void {
  for (const message of messages) {
    if (ToolMessage.isInstance(message))
      console.log(`  tool  ← [${message.status}] ${String(message.content)}`);
    else if (AIMessage.isInstance(message) && message.tool_calls?.length)
      for (const c of message.tool_calls) console.log(`  model → ${c.name}(${JSON.stringify(c.args)})`);
    else console.log(`  ${message.getType()}: ${String(message.content)}`);
  }
}

const server = await createTaskServer({ timeScale: 0.5 });
const client = new TaskClient({ transport: new StreamableHttpTransport(server.url) });
try {
  const tools = await createTaskTools(client, {
    maxWaitMs: 1_000,
    exclude: ['flaky_job', 'lint_file'],
    onInput: async (event, context) => {
      console.log(
        `  [UI] ${context.toolName} asks: ${(event.request.params as { message?: string }).message} → the person accepts`,
      );
      return { action: 'accept', content: { confirm: true } };
    },
  });
  console.log(`tools: ${tools.map((t) => t.name).join(', ')}\n\nturn 1`);
  const model = fakeModel()
    .respondWithTools([{ name: 'deploy_release', args: { version: '2.0.0' }, id: 'deploy' }])
    .respondWithTools([{ name: 'reindex_corpus', args: { documents: 1500 }, id: 'reindex' }])
    .respond(new AIMessage('Deployed 2.0.0; the re-index is still running.'))
    .respond((messages) => {
      const pending = JSON.parse(
        String(messages.filter((m) => ToolMessage.isInstance(m)).at(-1)?.content),
      ) as { taskId: string };
      return new AIMessage({
        content: '',
        tool_calls: [{ name: 'task_result', args: { taskId: pending.taskId }, id: 'result' }],
      });
    })
    .respond(new AIMessage('The re-index finished.'));
  const agent = createAgent({ model, tools });

  let state: { messages: BaseMessage[] } = { messages: [] };
  for await (const event of agent.streamEvents(
    { messages: [{ role: 'user', content: 'Deploy 2.0.0, then re-index.' }] },
    { version: 'v2' },
  )) {
    if (event.event === 'on_custom_event' && event.name === TASK_STATUS_EVENT) {
      const update = event.data as TaskToolUpdate;
      if (update.statusMessage)
        console.log(`  [status] ${update.toolName}: ${update.status} ${update.statusMessage}`);
    }
    if (event.event === 'on_chain_end' && event.name === 'LangGraph')
      state = event.data.output as typeof state;
  }
  show(state.messages);

  await new Promise((resolve) => setTimeout(resolve, 2_000)); // the user comes back later
  console.log('\nturn 2');
  const second = await agent.invoke({
    messages: [...state.messages, { role: 'user', content: 'Is the re-index done?' }],
  });
  show(second.messages.slice(state.messages.length));
} finally {
  await client.close();
  await server.close();
}
