/**
 * `mcp-tasks bridge` driven by the MCP clients inside agent frameworks (their real packages, over stdio), in front
 * of the reference server on loopback. Directly, each of them fails at `initialize` against it (docs/hosts.md).
 *
 * | host (pinned version) | question | long task |
 * | --- | --- | --- |
 * | `@ai-sdk/mcp` 1.0.102 (elicitation handler, no timeout) | answered by `elicitation/create` | waits to the end (within `--max-wait`) |
 * | `@langchain/mcp-adapters` 1.1.4 (no elicitation, 60 s timeout) | declined with the note | pending, then `task_result` |
 * | `@openai/agents-core` 0.14.3 `MCPServerStdio` (no elicitation, 60 s timeout) | declined with the note | pending, then `task_result` |
 * | MCP Inspector 0.17.5 CLI mode (`--cli`, non-interactive; declares Node >= 22.7.5, runs on Node 20) | declined | pending, then `task_result` (a new bridge: one process per inspector run) |
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createMCPClient, ElicitationRequestSchema } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { MCPServerStdio } from '@openai/agents-core';
import type { TaskServer } from 'mcp-tasks-client/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridgeArgs, referenceServer } from './bridge-helpers.js';
import { ensureCliBuilt, killLeftovers, ROOT, tempHome } from './helpers.js';

let server: TaskServer;

beforeAll(async () => {
  await ensureCliBuilt();
  server = await referenceServer({ timeScale: 0.5 });
}, 120_000);

afterAll(async () => {
  await server.close();
  await killLeftovers();
});

const NOTE =
  'The tool "deploy_release" needed a person\'s input ("Deploy 6.0.0 to production?") and no one was available to answer, so it was declined. Ask the user, then call the tool again if they agree.';

function env(home: string): Record<string, string> {
  return { ...(process.env as Record<string, string>), MCP_TASKS_HOME: home };
}

describe('@ai-sdk/mcp (elicitation, no timeout)', () => {
  it('answers the question by elicitation/create and waits for a task to its end', async () => {
    const client = await createMCPClient({
      transport: new Experimental_StdioMCPTransport({
        command: process.execPath,
        args: bridgeArgs(server.url),
        env: env(tempHome()),
      }),
      capabilities: { elicitation: {} },
    });
    const asked: string[] = [];
    client.onElicitationRequest(ElicitationRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { confirm: true } };
    });
    try {
      const tools = await client.tools();
      const run = (name: string, args: Record<string, unknown>) =>
        (tools[name] as unknown as { execute: (a: unknown, o: unknown) => Promise<unknown> }).execute(args, {
          toolCallId: 'c1',
          messages: [],
        });
      expect(await run('deploy_release', { version: '6.0.0' })).toMatchObject({
        content: [{ type: 'text', text: 'deployed 6.0.0' }],
      });
      expect(asked).toEqual(['Deploy 6.0.0 to production?']);
      expect(await run('reindex_corpus', { documents: 1000 })).toMatchObject({
        content: [{ type: 'text', text: 'Indexed 1000 documents' }],
      });
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('@langchain/mcp-adapters (no elicitation, 60 s timeout)', () => {
  it('declines the question with the note; a long task is pending, then task_result gives its outcome', async () => {
    const client = new MultiServerMCPClient({
      mcpServers: {
        bridge: {
          transport: 'stdio',
          command: process.execPath,
          args: bridgeArgs(server.url, ['--max-wait', '2s']),
          env: env(tempHome()),
        },
      },
      prefixToolNameWithServerName: false,
    });
    try {
      const tools = await client.getTools();
      const tool = (name: string) => {
        const t = tools.find((x) => x.name === name);
        if (!t) throw new Error(`${name} not listed`);
        return t;
      };
      // LangChain turns an isError result into a ToolException carrying its text (the model reads it)
      await expect(tool('deploy_release').invoke({ version: '6.0.0' })).rejects.toThrow(NOTE);
      const pending = JSON.stringify(await tool('reindex_corpus').invoke({ documents: 6000 }));
      expect(pending).toContain('The task is still running on the server.');
      const taskId = /\\"taskId\\": ?\\"([^"\\]+)/.exec(pending)?.[1];
      expect(taskId).toBeDefined();
      let outcome = '';
      for (let i = 0; i < 40 && !outcome.includes('Indexed'); i++)
        outcome = JSON.stringify(await tool('task_result').invoke({ taskId }));
      expect(outcome).toContain('Indexed 6000 documents');
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('OpenAI Agents MCPServerStdio (no elicitation, 60 s timeout)', () => {
  it('declines the question with the note; a long task is pending, then task_result gives its outcome', async () => {
    const bridge = new MCPServerStdio({
      name: 'bridge',
      command: process.execPath,
      args: bridgeArgs(server.url, ['--max-wait', '2s']),
      env: env(tempHome()),
    });
    await bridge.connect();
    try {
      const declined = JSON.stringify(await bridge.callTool('deploy_release', { version: '6.0.0' }));
      expect(declined).toContain(JSON.stringify(NOTE).slice(1, -1));
      const pending = (await bridge.callTool('reindex_corpus', { documents: 6000 })) as Array<{
        text?: string;
      }>;
      const text = pending.map((b) => b.text ?? '').join('');
      expect(text).toContain('The task is still running on the server.');
      const taskId = /\{"taskId": "([^"]+)"\}/.exec(text)?.[1];
      expect(taskId).toBeDefined();
      let outcome = '';
      for (let i = 0; i < 40 && !outcome.includes('Indexed'); i++)
        outcome = JSON.stringify(await bridge.callTool('task_result', { taskId }));
      expect(outcome).toContain('Indexed 6000 documents');
    } finally {
      await bridge.close();
    }
  }, 60_000);
});

describe('MCP Inspector CLI mode (non-interactive)', () => {
  const inspector = join(ROOT, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');
  /** One `inspector --cli` run: it starts the bridge over stdio (HOME is how its environment reaches the bridge). */
  async function run(home: string, ...args: string[]): Promise<Record<string, unknown>> {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        inspector,
        '--cli',
        ...bridgeArgs(server.url, ['--max-wait=1s']).map(String),
        '--method',
        'tools/call',
        ...args,
      ],
      { env: { ...process.env, HOME: home, MCP_TASKS_HOME: '' }, timeout: 30_000 },
    );
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  it('declines the question; a long task is pending, then task_result (from a new bridge) gives its outcome', async () => {
    const home = tempHome();
    const declined = await run(home, '--tool-name', 'deploy_release', '--tool-arg', 'version=6.0.0');
    expect(declined.isError).toBe(true);
    expect(JSON.stringify(declined.content)).toContain(JSON.stringify(NOTE).slice(1, -1));
    const pending = await run(home, '--tool-name', 'reindex_corpus', '--tool-arg', 'documents=6000');
    const taskId = (pending.structuredContent as { taskId: string; status: string }).taskId;
    expect((pending.structuredContent as { status: string }).status).toBe('pending');
    let outcome = pending;
    for (
      let i = 0;
      i < 20 && (outcome.structuredContent as { status?: string } | undefined)?.status === 'pending';
      i++
    )
      outcome = await run(home, '--tool-name', 'task_result', '--tool-arg', `taskId=${taskId}`);
    expect(outcome.content).toEqual([{ type: 'text', text: 'Indexed 6000 documents' }]);
  }, 120_000);
});
