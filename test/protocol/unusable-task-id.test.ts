/**
 * A creation result naming a task by an id this client refuses (control characters, over MAX_TASK_ID_BYTES, U+FFFD,
 * lone surrogates): the work may be running, so it gets `tasks/cancel` with the raw id (JSON-escaped on the wire)
 * when the id's encoded `Mcp-Name` header value is at most MAX_CANCEL_NAME_HEADER_BYTES, and the InvalidResponseError
 * reports it escaped (`taskIdEscaped`), never raw, with `taskCancel` saying what became of it. Real HTTP on loopback.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
 */
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidResponseError, McpError, StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { MAX_CANCEL_NAME_HEADER_BYTES } from '../../src/protocol/task-id.js';
import { closeLoopback, listenLoopback } from '../helpers/loopback-server.js';

let server: Server | undefined;
let client: TaskClient | undefined;
afterEach(async () => {
  await closeLoopback(server, client);
  server = client = undefined;
});

/** How the server answers `tasks/cancel`: the acknowledgement, a JSON-RPC error, or a reply that is not an ack. */
type CancelReply = 'ack' | 'unknown-task' | 'task-result';

/**
 * Answers `tools/call` with a task named `taskId` (and `extra` fields), `tasks/cancel` per `reply`, anything else
 * with `{}`; keeps every `tasks/cancel` body raw and its `Mcp-Name` header.
 */
async function start(
  taskId: string,
  reply: CancelReply = 'ack',
  extra: Record<string, unknown> = {},
): Promise<{ cancels: string[]; names: string[]; warnings: string[] }> {
  const cancels: string[] = [];
  const names: string[] = [];
  const listening = await listenLoopback((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const message = JSON.parse(body) as { id: number; method: string };
      const send = (payload: object): void =>
        void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...payload }));
      if (message.method === 'tasks/cancel') {
        cancels.push(body);
        names.push(String(req.headers['mcp-name']));
        if (reply === 'unknown-task') return send({ error: { code: -32602, message: 'no such task' } });
        if (reply === 'task-result')
          return send({ result: { resultType: 'task', taskId: 'other', status: 'working', ttlMs: 1_000 } });
        return send({ result: {} });
      }
      send({
        result:
          message.method === 'tools/call'
            ? { resultType: 'task', taskId, status: 'working', ttlMs: 60_000, ...extra }
            : {},
      });
    });
  });
  server = listening.server;
  const warnings: string[] = [];
  client = new TaskClient({ transport: new StreamableHttpTransport(listening.url), era: 'modern' });
  client.on('warning', (m) => warnings.push(m));
  return { cancels, names, warnings };
}

async function refusal(options?: { onAbort: 'detach' }): Promise<InvalidResponseError> {
  const error = await client!.callTool('x', {}, options).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InvalidResponseError);
  return error as InvalidResponseError;
}

// Any control character but the newlines of our own multi-line schema message; any surrogate half.
const UNPRINTABLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]|[\ud800-\udfff]/;

describe('a task named by an id the client refuses', () => {
  it.each([
    ['ESC sequence', '\u001b[31mevil', '\\u001b[31mevil'],
    ['over MAX_TASK_ID_BYTES', 'A'.repeat(2000), `${'A'.repeat(256)}…(2000 chars)`],
    ['U+FFFD', 'bad\ufffd', 'bad\ufffd'],
    ['a lone surrogate', 'x\ud800y', 'x\\ud800y'],
  ])(
    '%s: tasks/cancel with the raw id; taskCancel cancel-requested; taskIdEscaped, no raw controls',
    async (_, id, escaped) => {
      const { cancels } = await start(id);
      const error = await refusal();
      expect(error.taskId).toBeUndefined();
      expect(error.taskIdEscaped).toBe(escaped);
      expect(error.taskCancel).toEqual({ kind: 'cancel-requested' });
      expect(error.message).not.toMatch(UNPRINTABLE);
      expect(cancels).toHaveLength(1);
      expect((JSON.parse(cancels[0]!) as { params: { taskId: string } }).params.taskId).toBe(id);
      expect(cancels[0]).not.toMatch(/[\u0000-\u001f]/); // JSON-escaped on the wire
    },
  );

  it('the bound is the encoded Mcp-Name value: 8,192 printable ASCII characters go verbatim and are cancelled', async () => {
    const id = 'A'.repeat(MAX_CANCEL_NAME_HEADER_BYTES);
    const { cancels, names } = await start(id);
    expect((await refusal()).taskCancel).toEqual({ kind: 'cancel-requested' });
    expect(cancels).toHaveLength(1);
    expect(names).toEqual([id]);
  });

  it('one printable ASCII character more: not sent (id-too-long); the warning says how many header bytes', async () => {
    const { cancels, warnings } = await start('A'.repeat(MAX_CANCEL_NAME_HEADER_BYTES + 1));
    const error = await refusal();
    expect(error.taskCancel).toEqual({ kind: 'not-sent', reason: 'id-too-long' });
    expect(error.taskIdEscaped).toBe(`${'A'.repeat(256)}…(8193 chars)`);
    expect(cancels).toHaveLength(0);
    expect(warnings.join('\n')).toMatch(
      /not cancelled: the id takes 8193 bytes in the Mcp-Name header, over 8192/,
    );
  });

  it('an id with a control character is base64 in Mcp-Name: 6,135 UTF-8 bytes encode to 8,191 header bytes (sent), 6,141 to 8,199 (not sent)', async () => {
    const sent = `\u001b${'B'.repeat(6_134)}`;
    const first = await start(sent);
    expect((await refusal()).taskCancel).toEqual({ kind: 'cancel-requested' });
    expect(first.names).toHaveLength(1);
    expect(first.names[0]).toHaveLength(8_191);
    expect(Buffer.from(first.names[0]!.slice('=?base64?'.length, -2), 'base64').toString('utf8')).toBe(sent);
    await closeLoopback(server, client);

    const second = await start(`\u001b${'B'.repeat(6_140)}`);
    const error = await refusal();
    expect(error.taskCancel).toEqual({ kind: 'not-sent', reason: 'id-too-long' });
    expect(second.cancels).toHaveLength(0);
    expect(second.warnings.join('\n')).toMatch(/the id takes 8199 bytes in the Mcp-Name header, over 8192/);
    expect(second.warnings.join('\n')).not.toMatch(UNPRINTABLE);
  });

  it('a refused tasks/cancel (-32602): cancel-not-delivered, refused, cause the McpError; a warning says so', async () => {
    const { cancels, warnings } = await start('\u001bgone', 'unknown-task');
    const outcome = (await refusal()).taskCancel;
    expect(outcome).toMatchObject({ kind: 'cancel-not-delivered', refused: true });
    expect((outcome as { cause: unknown }).cause).toBeInstanceOf(McpError);
    expect((outcome as { cause: McpError }).cause.code).toBe(-32602);
    expect(cancels).toHaveLength(1);
    expect(warnings.join('\n')).toContain(
      'tasks/cancel for the task "\\u001bgone" (an id this client refuses) was refused: tasks/cancel failed: no such task',
    );
  });

  it('a tasks/cancel reply that is not the acknowledgement (resultType "task"): cancel-not-confirmed; the warning says it reached the server', async () => {
    const { cancels, warnings } = await start('\u001bodd', 'task-result');
    const outcome = (await refusal()).taskCancel;
    expect(outcome?.kind).toBe('cancel-not-confirmed');
    expect((outcome as { cause: unknown }).cause).toBeInstanceOf(InvalidResponseError);
    expect(cancels).toHaveLength(1);
    expect(warnings.join('\n')).toMatch(
      /tasks\/cancel for the task "\\u001bodd" \(an id this client refuses\) reached the server, but its reply was not an acknowledgement/,
    );
  });

  it("onAbort: 'detach': left running (not-sent, detached), reported by a warning with the escaped id", async () => {
    const { cancels, warnings } = await start('\u001b[2Jgone');
    const error = await refusal({ onAbort: 'detach' });
    expect(error.taskIdEscaped).toBe('\\u001b[2Jgone');
    expect(error.taskCancel).toEqual({ kind: 'not-sent', reason: 'detached' });
    expect(cancels).toHaveLength(0);
    expect(warnings.join('\n')).toContain('"\\u001b[2Jgone"');
  });
});

describe('a malformed creation result naming a usable task id', () => {
  it('tasks/cancel acknowledged: taskCancel cancel-requested, taskId set', async () => {
    const { cancels } = await start('t-1', 'ack', { ttlMs: 'ten minutes' });
    const error = await refusal();
    expect(error.taskId).toBe('t-1');
    expect(error.taskCancel).toEqual({ kind: 'cancel-requested' });
    expect(cancels).toHaveLength(1);
  });

  it("onAbort: 'detach': not-sent, detached; no tasks/cancel", async () => {
    const { cancels } = await start('t-2', 'ack', { status: 42 });
    expect((await refusal({ onAbort: 'detach' })).taskCancel).toEqual({
      kind: 'not-sent',
      reason: 'detached',
    });
    expect(cancels).toHaveLength(0);
  });

  it('a refused tasks/cancel: cancel-not-delivered, refused; the warning names the task', async () => {
    const { warnings } = await start('t-3', 'unknown-task', { ttlMs: 'ten minutes' });
    expect((await refusal()).taskCancel).toMatchObject({ kind: 'cancel-not-delivered', refused: true });
    expect(warnings.join('\n')).toContain('tasks/cancel for the malformed task t-3 was refused');
  });
});
