/**
 * The built package as users load it: every entry point imports (ESM) and requires (CJS), the public surface is
 * exactly what src/index.ts names, and errors thrown by one copy are `instanceof` the other's classes (STYLE 2, 14, 23).
 * `npm test` builds `dist` before running the tests.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RUNTIME } from '../architecture/main-exports.js';

const require = createRequire(import.meta.url);
const dist = new URL('../../dist/', import.meta.url);

const MAIN_EXPORTS = [...RUNTIME].sort();

describe('the built package', () => {
  it('exists (npm test runs tsup first)', () => {
    expect(existsSync(new URL('index.js', dist))).toBe(true);
  });

  it('exports exactly the public surface, the same from ESM and CJS', async () => {
    const esm = await import(new URL('index.js', dist).href);
    const cjs = require(new URL('index.cjs', dist).pathname);
    expect(Object.keys(esm).sort()).toEqual(MAIN_EXPORTS);
    expect(Object.keys(cjs).sort()).toEqual(MAIN_EXPORTS);
  });

  it('Node resolves the package to the node entry (undici underneath), with exactly the same surface', async () => {
    const pkg = require('../../package.json') as {
      exports: Record<string, Record<string, Record<string, Record<string, string>>>>;
    };
    expect(pkg.exports['.']?.node?.import?.default).toBe('./dist/node.js');
    expect(pkg.exports['.']?.node?.require?.default).toBe('./dist/node.cjs');
    const esm = await import(new URL('node.js', dist).href);
    const cjs = require(new URL('node.cjs', dist).pathname);
    expect(Object.keys(esm).sort()).toEqual(MAIN_EXPORTS);
    expect(Object.keys(cjs).sort()).toEqual(MAIN_EXPORTS);
  });

  it.each([
    ['testing/index', ['createTaskServer', 'TaskServerCore', 'InMemoryTransport', 'runStdioServer']],
    ['stdio', ['StdioTransport', 'ServerExitedError']],
    ['file-store', ['FileTaskStore']],
    ['redis-store', ['RedisTaskStore', 'LeaseLostError', 'StoreUnavailableError']],
    ['ai-sdk', ['createTaskTools', 'TaskToolError']],
    ['langchain', ['createTaskTools', 'TaskToolError']],
    ['openai-agents', ['TaskMcpServer', 'TaskToolError', 'taskToolErrorFunction']],
    [
      'tool-runtime',
      [
        'TaskToolRuntime',
        'TaskToolError',
        'questionOf',
        'inputNeededText',
        'hostLine',
        'hostText',
        'hostQuoted',
      ],
    ],
  ])('entry %s loads from ESM and CJS', async (entry, names) => {
    const esm = await import(new URL(`${entry}.js`, dist).href);
    const cjs = require(new URL(`${entry}.cjs`, dist).pathname);
    for (const name of names) {
      expect(typeof esm[name]).toBe('function');
      expect(typeof cjs[name]).toBe('function');
    }
  });

  it('errors of one copy are instanceof the other copy (Symbol.for brands)', async () => {
    const esm = await import(new URL('index.js', dist).href);
    const cjs = require(new URL('index.cjs', dist).pathname);
    const fromCjs = new cjs.TaskFailedError({ taskId: 't', status: 'failed', ttlMs: null });
    expect(fromCjs).toBeInstanceOf(esm.TaskFailedError);
    expect(fromCjs).toBeInstanceOf(esm.McpClientError);
    expect(fromCjs).not.toBeInstanceOf(esm.TaskCancelledError);
    expect(esm.isMcpClientError(fromCjs, 'TASK_FAILED')).toBe(true);
  });

  it('installing the package pulls none of the agent frameworks: each is an optional peer dependency', async () => {
    const pkg = require(new URL('../../package.json', import.meta.url).pathname) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    for (const framework of ['ai', '@langchain/core', '@openai/agents-core']) {
      expect(pkg.dependencies[framework]).toBeUndefined();
      expect(pkg.peerDependencies[framework]).toBeDefined();
      expect(pkg.peerDependenciesMeta[framework]?.optional).toBe(true);
    }
    expect(
      Object.keys(pkg.dependencies).filter((name) =>
        /^(ai|langchain|@langchain\/|@openai\/|@ai-sdk\/)/.test(name),
      ),
    ).toEqual([]);
  });

  it('the main entry imports no node: module', async () => {
    const { readFile } = await import('node:fs/promises');
    const files = [new URL('index.js', dist)];
    const text = (await Promise.all(files.map((f) => readFile(f, 'utf8')))).join('\n');
    const chunks = [...text.matchAll(/from\s+["'](\.\/[^"']+)["']/g)].map((m) => m[1] as string);
    const all = [text, ...(await Promise.all(chunks.map((c) => readFile(new URL(c, dist), 'utf8'))))].join(
      '\n',
    );
    expect(all).not.toMatch(/from\s+["']node:/);
  });
});
