/**
 * Only src/legacy/ builds the official SDK's transports, from the target a transport describes: the stdio target
 * starts the SDK's stdio transport with the same command line and environment, and releases the probe's process.
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, vi } from 'vitest';
import { childEnv } from '../../../src/internal/child-env.js';
import { createSdkTransport } from '../../../src/legacy/sdk-transport.js';
import { StreamableHttpTransport } from '../../../src/transport/streamable-http.js';
import { StdioTransport } from '../../../src/transport/stdio.js';
import { probeOf } from '../../../src/transport/transport.js';

describe('createSdkTransport (transports describe their target)', () => {
  it('a StdioTransport describes its command line; the era is probed with server/discover', () => {
    const target = new StdioTransport({
      command: process.execPath,
      args: ['server.js', '--stdio'],
      cwd: '/tmp',
    }).target;
    expect(target).toMatchObject({
      kind: 'stdio',
      command: process.execPath,
      args: ['server.js', '--stdio'],
      cwd: '/tmp',
    });
    expect(probeOf(target)).toBe('discover');
  });

  it('a StreamableHttpTransport describes its endpoint; the first request tells the era', () => {
    const target = new StreamableHttpTransport('http://127.0.0.1:1/mcp', { headers: { a: '1' } }).target;
    expect(target).toMatchObject({ kind: 'http', headers: { a: '1' } });
    expect(String(target.url)).toBe('http://127.0.0.1:1/mcp');
    expect(probeOf(target)).toBe('request');
  });

  it('builds an unstarted SDK stdio transport; the release hook runs once', async () => {
    const release = vi.fn(async () => undefined);
    const transport = await createSdkTransport(
      { kind: 'stdio', command: process.execPath, args: ['server.js', '--stdio'], cwd: '/tmp' },
      release,
    );
    expect(transport).toBeInstanceOf(StdioClientTransport);
    expect((transport as StdioClientTransport).pid).toBeNull(); // the SDK starts it on connect
    expect(release).toHaveBeenCalledTimes(1);
  });

  it('a failing release hook does not fail the legacy session', async () => {
    await expect(
      createSdkTransport({ kind: 'stdio', command: 'node' }, () =>
        Promise.reject(new Error('already closed')),
      ),
    ).resolves.toBeInstanceOf(StdioClientTransport);
  });

  it('builds the SDK HTTP transport for an http target (nothing is sent)', async () => {
    const transport = await createSdkTransport({
      kind: 'http',
      url: new URL('http://127.0.0.1:1/mcp'),
      headers: { a: '1' },
    });
    expect(transport).toBeInstanceOf(StreamableHTTPClientTransport);
  });
});

describe('childEnv', () => {
  it('lays env over process.env and drops unset entries', () => {
    const env = childEnv({ env: { MCP_ERA_TEST: 'yes', PATH: undefined } });
    expect(env.MCP_ERA_TEST).toBe('yes');
    expect(env).not.toHaveProperty('PATH');
    expect(env.HOME).toBe(process.env.HOME);
  });

  it('starts from nothing with inheritEnv: false', () => {
    expect(childEnv({ env: { ONLY: '1' }, inheritEnv: false })).toEqual({ ONLY: '1' });
  });
});
