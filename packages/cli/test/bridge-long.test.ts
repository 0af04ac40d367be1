/**
 * The one real-time bridge test: the reference server's 70 s task (35 000 documents × 2 ms, no `--time-scale`)
 * through the bridge, to the SDK 1.x `Client` with its default 60 s request timeout and `resetTimeoutOnProgress`:
 * the bridge's progress (each `statusMessage`, and a keep-alive every 10 s) keeps the host waiting past 60 s.
 */
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { TaskServer } from 'mcp-tasks-client/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { referenceServer, sdkHost } from './bridge-helpers.js';
import { ensureCliBuilt, killLeftovers, tempHome } from './helpers.js';

let server: TaskServer;

beforeAll(async () => {
  await ensureCliBuilt();
  server = await referenceServer({ pollIntervalMs: 1_000 });
}, 120_000);

afterAll(async () => {
  await server.close();
  await killLeftovers();
});

it('follows a real 70 s task past the host 60 s timeout with progress', async () => {
  const { client } = await sdkHost(server.url, tempHome());
  try {
    const messages: string[] = [];
    const started = Date.now();
    const result = await client.callTool(
      { name: 'reindex_corpus', arguments: { documents: 35_000 } },
      CallToolResultSchema,
      { resetTimeoutOnProgress: true, onprogress: (p) => void (p.message && messages.push(p.message)) },
    );
    expect(Date.now() - started).toBeGreaterThan(60_000);
    expect(result.content).toEqual([{ type: 'text', text: 'Indexed 35000 documents' }]);
    expect(messages).toContain('indexed 17500/35000');
  } finally {
    await client.close();
  }
}, 150_000);
