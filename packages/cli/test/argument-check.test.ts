/**
 * Arguments checked against the tool's `inputSchema` before anything is sent (child processes, reference server
 * over loopback HTTP): a missing required argument or a mistyped name is a usage error (exit 2) naming it with the
 * closest property name; nothing the schema allows is refused. A mistyped config server name gets the closest name.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkToolArguments } from '../src/schema-check.js';
import { useCliServer } from './fixtures.js';
import { runCli } from './helpers.js';

const env = useCliServer();

describe('tool arguments against the inputSchema', () => {
  it('echo txt=hi: exit 2 naming the missing "text" and the unknown "txt" with "text" suggested; nothing called', async () => {
    const before = env.server.stats.count('tools/call');
    const run = await runCli(['call', env.server.url, 'echo', 'txt=hi'], env.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'echo: missing required argument "text"; unknown argument "txt" (did you mean "text"?)',
    );
    expect(run.stderr).not.toContain('-32602');
    expect(env.server.stats.count('tools/call')).toBe(before);
  });

  it('echo with no arguments: exit 2 naming the missing "text"', async () => {
    const run = await runCli(['call', env.server.url, 'echo'], env.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('echo: missing required argument "text"; it needs text=…');
  });

  it('an extra argument the schema allows (no additionalProperties: false) is sent as given', async () => {
    const run = await runCli(['call', env.server.url, 'echo', 'text=hi', 'extra=1'], env.home);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('hi');
  });

  it('a closed schema refuses an unknown name with the closest one; an open one or none refuses nothing extra', () => {
    const closed = {
      type: 'object',
      properties: { documents: { type: 'number' }, label: { type: 'string' } },
      additionalProperties: false,
    };
    expect(() => checkToolArguments('reindex', { documnets: 3 }, closed)).toThrow(
      'reindex: unknown argument "documnets" (did you mean "documents"?)',
    );
    expect(() => checkToolArguments('reindex', { documents: 3 }, closed)).not.toThrow();
    expect(() =>
      checkToolArguments('reindex', { anything: 1 }, { type: 'object', properties: {} }),
    ).not.toThrow();
    expect(() => checkToolArguments('reindex', { anything: 1 }, undefined)).not.toThrow();
    expect(() => checkToolArguments('x', { a: 1 }, { type: 'object', required: ['b', 'c'] })).toThrow(
      'x: missing required arguments "b", "c"',
    );
  });
});

describe('server names from a config file', () => {
  it('a mistyped name suggests the closest server name (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-config-'));
    const config = join(dir, 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { ref: { url: env.server.url }, other: { url: env.server.url } } }),
    );
    const run = await runCli(['call', 'rfe', 'echo', 'text=hi', '--config', config], env.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('did you mean "ref"?');
  });
});
