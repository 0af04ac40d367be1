/**
 * The environment a stdio server starts with: by default only the allowlist the official SDK uses (HOME, LOGNAME,
 * PATH, SHELL, TERM, USER; its Windows list on win32) plus the caller's `env`, so a server named in a cloned
 * repository's config never sees the parent's secrets; `inheritEnv: true` passes everything.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/security_best_practices, local MCP server compromise)
 */
import { describe, expect, it } from 'vitest';
import { childEnv } from '../../src/internal/child-env.js';

describe('childEnv', () => {
  it('lays env over all of process.env with inheritEnv: true and drops unset entries', () => {
    const env = childEnv({ env: { MCP_ERA_TEST: 'yes', PATH: undefined }, inheritEnv: true });
    expect(env.MCP_ERA_TEST).toBe('yes');
    expect(env).not.toHaveProperty('PATH');
    expect(env.HOME).toBe(process.env.HOME);
  });

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
      const { StdioTransport } = await import('../../src/stdio.js');
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
