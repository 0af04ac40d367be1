/**
 * A hostile `taskId` is an invalid response at creation: never stored, never printed, never polled.
 *
 * Spec: modelcontextprotocol/ext-tasks specification/draft/tasks.md § Tasks (`taskId`: "Stable identifier for this
 * task", a string) and § Security Considerations ("Hosts MUST apply the same trust model to these payloads…": the
 * server's data is untrusted); the limit (MAX_TASK_ID_BYTES = 1 KiB of UTF-8) is this client's documented choice.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  InvalidResponseError,
  MemoryTaskStore,
  StreamableHttpTransport,
  TaskClient,
} from '../../src/index.js';
import { MAX_TASK_ID_BYTES } from '../../src/protocol/task-id.js';
import { parseCreateTaskResult, parseDetailedTask } from '../../src/protocol/tasks.js';
import { taskIdProblem } from '../../src/protocol/task-id.js';
import { ScriptedTransport } from '../helpers/scripted-transport.js';
import { created, detailed } from '../helpers/unit-fixtures.js';

const HOSTILE: Array<[string, string]> = [
  ['over 1 KiB', 'a'.repeat(MAX_TASK_ID_BYTES + 1)],
  ['over 1 KiB in UTF-8 bytes (600 × "é" = 1200 bytes)', 'é'.repeat(600)],
  ['an ANSI escape sequence', 't-\u001b[2J\u001b[31mowned'],
  ['a newline', 't-1\nINFO forged log line'],
  ['a NUL', 't-\u0000'],
  ['a C1 control', 't-\u009b31m'],
  ['a bidi override', 't-\u202eevil'],
  ['a lone high surrogate', 't-\ud800x'],
  ['a lone low surrogate', 't-\udc00'],
  ['U+FFFD (invalid UTF-8 on the wire)', 't-\ufffd'],
  ['empty', ''],
];

describe('taskIdProblem', () => {
  it.each(HOSTILE)('%s → a reason that never quotes the id', (_label, id) => {
    const problem = taskIdProblem(id);
    expect(problem).toBeDefined();
    if (id.length > 3) expect(problem).not.toContain(id.slice(2));
  });

  it.each([
    ['a UUID', '786512e2-9e0d-44bd-8f29-789f820fe840'],
    ['exactly 1 KiB', 'a'.repeat(MAX_TASK_ID_BYTES)],
    ['non-ASCII letters and an emoji (well-formed)', 'täsk-🚀-1'],
    ['spaces and punctuation', 'job 42/alpha?x=1'],
  ])('%s is accepted', (_label, id) => {
    expect(taskIdProblem(id)).toBeUndefined();
    expect(parseCreateTaskResult(created({ taskId: id })).taskId).toBe(id);
  });

  it('the same check applies to tasks/get replies (parseDetailedTask)', () => {
    expect(() => parseDetailedTask(detailed({ taskId: 't-\u001b[0m' }))).toThrow(/control characters/);
  });
});

describe('through TaskClient: InvalidResponseError at creation, nothing stored, no handle, no poll', () => {
  it.each(HOSTILE)('%s', async (_label, taskId) => {
    const transport = new ScriptedTransport((method) =>
      method === 'tools/call' ? created({ taskId }) : detailed({ taskId }),
    );
    const store = new MemoryTaskStore();
    const client = new TaskClient({ transport, store });
    const tasks: unknown[] = [];
    client.on('task', (h) => tasks.push(h));
    const error = await client.callTool('job').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).method).toBe('tools/call');
    if (taskId.length > 3) {
      expect((error as Error).message).not.toContain(taskId.slice(2));
      expect(JSON.stringify((error as InvalidResponseError).issues)).not.toContain(
        JSON.stringify(taskId.slice(2)).slice(1, -1),
      );
    }
    expect(await store.list()).toEqual([]);
    expect(tasks).toEqual([]);
    expect(transport.of('tasks/get')).toHaveLength(0);
    // The work may be running: one tasks/cancel with the raw id (JSON escapes it on the wire); it is never stored or quoted.
    expect(transport.of('tasks/cancel').map((s) => (s.message.params as { taskId: string }).taskId)).toEqual(
      taskId.length > 0 ? [taskId] : [],
    );
    expect((error as InvalidResponseError).taskIdEscaped ?? '').not.toMatch(
      /[\u0000-\u001f\u007f-\u009f\u202e]/,
    );
    await client.close();
  });
});

describe('invalid UTF-8 bytes in the taskId over real loopback HTTP', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('the bytes decode to U+FFFD and the creation is an InvalidResponseError (nothing stored)', async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const id = (JSON.parse(body) as { id: number }).id;
        const head = Buffer.from(
          `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"task","taskId":"t-`,
          'utf8',
        );
        const tail = Buffer.from(
          '","status":"working","createdAt":"2026-08-01T09:00:00Z","lastUpdatedAt":"2026-08-01T09:00:00Z","ttlMs":60000}}',
          'utf8',
        );
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(Buffer.concat([head, Buffer.from([0xff, 0xfe, 0xc3]), tail]));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const store = new MemoryTaskStore();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const client = new TaskClient({ transport: new StreamableHttpTransport(url), store, era: 'modern' });
    const error = await client.callTool('job').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toContain('U+FFFD');
    expect(await store.list()).toEqual([]);
    await client.close();
  });
});

describe('the 2025-11-25 path (official SDK 1.x session) refuses the same ids', () => {
  let legacy: Server | undefined;
  afterEach(
    () =>
      new Promise<void>((resolve) =>
        legacy ? (legacy.closeAllConnections(), legacy.close(() => resolve())) : resolve(),
      ),
  );

  it('a legacy CreateTaskResult with an ANSI-laden taskId → InvalidResponseError, nothing stored', async () => {
    const hostile = 't-\u001b[2Jowned';
    // A raw 2025-11-25 server: initialize, tools/list (a task-required tool), tools/call → a nested CreateTaskResult.
    legacy = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        if (req.method !== 'POST') return void res.writeHead(405).end();
        const msg = JSON.parse(body) as { id?: number; method: string };
        if (msg.id === undefined) return void res.writeHead(202).end();
        const result =
          msg.method === 'initialize'
            ? {
                protocolVersion: '2025-11-25',
                capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } },
                serverInfo: { name: 'raw-legacy', version: '1' },
              }
            : msg.method === 'tools/list'
              ? {
                  tools: [
                    { name: 'job', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } },
                  ],
                }
              : {
                  task: {
                    taskId: hostile,
                    status: 'working',
                    ttl: 60_000,
                    createdAt: '2026-08-01T09:00:00Z',
                    lastUpdatedAt: '2026-08-01T09:00:00Z',
                  },
                };
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
      });
    });
    await new Promise<void>((resolve) => legacy!.listen(0, '127.0.0.1', resolve));
    const store = new MemoryTaskStore();
    const url = `http://127.0.0.1:${(legacy.address() as AddressInfo).port}/mcp`;
    const client = new TaskClient({ transport: new StreamableHttpTransport(url), store, era: 'legacy' });
    const error = await client.callTool('job').catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toContain('control characters');
    expect((error as Error).message).not.toContain('\u001b');
    expect(await store.list()).toEqual([]);
  });
});
