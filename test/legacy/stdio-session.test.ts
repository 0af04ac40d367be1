/**
 * The 2025-11-25 session over stdio: newline-delimited JSON-RPC with a real child process (a small scripted server
 * run by `node -e`), opened through the channel a `StdioTransport`'s target starts. The handshake, a server request
 * linked to a task answered on stdin, a line that is not JSON reported and skipped, an exit failing the request in
 * flight with ServerExitedError, and close() ending the process.
 *
 * Spec: modelcontextprotocol/modelcontextprotocol docs/specification/2025-11-25/basic/transports.mdx § stdio and
 * basic/lifecycle.mdx § Initialization. CLIENT-REQUIREMENTS: the legacy era over stdio (3.6).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ServerExitedError } from '../../src/errors.js';
import { LegacySession } from '../../src/legacy/session.js';
import { StdioTransport } from '../../src/transport/stdio.js';

const SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
process.stdout.write('a log line on stdout\\n');
let call;
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize')
    return send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {},
      serverInfo: { name: 'stdio-scripted', version: '1' }, seen: m.params } });
  if (m.method === 'notifications/initialized') return send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'initialized seen' } });
  if (m.method === 'tools/call' && m.params.name === 'exit') return process.exit(3);
  if (m.method === 'tools/call') {
    call = m;
    return send({ jsonrpc: '2.0', id: 'q1', method: 'elicitation/create', params: { message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't-9' } } } });
  }
  if (m.id === 'q1')
    return send({ jsonrpc: '2.0', id: call.id, result: { content: [{ type: 'text', text: 'hello ' + m.result.content.name }] } });
});
`;

let session: LegacySession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

function channel(warnings: string[] = []) {
  const target = new StdioTransport({
    command: process.execPath,
    args: ['-e', SERVER],
    onWarning: (w) => warnings.push(w),
    closeGraceMs: 500,
  }).target;
  if (!target.openChannel) throw new Error('a StdioTransport target opens channels');
  return target.openChannel();
}

describe('2025-11-25 over stdio', () => {
  it('initialize, then a task-linked elicitation from the server answered on stdin; a stdout line that is not JSON is reported and skipped', async () => {
    const warnings: string[] = [];
    const asked: Array<[string, Record<string, unknown>]> = [];
    session = await LegacySession.open(channel(warnings), {
      clientInfo: { name: 'test', version: '1' },
      capabilities: { elicitation: { form: {} } },
      answers: new Set(['elicitation/create']),
      onRequest: async (method, params) => {
        asked.push([method, params]);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    expect(session.identity.serverInfo).toEqual({ name: 'stdio-scripted', version: '1' });
    const result = await session.request('tools/call', { name: 'greet', arguments: {} });
    expect(result).toEqual({ content: [{ type: 'text', text: 'hello Ada' }] });
    expect(asked).toEqual([
      [
        'elicitation/create',
        {
          message: 'Name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't-9' } },
        },
      ],
    ]);
    expect(warnings).toEqual([
      expect.stringContaining('stdout line is not JSON; skipped: a log line on stdout'),
    ]);
  });

  it('the server exiting fails the request in flight with ServerExitedError (exit code kept), and every later one', async () => {
    session = await LegacySession.open(channel(), {
      clientInfo: { name: 'test', version: '1' },
      capabilities: {},
      answers: new Set(),
      onRequest: async () => ({}),
    });
    const error = await session.request('tools/call', { name: 'exit' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerExitedError);
    expect((error as ServerExitedError).exitCode).toBe(3);
    await expect(session.request('tools/list', {})).rejects.toBe(error);
  });

  it('close() ends the process', async () => {
    const ch = channel();
    session = await LegacySession.open(ch, {
      clientInfo: { name: 'test', version: '1' },
      capabilities: {},
      answers: new Set(),
      onRequest: async () => ({}),
    });
    const pid = (ch as { pid?: number }).pid as number;
    expect(pid).toBeGreaterThan(0);
    await session.close();
    session = undefined;
    expect(() => process.kill(pid, 0)).toThrow(); // no such process
  });
});
