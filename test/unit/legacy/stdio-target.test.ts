/**
 * The stdio legacy target (issue 4): the SDK's stdio transport started with the modern transport's command line and
 * environment, and the probe's process released.
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { childEnv } from '../../../src/internal/child-env.js';
import { stdioLegacyTarget, type StdioLegacyOptions } from '../../../src/legacy/stdio-target.js';
import type { StdioTransportOptions } from '../../../src/transport/stdio.js';

describe('stdioLegacyTarget', () => {
  it('takes the options of StdioTransport as they are (the one-line hookup type-checks)', () => {
    expectTypeOf<StdioTransportOptions>().toExtend<StdioLegacyOptions>();
  });

  it('probes with server/discover and builds an unstarted SDK stdio transport; the release hook runs once', async () => {
    const release = vi.fn(async () => undefined);
    const target = stdioLegacyTarget({ command: process.execPath, args: ['server.js', '--stdio'], cwd: '/tmp' }, release);
    expect(target.probe).toBe('discover');
    expect(release).not.toHaveBeenCalled();
    const transport = await target.createSdkTransport();
    expect(transport).toBeInstanceOf(StdioClientTransport);
    expect((transport as StdioClientTransport).pid).toBeNull(); // the SDK starts it on connect
    expect(release).toHaveBeenCalledTimes(1);
  });

  it('a failing release hook does not fail the legacy session', async () => {
    const target = stdioLegacyTarget({ command: 'node' }, () => Promise.reject(new Error('already closed')));
    await expect(target.createSdkTransport()).resolves.toBeInstanceOf(StdioClientTransport);
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
