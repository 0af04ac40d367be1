/**
 * A creation result naming a task by an id this client refuses (control characters, over MAX_TASK_ID_BYTES, U+FFFD,
 * lone surrogates): the work may be running, so it gets `tasks/cancel` with the raw id (JSON-escaped on the wire)
 * when the id is at most MAX_CANCELLABLE_TASK_ID_CHARS long, and the InvalidResponseError reports it escaped
 * (`taskIdEscaped`), never raw. Real HTTP on loopback.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
 */
import { type Server } from 'node:http';
import { closeLoopback, listenLoopback } from '../../helpers/loopback-server.js';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidResponseError, StreamableHttpTransport, TaskClient } from '../../../src/index.js';
import { MAX_CANCELLABLE_TASK_ID_CHARS } from '../../../src/protocol/task-id.js';

let server: Server | undefined;
let client: TaskClient | undefined;
afterEach(async () => {
  await closeLoopback(server, client);
  server = client = undefined;
});

/** Answers `tools/call` with a task named `taskId`, anything else with `{}`; keeps every `tasks/cancel` body raw. */
async function start(taskId: string): Promise<{ cancels: string[]; warnings: string[] }> {
  const cancels: string[] = [];
  const listening = await listenLoopback((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const message = JSON.parse(body) as { id: number; method: string };
      if (message.method === 'tasks/cancel') cancels.push(body);
      const result = message.method === 'tools/call' ? { resultType: 'task', taskId, status: 'working', ttlMs: 60_000 } : {};
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  server = listening.server;
  const warnings: string[] = [];
  client = new TaskClient({ transport: new StreamableHttpTransport(listening.url), era: 'modern' });
  client.on('warning', (m) => warnings.push(m));
  return { cancels, warnings };
}

// Any control character but the newlines of our own multi-line schema message; any surrogate half.
const UNPRINTABLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]|[\ud800-\udfff]/;

describe('a task named by an id the client refuses', () => {
  it.each([
    ['ESC sequence', '\u001b[31mevil', '\\u001b[31mevil'],
    ['over MAX_TASK_ID_BYTES', 'A'.repeat(2000), `${'A'.repeat(256)}…(2000 chars)`],
    ['U+FFFD', 'bad\ufffd', 'bad\ufffd'],
    ['a lone surrogate', 'x\ud800y', 'x\\ud800y'],
  ])('%s: tasks/cancel with the raw id; InvalidResponseError with taskIdEscaped, no raw controls', async (_, id, escaped) => {
    const { cancels } = await start(id);
    const error = await client!.callTool('x', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).taskId).toBeUndefined();
    expect((error as InvalidResponseError).taskIdEscaped).toBe(escaped);
    expect((error as Error).message).not.toMatch(UNPRINTABLE);
    expect(cancels).toHaveLength(1);
    expect((JSON.parse(cancels[0]!) as { params: { taskId: string } }).params.taskId).toBe(id);
    expect(cancels[0]).not.toMatch(/[\u0000-\u001f]/); // JSON-escaped on the wire
  });

  it('over MAX_CANCELLABLE_TASK_ID_CHARS: no tasks/cancel; a warning reports it escaped and says why', async () => {
    const { cancels, warnings } = await start(`\u001b${'B'.repeat(MAX_CANCELLABLE_TASK_ID_CHARS)}`);
    const error = await client!.callTool('x', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).taskIdEscaped).toMatch(/^\\u001bB+…\(65537 chars\)$/);
    expect(cancels).toHaveLength(0);
    expect(warnings.join('\n')).toMatch(/not cancelled: the id is over 65536 characters/);
    expect(warnings.join('\n')).not.toMatch(UNPRINTABLE);
  });

  it("onAbort: 'detach': left running, reported by a warning with the escaped id", async () => {
    const { cancels, warnings } = await start('\u001b[2Jgone');
    await expect(client!.callTool('x', {}, { onAbort: 'detach' })).rejects.toMatchObject({ taskIdEscaped: '\\u001b[2Jgone' });
    expect(cancels).toHaveLength(0);
    expect(warnings.join('\n')).toContain('"\\u001b[2Jgone"');
  });
});
