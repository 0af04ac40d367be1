/**
 * A creation request whose reply arrived but could not be read (a JSON-RPC batch: an array where one response
 * belongs) has an unknown outcome, and the error says what arrived instead of claiming that no response came.
 * Real HTTP on loopback.
 */
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  InvalidResponseError,
  OutcomeUnknownError,
  StreamableHttpTransport,
  TaskClient,
} from '../../src/index.js';
import { closeLoopback, listenLoopback } from '../helpers/loopback-server.js';

let server: Server | undefined;
let client: TaskClient | undefined;
afterEach(async () => {
  await closeLoopback(server, client);
  server = client = undefined;
});

/** A server answering every request with `body` as JSON. */
async function answering(body: unknown): Promise<TaskClient> {
  const loopback = await listenLoopback((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  server = loopback.server;
  client = new TaskClient({ transport: new StreamableHttpTransport(loopback.url), era: 'modern' });
  return client;
}

describe('a reply that arrived but could not be read', () => {
  it.each([
    ['a JSON-RPC batch', [{ jsonrpc: '2.0', id: 1, result: { content: [] } }]],
    ['an empty array', []],
  ])(
    '%s to tools/call: OutcomeUnknownError saying what arrived, not "no response arrived"',
    async (_, body) => {
      const c = await answering(body);
      const error = await c.callTool('deploy', {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect((error as Error).message).toBe(
        'tools/call: a reply arrived but could not be read (expected a JSON-RPC object, got an array); the work may or may not have started on the server',
      );
      expect((error as OutcomeUnknownError).unreadableReply).toBe('expected a JSON-RPC object, got an array');
      expect((error as Error).cause).toBeInstanceOf(InvalidResponseError);
    },
  );
});
