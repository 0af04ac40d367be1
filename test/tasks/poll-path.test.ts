/**
 * The path of one poll, as a newcomer reads it in docs/architecture.md: the scheduler's tick, the `tasks/get` written
 * to the wire, the status applied to the handle. The source modules it crosses are read from the stack at the moment
 * the request is created in undici (diagnostics channel `undici:request:create`) and at the moment the new status
 * reaches the handle's `status` listener, and pinned here: a new hop on that path must be a deliberate change (and
 * docs/architecture.md names it). Real HTTP on loopback.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Server } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { StreamableHttpTransport, TaskClient } from '../../src/node.js'; // what Node users get: undici underneath
import { closeLoopback, listenLoopback } from '../helpers/loopback-server.js';

let server: Server | undefined;
let client: TaskClient | undefined;
afterEach(async () => {
  await closeLoopback(server, client);
  server = client = undefined;
});

/** The `src/` files named in a stack, in order of first appearance. */
function sourceFiles(stack: string): string[] {
  const files: string[] = [];
  for (const match of stack.matchAll(/\/src\/([\w/.-]+\.ts)/g))
    if (!files.includes(match[1]!)) files.push(match[1]!);
  return files;
}

function capture(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = Number.POSITIVE_INFINITY;
  const stack = new Error('poll path').stack ?? '';
  Error.stackTraceLimit = limit;
  return stack;
}

it('one poll crosses at most eight source files, scheduler tick → tasks/get written → status applied', async () => {
  let polls = 0;
  const listening = await listenLoopback((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const message = JSON.parse(body) as { id: number; method: string };
      const task = { taskId: 't-1', ttlMs: 60_000, pollIntervalMs: 50 };
      const result =
        message.method === 'tools/call'
          ? { resultType: 'task', status: 'working', ...task }
          : message.method === 'tasks/get'
            ? (polls++, { ...task, status: 'completed', result: { content: [] } })
            : {};
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  server = listening.server;
  client = new TaskClient({
    transport: new StreamableHttpTransport(listening.url),
    era: 'modern',
    polling: { minIntervalMs: 50 },
  });
  const start = await client.startTool('job', {});
  if (start.resultType !== 'task') throw new Error('expected a task');
  const written: string[] = [];
  const onCreate = (message: unknown): void => {
    // undici's headers: [name, value, name, value, …]; the 2026-07-28 `Mcp-Method` header names the request.
    const headers = (message as { request: { headers: unknown } }).request.headers;
    if (Array.isArray(headers) && headers.join('\n').includes('mcp-method\ntasks/get'))
      written.push(capture());
  };
  subscribe('undici:request:create', onCreate);
  let applied = '';
  start.task.on('status', () => (applied ||= capture()));
  try {
    await start.task.result();
  } finally {
    unsubscribe('undici:request:create', onCreate);
  }
  expect(polls).toBe(1);
  expect(written).toHaveLength(1);
  // From the tick down to the wire, then from the reply back up to the listener (an async stack names the functions
  // that await; synchronous helpers on the way, the era backend's getTask, parseDetailedTask and decisions.ts, run
  // and return before these moments: docs/architecture.md names them too).
  const files = [...new Set([...sourceFiles(written[0]!).reverse(), ...sourceFiles(applied).reverse()])];
  expect(files).toEqual([
    'tasks/scheduler.ts',
    'tasks/task-handle.ts',
    'modern/request-pipeline.ts',
    'transport/redirects.ts',
    'transport/streamable-http.ts',
    'transport/undici-sender.ts',
    'internal/safe-emitter.ts',
  ]);
  expect(files.length).toBeLessThanOrEqual(8);
});
