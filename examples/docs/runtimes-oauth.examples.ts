/**
 * docs/runtimes.md's OAuth snippet, type-checked. Not run here: it needs an authorization server and client
 * credentials; test/integration/auth*.test.ts runs the same flow against a loopback authorization server.
 */
// #region client-credentials
import { ClientCredentialsProvider } from '@modelcontextprotocol/client';
import { StreamableHttpTransport, TaskClient } from 'mcp-tasks-client';

const provider = new ClientCredentialsProvider({
  clientId: 'reporting-bot',
  clientSecret: process.env.CLIENT_SECRET ?? '',
});
const client = new TaskClient({
  transport: new StreamableHttpTransport('https://mcp.example.com/mcp', { auth: { provider } }),
});
await client.callTool('reindex_corpus', { documents: 5000 });
// #endregion client-credentials
