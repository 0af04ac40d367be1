/**
 * The 2025-11-25 era and `client.close()` while a task-augmented `tools/call` is in flight: the SDK session stays
 * open while the answer is read (for `abortGraceMs`), a task the server then creates gets `tasks/cancel` over that
 * session, and the call rejects with ClientClosedError carrying the taskId.
 *
 * Spec: modelcontextprotocol/modelcontextprotocol docs/specification/2025-11-25/basic/utilities/cancellation.mdx
 * ("For task-augmented requests, the tasks/cancel request MUST be used instead of the notifications/cancelled
 * notification") and basic/utilities/tasks.mdx § Cancelling Tasks.
 *
 * The server is real: the official SDK 1.x `McpServer` with its experimental task support over its Streamable HTTP
 * server transport on loopback; its task tool creates the task only when the test lets it (no clock involved).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientClosedError, StreamableHttpTransport, TaskClient } from '../../src/index.js';

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => resolve(text ? JSON.parse(text) : undefined));
  });
}

interface LegacyServer {
  url: string;
  /** `[method, params.taskId]` of every request the server received. */
  readonly seen: Array<[string, unknown]>;
  /** Resolves when the held tool call reached the tool. */
  arrived: Promise<void>;
  /** Lets the held tool create its task. */
  release(): void;
  close(): Promise<void>;
}

let running: LegacyServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function startLegacyServer(): Promise<LegacyServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const seen: Array<[string, unknown]> = [];
  let arrive!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((r) => (arrive = r));
  const gate = new Promise<void>((r) => (release = r));
  const taskStore = new InMemoryTaskStore();
  const http: Server = createServer(async (req, res) => {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const message = body as { method?: string; params?: { taskId?: unknown } } | undefined;
    if (message?.method) seen.push([message.method, message.params?.taskId]);
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      const server = new McpServer(
        { name: 'legacy-held', version: '1.0.0' },
        { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore },
      );
      server.experimental.tasks.registerToolTask(
        'held_job',
        { description: 'creates its task when the test lets it', execution: { taskSupport: 'required' } },
        {
          async createTask(extra) {
            arrive();
            await gate;
            return { task: await extra.taskStore.createTask({ ttl: 60_000 }) };
          },
          getTask: (extra) => extra.taskStore.getTask(extra.taskId),
          getTaskResult: (extra) => extra.taskStore.getTaskResult(extra.taskId) as never,
        },
      );
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    seen,
    arrived,
    release,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

describe('2025-11-25: close() while a task-augmented tools/call is in flight', () => {
  it('the task created after close() gets tasks/cancel over the still-open session; the call rejects with ClientClosedError carrying its taskId', async () => {
    running = await startLegacyServer();
    const client = new TaskClient({ transport: new StreamableHttpTransport(running.url), era: 'legacy' });
    const call = client.callTool('held_job', {}).catch((e: unknown) => e);
    await running.arrived;
    const closing = client.close();
    running.release();
    await closing;
    const error = (await call) as ClientClosedError;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(error.taskId).toEqual(expect.any(String));
    expect(running.seen.filter(([m]) => m === 'tasks/cancel').map(([, id]) => id)).toEqual([error.taskId]);
  });
});
