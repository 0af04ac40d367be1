/**
 * The bridge started while its upstream is down, then the upstream starts on that port: the host, which saw
 * `tools/list` fail, is told `notifications/tools/list_changed` (and the prompts and resources ones, all three
 * advertised with `listChanged`) without asking, and its next `tools/list` has the upstream's tools. The official
 * SDK 1.x `Client` as the host, the bridge as a child process, the reference server over loopback HTTP.
 */
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { textResult } from 'mcp-tasks-client/testing';
import { describe, expect, it } from 'vitest';
import { bridgeTestFile, closedPort, referenceServer, sdkHost, until } from './bridge-helpers.js';

const { home, hosts, upstreams } = bridgeTestFile();

describe('the upstream comes back', () => {
  it('the host that saw tools/list fail is told the lists changed, and lists the tools', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const { client, stderr } = await sdkHost(url, home());
    hosts.push(client);
    const caps = client.getServerCapabilities();
    expect(caps?.tools).toEqual({ listChanged: true });
    expect(caps?.prompts).toEqual({ listChanged: true });
    expect(caps?.resources).toEqual({ listChanged: true });
    const told: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void told.push('tools'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void told.push('prompts'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void told.push('resources'));

    const failed = await client.listTools().catch((e: Error) => e);
    expect(failed).toBeInstanceOf(Error);
    expect(told).toEqual([]);

    upstreams.push(await referenceServer({ port }));
    await until(() => told.length === 3, 20_000);
    expect(told.sort()).toEqual(['prompts', 'resources', 'tools']);
    expect(stderr()).toContain(
      `mcp-tasks bridge: upstream ${url} answers again: the host was told to list its tools, prompts and resources again`,
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    // Told once: listing again is no news.
    await client.listTools();
    expect(told).toHaveLength(3);
  }, 60_000);

  it('a call the upstream did not answer: once it is back (with another tool), the host is told to list again', async () => {
    const port = await closedPort();
    const first = await referenceServer({ port });
    const { client } = await sdkHost(`http://127.0.0.1:${port}/mcp`, home());
    hosts.push(client);
    const told: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void told.push('tools'));
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('added_later');
    await first.close();

    const call = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(call.isError).toBe(true);
    expect((call.structuredContent as { code: string }).code).toMatch(/^(CALL_FAILED|OUTCOME_UNKNOWN)$/);
    expect(told).toEqual([]);

    upstreams.push(
      await referenceServer({
        port,
        catalog: {
          tools: [
            {
              name: 'added_later',
              description: 'a tool the restarted upstream has',
              inputSchema: { type: 'object', properties: {} },
              run: async () => textResult('new'),
            },
          ],
        },
      }),
    );
    await until(() => told.length > 0, 20_000);
    expect(told).toEqual(['tools']);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('added_later');
  }, 60_000);
});
