/**
 * `mcp-tasks bridge` in front of the reference server, driven by the official SDK 1.x `Client` over stdio (a real
 * host, no mocks). Host paths (also in docs/bridge.md):
 *
 * | host | question | long task |
 * | --- | --- | --- |
 * | SDK 1.x `Client`, elicitation handler, `resetTimeoutOnProgress` | answered by `elicitation/create` | followed with progress past the host timeout |
 * | SDK 1.x `Client` without elicitation, 1 s wait | asked after the pending reply, answered with `task_answer` | pending, then `task_result` |
 * | SDK 1.x experimental tasks API (2025-11-25 task host) | answered (elicitation via `tasks/result`) | native task: `tasks/get`, `tasks/result`, `tasks/cancel` |
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElicitRequestSchema, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { TaskServer } from 'mcp-tasks-client/testing';
import { FileTaskStore } from 'mcp-tasks-client/file-store';
import { join } from 'node:path';
import { ensureCliBuilt, killLeftovers, tempHome } from './helpers.js';
import { referenceServer, sdkHost, taskResult, until } from './bridge-helpers.js';

let server: TaskServer;

beforeAll(async () => {
  await ensureCliBuilt();
  server = await referenceServer({ timeScale: 1 });
}, 120_000);

afterAll(async () => {
  await server.close();
  await killLeftovers();
});

describe('what the host sees', () => {
  it('lists the upstream tools with schemas and annotations, prefixed, with taskSupport optional and the task tools', async () => {
    const home = tempHome();
    const { client } = await sdkHost(server.url, home, ['--prefix', 'ref_']);
    try {
      const { tools } = await client.listTools();
      const echo = tools.find((t) => t.name === 'ref_echo');
      expect(echo?.inputSchema).toEqual({
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
      });
      expect(echo?.annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
      expect(echo?.execution).toEqual({ taskSupport: 'optional' });
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['ref_task_status', 'ref_task_result', 'ref_task_cancel', 'ref_task_answer']),
      );
      const result = await client.callTool({ name: 'ref_echo', arguments: { text: 'hi' } });
      expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);
      expect(result.structuredContent).toEqual({ text: 'hi' });
      // resources and prompts pass through; a resource read that becomes a task upstream is followed
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual(['demo://readme', 'demo://slow-report']);
      const report = await client.readResource({ uri: 'demo://slow-report' });
      expect(report.contents).toEqual([
        { uri: 'demo://slow-report', mimeType: 'text/plain', text: 'Quarterly report: all green.' },
      ]);
      expect((await client.listPrompts()).prompts.length).toBeGreaterThan(0);
      // every failure reaches the host: a failed task and a tool error as tool errors, an unknown tool as -32602
      const failed = await client.callTool({ name: 'ref_flaky_job', arguments: {} });
      expect(failed.isError).toBe(true);
      expect(failed.content).toEqual([
        {
          type: 'text',
          text: expect.stringMatching(
            /^The tool "flaky_job" failed on the server \(task .+\): flaky_job: upstream service unavailable \(JSON-RPC -32603\)\.$/,
          ),
        },
      ]);
      const lint = await client.callTool({ name: 'ref_lint_file', arguments: { path: 'a.ts' } });
      expect(lint).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'a.ts: 3 problems (2 errors, 1 warning)' }],
      });
      await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Unknown tool: nope/);
    } finally {
      await client.close();
    }
  });
});

describe('SDK 1.x Client with elicitation and resetTimeoutOnProgress', () => {
  it('answers the question by elicitation/create and follows a task past the host timeout with progress', async () => {
    const home = tempHome();
    const { client } = await sdkHost(server.url, home, ['--keep-alive', '200ms'], {
      capabilities: { elicitation: { form: {} } },
    });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { confirm: true, note: 'via bridge' } };
    });
    try {
      const deploy = await client.callTool({ name: 'deploy_release', arguments: { version: '2.0.0' } });
      expect(asked).toEqual(['Deploy 2.0.0 to production?']);
      expect(deploy.content).toEqual([{ type: 'text', text: 'deployed 2.0.0 (via bridge)' }]);
      // 1500 documents × 2 ms = 3 s, the host's own timeout is 1 s: progress (statusMessage, keep-alive) resets it
      const messages: string[] = [];
      const result = await client.callTool(
        { name: 'reindex_corpus', arguments: { documents: 1500 } },
        CallToolResultSchema,
        {
          timeout: 1_000,
          resetTimeoutOnProgress: true,
          onprogress: (p) => void (p.message && messages.push(p.message)),
        },
      );
      expect(result.content).toEqual([{ type: 'text', text: 'Indexed 1500 documents' }]);
      expect(messages).toContain('indexed 750/1500');
      expect(messages.at(-1)).toBe('indexed 1500/1500');
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('a host without elicitation', () => {
  it('gets a pending result, sees the later question in task_status, answers it with task_answer, then task_result', async () => {
    const home = tempHome();
    const { client } = await sdkHost(server.url, home, ['--max-wait', '50ms']);
    try {
      const first = await client.callTool({ name: 'deploy_release', arguments: { version: '3.1.0' } });
      const pending = first.structuredContent as Record<string, unknown>;
      expect(pending.status).toBe('pending');
      expect(typeof pending.taskId).toBe('string');
      expect(pending).toHaveProperty('checkAgainAfterMs');
      expect(pending).toHaveProperty('expiresAt');
      const taskId = pending.taskId as string;
      let status: Record<string, unknown> = {};
      await until(async () => {
        const s = await client.callTool({ name: 'task_status', arguments: { taskId } });
        status = s.structuredContent as Record<string, unknown>;
        return status.status === 'input_required';
      });
      expect(status.openQuestions).toEqual([
        expect.objectContaining({ key: 'confirm', message: 'Deploy 3.1.0 to production?' }),
      ]);
      const answered = await client.callTool({
        name: 'task_answer',
        arguments: { taskId, key: 'confirm', action: 'accept', content: { confirm: true } },
      });
      expect(answered.isError).toBeFalsy();
      const again = await client.callTool({
        name: 'task_answer',
        arguments: { taskId, key: 'confirm', action: 'accept', content: { confirm: true } },
      });
      expect(again.isError).toBe(true);
      const result = await taskResult(client, taskId);
      expect(result.content).toEqual([{ type: 'text', text: 'deployed 3.1.0' }]);
      expect(server.stats.count('tasks/update')).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('declines a question asked before the pending reply, with the note for the model', async () => {
    const home = tempHome();
    const { client } = await sdkHost(server.url, home, ['--max-wait', '20s']);
    try {
      const result = await client.callTool({ name: 'deploy_release', arguments: { version: '4.0.0' } });
      expect(result.isError).toBe(true);
      const texts = (result.content as Array<{ text: string }>).map((b) => b.text);
      expect(texts[0]).toBe('Deployment of 4.0.0 was not confirmed (decline); nothing deployed');
      expect(texts.at(-1)).toBe(
        'The tool "deploy_release" needed a person\'s input ("Deploy 4.0.0 to production?") and no one was available to answer, so it was declined. Ask the user, then call the tool again if they agree.',
      );
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('cancel, disconnect, restart', () => {
  it("the host's notifications/cancelled cancels the upstream task", async () => {
    const home = tempHome();
    const { client, stderr } = await sdkHost(server.url, home);
    try {
      const controller = new AbortController();
      const call = client.callTool({ name: 'reindex_corpus', arguments: { documents: 20_000 } }, undefined, {
        signal: controller.signal,
      });
      const before = server.stats.taskCancels().length;
      const polls = server.stats.count('tasks/get');
      await until(() => server.stats.count('tasks/get') > polls);
      controller.abort('the user pressed stop');
      await expect(call).rejects.toThrow();
      await until(() => server.stats.taskCancels().length > before).catch((e) => {
        throw new Error(`${e}; bridge stderr: ${stderr()}`);
      });
    } finally {
      await client.close();
    }
  }, 30_000);

  it('a host killed mid-task leaves the task cancelled; a pending task stays recorded and a restarted bridge answers task_result', async () => {
    const home = tempHome();
    const host = await sdkHost(server.url, home, ['--max-wait', '50ms']);
    const pending = await host.client.callTool({ name: 'reindex_corpus', arguments: { documents: 500 } });
    const taskId = (pending.structuredContent as { taskId: string }).taskId;
    // the host goes away while a second call is still being followed: that one is cancelled
    const before = server.stats.taskCancels().length;
    const polls = server.stats.count('tasks/get');
    void host.client
      // with a progressToken the call waits --max-wait-progress (10 min), so it is still followed when the host goes
      .callTool({ name: 'reindex_corpus', arguments: { documents: 20_000 } }, undefined, {
        timeout: 60_000,
        onprogress: () => undefined,
      })
      .catch(() => undefined);
    await until(() => server.stats.count('tasks/get') > polls + 3);
    await host.transport.close(); // stdin closed, then SIGTERM: the bridge ends its open calls
    await until(() => server.stats.taskCancels().length > before, 15_000).catch((e) => {
      throw new Error(`${e}; bridge stderr: ${host.stderr()}`);
    });
    // the handed-off task was recorded in the bridge's FileTaskStore
    const store = new FileTaskStore(join(home, 'tasks'));
    expect((await store.list()).map((r) => r.taskId)).toContain(taskId);
    // a new bridge (the host restarted it) answers task_result from the record
    const again = await sdkHost(server.url, home);
    try {
      const result = await again.client.callTool({ name: 'task_result', arguments: { taskId } });
      expect(result.content).toEqual([{ type: 'text', text: 'Indexed 500 documents' }]);
    } finally {
      await again.client.close();
    }
  }, 60_000);
});

describe('a bridge killed with SIGKILL', () => {
  it('leaves the task it was following recorded; the restarted bridge answers task_result', async () => {
    const home = tempHome();
    const host = await sdkHost(server.url, home);
    const polls = server.stats.count('tasks/get');
    void host.client
      .callTool({ name: 'reindex_corpus', arguments: { documents: 1500 } }, undefined, {
        timeout: 60_000,
        onprogress: () => undefined,
      })
      .catch(() => undefined);
    await until(() => server.stats.count('tasks/get') > polls);
    process.kill(host.transport.pid as number, 'SIGKILL');
    const records = await new FileTaskStore(join(home, 'tasks')).list();
    expect(records).toHaveLength(1);
    const taskId = records[0]?.taskId as string;
    await host.client.close();
    const again = await sdkHost(server.url, home);
    try {
      const result = await taskResult(again.client, taskId);
      expect(result.content).toEqual([{ type: 'text', text: 'Indexed 1500 documents' }]);
    } finally {
      await again.client.close();
    }
  }, 60_000);
});

describe('SDK 1.x experimental tasks API (a 2025-11-25 task host)', () => {
  it('gets the bridge task at once; tasks/get and tasks/result follow the upstream; an elicitation reaches it', async () => {
    const home = tempHome();
    const { client } = await sdkHost(server.url, home, [], {
      capabilities: { elicitation: { form: {} }, tasks: { requests: { elicitation: { create: {} } } } },
      taskStore: new InMemoryTaskStore(),
    });
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { confirm: true },
    }));
    try {
      const kinds: string[] = [];
      let final: unknown;
      for await (const message of client.experimental.tasks.callToolStream(
        { name: 'deploy_release', arguments: { version: '5.0.0' } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      )) {
        kinds.push(message.type);
        if (message.type === 'result') final = message.result;
        if (message.type === 'error') throw message.error;
      }
      expect(kinds[0]).toBe('taskCreated');
      expect(final).toMatchObject({ content: [{ type: 'text', text: 'deployed 5.0.0' }] });
      const { tasks } = await client.experimental.tasks.listTasks();
      expect(tasks.at(-1)?.status).toBe('completed');
    } finally {
      await client.close();
    }
  }, 30_000);

  it('tasks/cancel reports cancelled while the bridge cancels and keeps following the upstream task', async () => {
    const home = tempHome();
    const host = await sdkHost(server.url, home, [], {
      capabilities: {},
      taskStore: new InMemoryTaskStore(),
    });
    const { client } = host;
    try {
      const created = await client.request(
        {
          method: 'tools/call',
          params: { name: 'reindex_corpus', arguments: { documents: 20_000 }, task: { ttl: 60_000 } },
        },
        (await import('@modelcontextprotocol/sdk/experimental/tasks/types.js')).CreateTaskResultSchema,
      );
      const hostTaskId = created.task.taskId;
      await until(async () => {
        const t = await client.experimental.tasks.getTask(hostTaskId);
        return t.statusMessage?.startsWith('indexed') === true;
      });
      const before = server.stats.taskCancels().length;
      const cancelled = await client.experimental.tasks.cancelTask(hostTaskId);
      expect(cancelled.status).toBe('cancelled');
      await until(() => server.stats.taskCancels().length > before);
      expect((await client.experimental.tasks.getTask(hostTaskId)).status).toBe('cancelled');
      await until(() => /was cancelled by the host; the upstream ended: TASK_CANCELLED/.test(host.stderr()));
    } finally {
      await client.close();
    }
  }, 30_000);
});
