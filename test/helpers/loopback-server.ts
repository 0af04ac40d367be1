/**
 * A plain `node:http` server on 127.0.0.1 (ephemeral port) for tests that script hostile or silent answers, and its
 * teardown together with the client under test.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on 127.0.0.1:0; `url` ends in `/mcp`. */
export async function listenLoopback(listener: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
}

/** Closes the client (if any), then the server with every connection it still holds. */
export async function closeLoopback(
  server: Server | undefined,
  client?: { close(): Promise<void> },
): Promise<void> {
  await client?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
}
