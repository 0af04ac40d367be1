/**
 * `discover()` returns the server's name and version from `_meta['io.modelcontextprotocol/serverInfo']`.
 *
 * Spec: modelcontextprotocol/modelcontextprotocol docs/specification/2026-07-28/server/discover.mdx § Response
 * ("`_meta['io.modelcontextprotocol/serverInfo']`: Name and version of the server software. Servers SHOULD include
 * this field.") and schema/2026-07-28/schema.ts `DiscoverResult` (no top-level `serverInfo`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { ScriptedTransport } from '../helpers/scripted-transport.js';

const BASE = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};
const KEY = 'io.modelcontextprotocol/serverInfo';

async function discoverWith(result: Record<string, unknown>) {
  const client = new TaskClient({ transport: new ScriptedTransport(() => result) });
  try {
    return await client.discover();
  } finally {
    await client.close();
  }
}

let server: TaskServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('discover(): serverInfo from _meta (server/discover.mdx § Response)', () => {
  it('"_meta[\'io.modelcontextprotocol/serverInfo\']: Name and version of the server software" → serverInfo', async () => {
    const info = await discoverWith({
      ...BASE,
      _meta: { [KEY]: { name: 'ExampleServer', version: '1.0.0', title: 'Example' } },
    });
    expect(info.serverInfo).toEqual({ name: 'ExampleServer', version: '1.0.0', title: 'Example' });
  });

  it('_meta wins over a top-level serverInfo (an older draft); the top-level one is the fallback', async () => {
    expect(
      (
        await discoverWith({
          ...BASE,
          serverInfo: { name: 'old', version: '0' },
          _meta: { [KEY]: { name: 'new', version: '1' } },
        })
      ).serverInfo,
    ).toEqual({ name: 'new', version: '1' });
    expect((await discoverWith({ ...BASE, serverInfo: { name: 'old', version: '0' } })).serverInfo).toEqual({
      name: 'old',
      version: '0',
    });
  });

  it('a malformed serverInfo (display only) is left out instead of failing discover()', async () => {
    const info = await discoverWith({ ...BASE, serverInfo: 'x', _meta: { [KEY]: { name: 42 } } });
    expect(info.serverInfo).toBeUndefined();
    expect(info.supportedVersions).toEqual(['2026-07-28']);
    expect((await discoverWith({ ...BASE })).serverInfo).toBeUndefined();
  });

  it('against the reference server over loopback HTTP (which sends it only in _meta)', async () => {
    server = await createTaskServer();
    const client = new TaskClient({ transport: new StreamableHttpTransport(server.url) });
    const info = await client.discover();
    expect(info.serverInfo?.name).toBe('mcp-tasks-reference-server');
    expect(typeof info.serverInfo?.version).toBe('string');
    await client.close();
  });
});
