/**
 * Transports describe what they reach as data, and only src/legacy/ turns a target into a 2025-11-25 session: the
 * stdio target opens a channel to a new process with the same command line and environment (after releasing the
 * probe's process), the HTTP target is reached by our own session channel.
 */
import { describe, expect, it, vi } from 'vitest';
import { childEnv } from '../../src/internal/child-env.js';
import { LegacyBackend } from '../../src/legacy/legacy-backend.js';
import { StdioChannel } from '../../src/transport/stdio-channel.js';
import { StdioTransport } from '../../src/transport/stdio.js';
import { StreamableHttpTransport } from '../../src/transport/streamable-http.js';
import { probeOf } from '../../src/transport/transport.js';

const host = {
  clientInfo: undefined,
  handlers: undefined,
  emitInput: () => undefined,
  listenerCount: () => 0,
  warning: () => undefined,
};

describe('targets', () => {
  it('a StdioTransport describes its command line and opens unstarted channels; the era is probed with server/discover', () => {
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
    const channel = target.openChannel?.();
    expect(channel).toBeInstanceOf(StdioChannel);
    expect((channel as StdioChannel).pid).toBeUndefined(); // started by the session
  });

  it('a StreamableHttpTransport describes its endpoint; the first request tells the era', () => {
    const target = new StreamableHttpTransport('http://127.0.0.1:1/mcp', { headers: { a: '1' } }).target;
    expect(target).toMatchObject({ kind: 'http', headers: { a: '1' } });
    expect(String(target.url)).toBe('http://127.0.0.1:1/mcp');
    expect(probeOf(target)).toBe('request');
  });

  it('the release hook runs once before the stdio channel starts; its failure does not fail the session (which fails on its own here: no such command)', async () => {
    const release = vi.fn(() => Promise.reject(new Error('already closed')));
    const target = new StdioTransport({ command: '/nonexistent/legacy-server' }).target;
    const error = await LegacyBackend.connect(target, host, release).catch((e: unknown) => e);
    expect(release).toHaveBeenCalledTimes(1);
    expect(error).toMatchObject({ code: 'SERVER_EXITED' });
  });

  it('a stdio target that cannot open a channel fails with a TypeError naming StdioTransport', async () => {
    await expect(LegacyBackend.connect({ kind: 'stdio', command: 'node' }, host)).rejects.toThrow(
      /reached through a StdioTransport/,
    );
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
