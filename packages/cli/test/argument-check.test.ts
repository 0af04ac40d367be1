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

  it('reindex_corpus documents=abc: exit 2 (not 8) naming the argument and the integer the schema asks for; nothing called', async () => {
    const before = env.server.stats.count('tools/call');
    const run = await runCli(['call', env.server.url, 'reindex_corpus', 'documents=abc'], env.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'Usage error: reindex_corpus: argument "documents" must be an integer, got "abc" (a string) (nothing was called',
    );
    expect(run.stderr).not.toContain('-32602');
    expect(env.server.stats.count('tools/call')).toBe(before);
    const fraction = await runCli(['call', env.server.url, 'reindex_corpus', 'documents=1.5'], env.home);
    expect(fraction.code).toBe(2);
    expect(fraction.stderr).toContain('argument "documents" must be an integer, got 1.5 (a number)');
  });

  it("each value is checked against the JSON type its property declares; undeclared or unknown types are the server's to judge", () => {
    const schema = {
      type: 'object',
      properties: {
        count: { type: 'integer' },
        ratio: { type: 'number' },
        name: { type: 'string' },
        flag: { type: 'boolean' },
        tags: { type: 'array' },
        spec: { type: 'object' },
        maybe: { type: ['integer', 'null'] },
        free: {},
        odd: { type: 'decimal' },
      },
    };
    const ok = {
      count: 3,
      ratio: 0.5,
      name: 'x',
      flag: false,
      tags: [],
      spec: {},
      maybe: null,
      free: 'a',
      odd: 'b',
    };
    expect(() => checkToolArguments('t', ok, schema)).not.toThrow();
    expect(() => checkToolArguments('t', { ratio: 'fast' }, schema)).toThrow(
      't: argument "ratio" must be a number, got "fast" (a string)',
    );
    expect(() => checkToolArguments('t', { flag: 'yes' }, schema)).toThrow(
      'argument "flag" must be a boolean (true or false), got "yes" (a string)',
    );
    expect(() => checkToolArguments('t', { maybe: 'x' }, schema)).toThrow(
      'argument "maybe" must be an integer or null, got "x" (a string)',
    );
    expect(() => checkToolArguments('t', { name: 3, tags: {} }, schema)).toThrow(
      't: argument "name" must be a string, got 3 (a number); argument "tags" must be a JSON array, got {} (an object)',
    );
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
