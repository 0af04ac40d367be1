/**
 * close() while a call's creation answer is on its way: the task it names gets `tasks/cancel`. Whatever becomes of
 * that cancel, the call rejects with ClientClosedError carrying the `taskId` (the cancel's failure as `cause`), as
 * docs/guide.md promises; a cancel cut short by the close is reported truthfully (no answer before close), not as
 * "not delivered". Real HTTP on loopback.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
 */
import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CancelDeliveryError,
  ClientClosedError,
  McpError,
  StreamableHttpTransport,
  TaskClient,
} from '../../src/index.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

const reply = (res: ServerResponse, id: number, body: Record<string, unknown>): void => {
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id, ...body }));
};

/** Holds the `tools/call` answer until `answerCreation()`; answers `tasks/cancel` per `cancel` (or never). */
async function start(cancel: 'internal-error' | 'never', abortGraceMs: number) {
  const seen: string[] = [];
  let answerCreation: () => void = () => {};
  const creationSeen = new Promise<void>((resolve) => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const message = JSON.parse(body) as { id: number; method: string };
        seen.push(message.method);
        if (message.method === 'tools/call') {
          answerCreation = () =>
            reply(res, message.id, {
              result: { resultType: 'task', taskId: 'late-1', status: 'working', ttlMs: 60_000 },
            });
          resolve();
        } else if (message.method === 'tasks/cancel' && cancel === 'internal-error')
          reply(res, message.id, { error: { code: -32603, message: 'no' } });
        else if (message.method !== 'tasks/cancel') reply(res, message.id, { result: {} });
      });
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const client = new TaskClient({
    transport: new StreamableHttpTransport(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/mcp`),
    era: 'modern',
    limits: { abortGraceMs },
  });
  const warnings: string[] = [];
  client.on('warning', (m) => warnings.push(m));
  const call = client.callTool('x', {}).catch((e: unknown) => e);
  await creationSeen;
  return { client, call, seen, warnings, answerCreation: () => answerCreation() };
}

/** close(), then the creation answer (task `late-1`): the call must reject with ClientClosedError carrying it. */
async function closeDuringCreation(cancel: 'internal-error' | 'never', abortGraceMs: number) {
  const env = await start(cancel, abortGraceMs);
  const closing = env.client.close();
  env.answerCreation();
  await closing;
  const error = await env.call;
  expect(error).toBeInstanceOf(ClientClosedError);
  expect((error as ClientClosedError).taskId).toBe('late-1');
  expect(env.seen).toEqual(['tools/call', 'tasks/cancel']);
  return { ...env, error: error as ClientClosedError };
}

describe('close() while the creation answer is on its way', () => {
  it('tasks/cancel answered -32603: the call rejects with ClientClosedError (taskId, the cancel failure as cause)', async () => {
    const { error } = await closeDuringCreation('internal-error', 10_000);
    expect(error.cause).toBeInstanceOf(CancelDeliveryError);
    expect((error.cause as Error).cause).toBeInstanceOf(McpError);
  });

  it('tasks/cancel sent but unanswered when the transport closes: the warning says so, not "not delivered"', async () => {
    const env = await closeDuringCreation('never', 30);
    await expect.poll(() => env.warnings.length).toBeGreaterThan(0);
    expect(env.warnings.join('\n')).toMatch(
      /tasks\/cancel for task late-1 \(the caller aborted\) got no answer before the client closed/,
    );
    expect(env.warnings.join('\n')).not.toMatch(/not delivered/);
  });
});
