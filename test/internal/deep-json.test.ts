/**
 * Data nested deeper than `JSON.stringify` and `structuredClone` can go: written exactly by the iterative serializer,
 * stored and read back by both task stores, never a `RangeError`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileTaskStore } from '../../src/file-store.js';
import {
  cloneJson,
  jsonFingerprint,
  MAX_PRETTY_DEPTH,
  nestsDeeperThan,
  stringifyIteratively,
  toJsonText,
} from '../../src/internal/deep-json.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';

const DEPTH = 200_000;
const deepText = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;

describe('deep JSON', () => {
  it('stringifies like JSON.stringify for ordinary data (members, escapes, undefined, non-finite numbers, __proto__ keys)', () => {
    const value = JSON.parse('{"a":[1,"x\\u001b\\"",null,true,{"__proto__":{"b":2}}],"c":{}}') as Record<
      string,
      unknown
    >;
    (value as Record<string, unknown>).u = undefined;
    (value as Record<string, unknown>).n = [Number.NaN, undefined];
    expect(stringifyIteratively(value)).toBe(JSON.stringify(value));
    expect(toJsonText({ a: [1] }, 2)).toBe(JSON.stringify({ a: [1] }, null, 2));
  });

  it(`writes data nested ${DEPTH} levels deep, where JSON.stringify throws a RangeError`, () => {
    const value = JSON.parse(deepText) as unknown;
    expect(() => JSON.stringify(value)).toThrow(RangeError);
    expect(nestsDeeperThan(value, MAX_PRETTY_DEPTH)).toBe(true);
    expect(toJsonText(value, 2)).toBe(deepText);
    expect(stringifyIteratively(cloneJson(value))).toBe(deepText);
  });

  it('FileTaskStore and MemoryTaskStore keep a record whose result is nested that deep', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deep-store-'));
    try {
      const result = { content: [], structuredContent: { d: JSON.parse(deepText) as unknown } };
      const record = {
        version: 1 as const,
        server: 'http://127.0.0.1:1/mcp',
        method: 'tools/call',
        taskId: 't1',
        localCreatedAt: 1,
        ttlMs: null,
        status: 'completed' as const,
        answeredKeys: [],
        updatedAt: 1,
        outcome: { status: 'completed' as const, result },
      };
      for (const store of [new FileTaskStore(dir), new MemoryTaskStore()]) {
        await store.put(record);
        const back = await store.get('t1');
        expect(
          stringifyIteratively(
            (back?.outcome as unknown as { result: { structuredContent: unknown } }).result.structuredContent,
          ),
        ).toBe(`{"d":${deepText}}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('jsonFingerprint', () => {
  it('is the same for the same data whatever its key order or undefined members, and differs for other data', () => {
    const a = { name: 'deploy', arguments: { version: '7.3.0', dry: false, tags: ['a', 'b'] } };
    const b = {
      arguments: { tags: ['a', 'b'], dry: false, version: '7.3.0', note: undefined },
      name: 'deploy',
    };
    expect(jsonFingerprint(a)).toBe(jsonFingerprint(b));
    const others = [
      { ...a, arguments: { ...a.arguments, version: '7.3.1' } },
      { ...a, arguments: { ...a.arguments, tags: ['b', 'a'] } },
      { ...a, arguments: { ...a.arguments, dry: 'false' } },
      [1, 23],
      [12, 3],
      { '': null },
      {},
      [],
      null,
    ];
    const prints = new Set([a, ...others].map(jsonFingerprint));
    expect(prints.size).toBe(others.length + 1);
    expect(jsonFingerprint(a)).toBe(jsonFingerprint(a) & 0x7fffffff); // a small integer
  });

  it('walks data nested 100,000 levels deep without a RangeError', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = i % 2 === 0 ? [deep] : { k: deep };
    expect(jsonFingerprint(deep)).toBe(jsonFingerprint(cloneJson(deep)));
  });
});
