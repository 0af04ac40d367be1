/**
 * The `serverKey` option of both transports: validated, and the identity the client's task records carry (so an
 * application such as the CLI can find the server again from a record).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryTaskStore, StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { StdioTransport } from '../../src/stdio.js';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import '../helpers/no-jitter.js';

let server: TaskServer;
beforeAll(async () => {
  server = await createTaskServer({ pollIntervalMs: 20, inlineBudgetMs: 1 });
});
afterAll(() => server.close());

describe('transport serverKey option', () => {
  it('defaults: the endpoint without query for HTTP, stdio:<command line> for stdio', () => {
    expect(new StreamableHttpTransport('http://127.0.0.1:9/mcp?x=1').serverKey).toBe(
      'http://127.0.0.1:9/mcp',
    );
    expect(new StdioTransport({ command: 'node', args: ['s.js'] }).serverKey).toBe('stdio:node s.js');
  });

  it('is used as given, and refused (TypeError naming the transport) when empty, too long or with control characters', () => {
    expect(
      new StreamableHttpTransport('http://127.0.0.1:9/mcp', { serverKey: 'mcp-config:///a/b' }).serverKey,
    ).toBe('mcp-config:///a/b');
    expect(new StdioTransport({ command: 'node', serverKey: 'stdio:///%2Ftmp/node' }).serverKey).toBe(
      'stdio:///%2Ftmp/node',
    );
    for (const bad of ['', 'a\nb', 'x\u001b[2J', 'k'.repeat(8193), 42]) {
      expect(
        () => new StreamableHttpTransport('http://127.0.0.1:9/mcp', { serverKey: bad as string }),
      ).toThrow(/StreamableHttpTransport: serverKey/);
      expect(() => new StdioTransport({ command: 'node', serverKey: bad as string })).toThrow(
        /StdioTransport/,
      );
    }
  });

  it('is the server the client records a task under, and finds the record again', async () => {
    const store = new MemoryTaskStore();
    const serverKey = 'mcp-config:///%2Ftmp%2Fmcp.json/ref';
    const client = new TaskClient({
      transport: new StreamableHttpTransport(server.url, { serverKey }),
      store,
      polling: { minIntervalMs: 10 },
    });
    try {
      const start = await client.startTool('reindex_corpus', { documents: 200 });
      expect(start.resultType).toBe('task');
      if (start.resultType !== 'task') return;
      await start.task.result();
      await client.close(); // queued record writes land first
      const record = await store.get(start.task.taskId, serverKey);
      expect(record?.server).toBe(serverKey);
      expect(record?.outcome?.status).toBe('completed');
      expect(await store.get(start.task.taskId, `${new URL(server.url).origin}/mcp`)).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});
