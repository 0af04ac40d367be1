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
  it('lays env over all of process.env with inheritEnv: true and drops unset entries', () => {
    const env = childEnv({ env: { MCP_ERA_TEST: 'yes', PATH: undefined }, inheritEnv: true });
    expect(env.MCP_ERA_TEST).toBe('yes');
    expect(env).not.toHaveProperty('PATH');
    expect(env.HOME).toBe(process.env.HOME);
  });

  // issue 24 item 1 / CLIENT-REQUIREMENTS: local server compromise (security best practices)
  it('by default passes only the SDK allowlist (HOME, LOGNAME, PATH, SHELL, TERM, USER) plus env', () => {
    const parent = {
      HOME: '/home/me',
      PATH: '/bin',
      USER: 'me',
      SHELL: '/bin/sh',
      TERM: 'xterm',
      LOGNAME: 'me',
      AWS_SECRET_ACCESS_KEY: 'shh',
      SECRET_TOKEN: 'tok',
      BASH_FUNC_x: '() { :; }',
    };
    expect(childEnv({ env: { OWN: '1' } }, parent, 'linux')).toEqual({
      HOME: '/home/me',
      PATH: '/bin',
      USER: 'me',
      SHELL: '/bin/sh',
      TERM: 'xterm',
      LOGNAME: 'me',
      OWN: '1',
    });
    expect(childEnv({}, { Path: 'C:\\bin', SystemRoot: 'C:\\Windows', SECRET: 'x' }, 'win32')).toEqual({
      PATH: 'C:\\bin',
      SYSTEMROOT: 'C:\\Windows',
    });
  });

  it('a real child started through StdioTransport sees no secret of the parent', async () => {
    process.env.MCP_TASKS_TEST_SECRET = 'leak-me';
    try {
      const { StdioTransport } = await import('../../../src/stdio.js');
      const stderr: string[] = [];
      const transport = new StdioTransport({
        command: process.execPath,
        args: ['-e', 'console.error(JSON.stringify(Object.keys(process.env).sort()))'],
        env: { OWN: '1' },
        onStderr: (t) => stderr.push(t),
        restart: false,
      });
      await transport.start().catch(() => undefined);
      while (!stderr.join('').includes('\n')) await new Promise((r) => setTimeout(r, 20));
      await transport.close().catch(() => undefined);
      const keys = JSON.parse(stderr.join('').trim().split('\n')[0] ?? '[]') as string[];
      expect(keys).toContain('OWN');
      expect(keys).toContain('PATH');
      expect(keys).not.toContain('MCP_TASKS_TEST_SECRET');
    } finally {
      delete process.env.MCP_TASKS_TEST_SECRET;
    }
  });

  it('starts from nothing with inheritEnv: false', () => {
    expect(childEnv({ env: { ONLY: '1' }, inheritEnv: false })).toEqual({ ONLY: '1' });
  });
});
