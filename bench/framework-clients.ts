/**
 * `npx tsx bench/framework-clients.ts [--long]`: what each agent framework's OWN MCP client does with a task tool
 * today, next to what this package's adapter does with the same tool. Not part of `npm test` (slow, and it records
 * behaviour rather than asserting it). Every server runs on loopback; every call is bounded by our own timer, so a
 * hang shows up as "no answer within N s". The output is the table in docs/hosts.md.
 *
 * Servers and tools:
 * - the reference server (MCP 2026-07-28 + Tasks extension), `reindex_corpus {documents: 5000}` (10 s, a task);
 * - `@modelcontextprotocol/server-everything` (2025-11-25, Streamable HTTP), `simulate-research-query`, whose
 *   `execution.taskSupport` is `"required"`;
 * - with `--long`: server-everything's `trigger-long-running-operation {duration: 70, steps: 7}` (70 s inline).
 *
 * Clients: `@ai-sdk/mcp` `createMCPClient` (AI SDK 6's MCP client), `@langchain/mcp-adapters`
 * `MultiServerMCPClient`, `@openai/agents-core` `MCPServerStreamableHttp`, and this package's AI SDK adapter
 * (`createTaskTools` on a `TaskClient`; the three adapters share one runtime).
 */
import { createMCPClient } from '@ai-sdk/mcp';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { MCPServerStreamableHttp, setTracingDisabled } from '@openai/agents-core';
import { createTaskTools } from '../src/adapters/ai-sdk/index.js';
import { StreamableHttpTransport, TaskClient } from '../src/index.js';
import { createTaskServer } from '../src/testing/index.js';
import { startEverythingHttp } from '../test/legacy/servers.js';

setTracingDisabled(true);
const LONG = process.argv.includes('--long');
const BOUND_MS = LONG ? 100_000 : 30_000;

interface Row {
  client: string;
  server: string;
  tool: string;
  outcome: string;
  seconds: string;
}
const rows: Row[] = [];

/** Runs `work` with our own bound; reports what happened, verbatim. */
async function observe(
  client: string,
  server: string,
  tool: string,
  work: () => Promise<unknown>,
): Promise<void> {
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<string>(
    (resolve) =>
      (timer = setTimeout(() => resolve(`no answer within ${BOUND_MS / 1000} s (our timer)`), BOUND_MS)),
  );
  const outcome = await Promise.race([
    work().then(
      (value) => `resolved: ${truncate(JSON.stringify(value))}`,
      (error: unknown) =>
        `rejected: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    ),
    bound,
  ]);
  clearTimeout(timer);
  const row = {
    client,
    server,
    tool,
    outcome: outcome.replace(/\s+/g, ' '),
    seconds: ((Date.now() - started) / 1000).toFixed(1),
  };
  rows.push(row);
  console.log(JSON.stringify(row));
}

const truncate = (text: string | undefined): string =>
  text === undefined ? 'undefined' : text.length > 400 ? `${text.slice(0, 400)}…` : text;

async function aiSdk(url: string, tool: string, args: Record<string, unknown>): Promise<unknown> {
  const client = await createMCPClient({ transport: { type: 'http', url } });
  try {
    const tools = await client.tools();
    const t = tools[tool] as { execute: (a: unknown, o: unknown) => Promise<unknown> } | undefined;
    if (!t) return `tool ${tool} not listed; listed: ${Object.keys(tools).join(', ')}`;
    return await t.execute(args, { toolCallId: 'c1', messages: [] });
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function langchain(url: string, tool: string, args: Record<string, unknown>): Promise<unknown> {
  const client = new MultiServerMCPClient({
    mcpServers: { server: { url, transport: 'http' } },
    useStandardContentBlocks: true,
  });
  try {
    const tools = await client.getTools();
    const t = tools.find((x) => x.name === tool || x.name.endsWith(`__${tool}`));
    if (!t) return `tool ${tool} not listed; listed: ${tools.map((x) => x.name).join(', ')}`;
    return await t.invoke(args);
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function agents(url: string, tool: string, args: Record<string, unknown>): Promise<unknown> {
  const server = new MCPServerStreamableHttp({ url, name: 'server' });
  try {
    await server.connect();
    return await server.callTool(tool, args);
  } finally {
    await server.close().catch(() => undefined);
  }
}

async function adapter(url: string, tool: string, args: Record<string, unknown>): Promise<unknown> {
  const client = new TaskClient({ transport: new StreamableHttpTransport(url) });
  try {
    const tools = await createTaskTools(client, { include: [tool] });
    const t = tools[tool] as { execute: (a: unknown, o: unknown) => Promise<unknown> } | undefined;
    if (!t) return `tool ${tool} not listed`;
    return await t.execute(args, { toolCallId: 'c1', messages: [] });
  } finally {
    await client.close();
  }
}

const CLIENTS = [
  ['@ai-sdk/mcp 1.0.102 createMCPClient', aiSdk],
  ['@langchain/mcp-adapters 1.1.4 MultiServerMCPClient', langchain],
  ['@openai/agents-core 0.14.3 MCPServerStreamableHttp', agents],
  ['mcp-tasks-client adapter (createTaskTools)', adapter],
] as const;

const reference = await createTaskServer({});
const everything = await startEverythingHttp();
try {
  for (const [name, run] of CLIENTS) {
    await observe(name, 'reference 2026-07-28', 'reindex_corpus {documents: 5000}', () =>
      run(reference.url, 'reindex_corpus', { documents: 5000 }),
    );
    await observe(name, 'server-everything 2025-11-25', 'simulate-research-query', () =>
      run(everything.url, 'simulate-research-query', { topic: 'tasks' }),
    );
    if (LONG)
      await observe(name, 'server-everything 2025-11-25', 'trigger-long-running-operation 70 s', () =>
        run(everything.url, 'trigger-long-running-operation', { duration: 70, steps: 7 }),
      );
  }
} finally {
  await everything.stop();
  await reference.close();
}

console.log('\n| client | server | tool | what happened (verbatim) | s |\n| --- | --- | --- | --- | --- |');
for (const r of rows)
  console.log(
    `| ${r.client} | ${r.server} | ${r.tool} | ${r.outcome.replaceAll('|', '\\|')} | ${r.seconds} |`,
  );
