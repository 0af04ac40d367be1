/**
 * The Tasks extension is declared only on requests whose task result the client accepts (`taskMethods`) and on
 * `tasks/*`, so a server never creates a task the client would refuse.
 *
 * Spec: modelcontextprotocol/ext-tasks specification/draft/tasks.md § Capability Negotiation ("A server MUST NOT
 * return CreateTaskResult to a client that did not include the extension capability on its request" / "A client
 * that has negotiated this extension MUST be prepared to handle either CallToolResult or CreateTaskResult in response
 * to any supported request it issues") and § Supported Methods (today: `tools/call`).
 */
import { describe, expect, it } from 'vitest';
import { TaskClient, type TaskClientOptions } from '../../src/index.js';
import { DEFAULT_TASK_METHODS } from '../../src/protocol/constants.js';
import { buildCapabilities, declaresTasks } from '../../src/modern/meta.js';
import { ScriptedTransport } from '../helpers/scripted-transport.js';

const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const TASKS = 'io.modelcontextprotocol/tasks';

function setup(options: Partial<TaskClientOptions> = {}) {
  const transport = new ScriptedTransport((method) => {
    if (method === 'tools/call') return { content: [] };
    if (method === 'resources/read') return { contents: [{ uri: 'file:///a', text: 'a' }] };
    if (method === 'prompts/get') return { messages: [] };
    if (method === 'server/discover') return { supportedVersions: ['2026-07-28'], capabilities: {} };
    if (method === 'tools/list') return { tools: [] };
    return {};
  });
  return { transport, client: new TaskClient({ transport, ...options }) };
}

async function everyMethod(client: TaskClient): Promise<void> {
  await client.callTool('t');
  await client.readResource('file:///a');
  await client.getPrompt('p');
  await client.listTools();
  await client.discover();
  await client.request('resources/list');
}

function declared(transport: ScriptedTransport): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const { message } of transport.sent) {
    const caps = (message.params as { _meta: Record<string, { extensions?: Record<string, unknown> }> })
      ._meta[CAPS];
    out[message.method] = caps?.extensions?.[TASKS] !== undefined;
  }
  return out;
}

describe('tasks.md § Capability Negotiation: declare the extension only where a CreateTaskResult will be handled', () => {
  it('default taskMethods (tools/call, resources/read, prompts/get): declared there; not on tools/list, server/discover, other requests', async () => {
    expect(DEFAULT_TASK_METHODS).toEqual(['tools/call', 'resources/read', 'prompts/get']);
    const { transport, client } = setup();
    await everyMethod(client);
    expect(declared(transport)).toEqual({
      'tools/call': true,
      'resources/read': true,
      'prompts/get': true,
      'tools/list': false,
      'server/discover': false,
      'resources/list': false,
    });
  });

  it('tasks/* always declare it (they fail with -32021 without it); a host-declared tasks entry is removed elsewhere', () => {
    expect(declaresTasks('tasks/get', [])).toBe(true);
    expect(declaresTasks('tasks/cancel', ['tools/call'])).toBe(true);
    const declaredByHost = { extensions: { [TASKS]: { custom: 1 }, 'com.example/x': {} } };
    expect(
      buildCapabilities({
        declared: declaredByHost,
        handlers: undefined,
        answersByEvent: false,
        method: 'tools/list',
        taskMethods: ['tools/call'],
      }),
    ).toEqual({
      extensions: { 'com.example/x': {} },
    });
    expect(
      buildCapabilities({
        declared: declaredByHost,
        handlers: undefined,
        answersByEvent: false,
        method: 'tools/call',
        taskMethods: ['tools/call'],
      }),
    ).toEqual({
      extensions: { [TASKS]: { custom: 1 }, 'com.example/x': {} },
    });
  });
});
