/**
 * docs/runtimes.md's headers snippet, type-checked. Not run here: it names an API host on the reader's side;
 * test/transport/request-headers.test.ts runs the same options against loopback.
 */
import { StreamableHttpTransport } from 'mcp-tasks-client';

declare const tokenCache: { get(): Promise<string> };

// #region headers
const transport = new StreamableHttpTransport('https://mcp.example.com/mcp', {
  headers: { 'X-Tenant': 'acme' },
  getHeaders: async () => ({ Authorization: `Bearer ${await tokenCache.get()}` }),
});
// #endregion headers
export { transport };
