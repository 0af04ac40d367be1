/**
 * A 2025-11-25 POST stream whose events end in bare CRs (`data: …\r\r`, as the SSE spec allows) and whose last event
 * is the response: the response is read whether the stream then ends or its connection breaks, instead of the last
 * CR being held back by the parser (waiting for an LF that never comes) and the request reported lost. Real loopback
 * server (node:http, scripted). https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpSessionChannel } from '../../src/legacy/http-channel.js';
import { LegacySession } from '../../src/legacy/session.js';
import { startScriptedServer, type ScriptedServer } from './scripted-server.js';

let server: ScriptedServer | undefined;
let session: LegacySession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
  await server?.close();
  server = undefined;
});

function crStream(res: ServerResponse, id: unknown, then: 'end' | 'break'): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const progress = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } };
  const response = { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'done' }] } };
  res.write(`data: ${JSON.stringify(progress)}\r\rdata: ${JSON.stringify(response)}\r\r`, () => {
    if (then === 'end') res.end();
    else setImmediate(() => res.destroy());
  });
}

describe('2025-11-25 SSE with CR line ends, the response last', () => {
  it.each(['end', 'break'] as const)('the stream then %ss: the response is read', async (then) => {
    server = await startScriptedServer();
    server.onRequest = (message, res) => crStream(res, message.id, then);
    session = await LegacySession.open(new HttpSessionChannel({ kind: 'http', url: new URL(server.url) }), {
      clientInfo: { name: 'test', version: '1' },
      capabilities: {},
      answers: new Set(),
      onRequest: async () => ({}),
    });
    await expect(session.request('tools/call', { name: 'x' })).resolves.toEqual({
      content: [{ type: 'text', text: 'done' }],
    });
  });
});
