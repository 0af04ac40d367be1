/**
 * A URL without the server's MCP path (`http://127.0.0.1:PORT` for a server at `/mcp`): the modern request gets
 * HTTP 404, the 2025-11-25 `initialize` it falls back to gets 404 too. The caller never called `initialize`, so the
 * error says what is wrong: `HTTP 404 at <url>: is this the MCP endpoint? e.g. <url>/mcp` (an `HttpError`, status 404,
 * the legacy failure as its cause). The reference task server over real loopback HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HttpError, StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';

let server: TaskServer | undefined;
let client: TaskClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
});

describe('a URL missing /mcp', () => {
  it('callTool rejects with "HTTP 404 at <url>: is this the MCP endpoint?", twice (nothing cached as legacy)', async () => {
    server = await createTaskServer();
    const root = new URL(server.url).origin;
    client = new TaskClient({ transport: new StreamableHttpTransport(root) });
    for (let i = 0; i < 2; i++) {
      const error = await client.callTool('echo', { text: 'hi' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).status).toBe(404);
      expect((error as Error).message).toBe(
        `HTTP 404 at ${root}/: is this the MCP endpoint? e.g. ${root}/mcp`,
      );
    }
  });
});
