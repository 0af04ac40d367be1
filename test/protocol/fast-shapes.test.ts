/**
 * The exact-shape checks (src/protocol/fast-shapes.ts) against the zod schemas they shortcut: over many generated
 * values, hostile ones included (`__proto__` keys, extra keys, wrong types, huge and fractional numbers, control
 * characters, lone surrogates, long ids), a value the check accepts must be one the schema accepts with the same
 * output, and the parsers must give exactly what the schema path gives (same value, or same error class and message).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastResultResponse, fastTaskWire, isFastCallToolResult } from '../../src/protocol/fast-shapes.js';
import { JsonRpcResultResponseSchema } from '../../src/protocol/jsonrpc.js';
import { CallToolResultSchema } from '../../src/protocol/results.js';
import { parseCreateTaskResult, parseDetailedTask, parseWireWithSchema } from '../../src/protocol/tasks.js';
import { classifyMessage } from '../../src/transport/messages.js';

const RUNS = 3_000;

/** Adds an own `__proto__` key (as JSON.parse does) to an object. */
function withProtoKey(value: Record<string, unknown>, protoValue: unknown): Record<string, unknown> {
  return JSON.parse(
    `{"__proto__":${JSON.stringify(protoValue)},${JSON.stringify(value).slice(1)}`.replace(',}', '}'),
  ) as Record<string, unknown>;
}

const hostileString = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '',
    'working',
    't1',
    'a\u0000b',
    'x\u001b[31m',
    '\ud800',
    'id\ufffd',
    'é',
    '\u202e',
    'x'.repeat(1025),
    'é'.repeat(600),
  ),
);
const hostileNumber = fc.oneof(
  fc.integer(),
  fc.constantFrom(0, -0, -1, 1.5, 2 ** 53 - 1, 2 ** 53, -(2 ** 53), 1e300, -1e300, Number.MAX_VALUE),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const anyValue = fc.oneof(
  hostileString,
  hostileNumber,
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 2 }),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 3 });
/** Mostly absent. */
const rare = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
/** Mostly `good`, sometimes `bad`. */
const mostly = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) =>
  fc.oneof({ weight: 5, arbitrary: good }, { weight: 1, arbitrary: bad });

/** Task-like objects: mostly well-formed fields, sometimes wrong or hostile ones, extra keys and `__proto__`. */
const taskLike = fc
  .record(
    {
      taskId: mostly(
        fc.oneof(fc.constantFrom('t1', 'task-0123'), fc.string({ minLength: 1 })),
        fc.oneof(hostileString, anyValue),
      ),
      status: mostly(
        fc.constantFrom('working', 'input_required', 'completed', 'failed', 'cancelled'),
        anyValue,
      ),
      statusMessage: maybe(mostly(fc.string(), anyValue)),
      createdAt: maybe(mostly(fc.constant('2026-08-01T09:00:00Z'), anyValue)),
      lastUpdatedAt: maybe(mostly(fc.constant('2026-08-01T09:00:00Z'), anyValue)),
      ttlMs: maybe(
        mostly(fc.oneof(fc.constantFrom(null, 60_000), fc.nat()), fc.oneof(hostileNumber, anyValue)),
      ),
      ttl: rare(fc.oneof(hostileNumber, anyValue)),
      pollIntervalMs: maybe(mostly(fc.oneof(fc.constant(5_000), hostileNumber), anyValue)),
      pollInterval: rare(fc.oneof(hostileNumber, anyValue)),
      inputRequests: rare(
        fc.oneof(fc.constant({}), fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), anyValue),
      ),
      result: maybe(
        mostly(
          fc.oneof(fc.constant({ content: [] }), fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }))),
          anyValue,
        ),
      ),
      error: rare(fc.oneof(fc.constant({ code: -32000, message: 'x' }), anyValue)),
      resultType: maybe(fc.constantFrom('complete', 'task', 'other')),
    },
    { requiredKeys: [] },
  )
  .chain((task) =>
    fc
      .tuple(
        fc.constant(task),
        fc.dictionary(fc.string(), anyValue, { maxKeys: 3 }),
        fc.option(anyValue, { nil: undefined }),
      )
      .map(([t, extra, proto]) => {
        const clean = JSON.parse(JSON.stringify({ ...extra, ...t })) as Record<string, unknown>;
        return proto === undefined ? clean : withProtoKey(clean, proto);
      }),
  );

/** The outcome of a parser: its value, or its error's class and message. */
function outcome(parse: () => unknown): unknown {
  try {
    return { value: parse() };
  } catch (error) {
    return { error: (error as Error).constructor.name, message: (error as Error).message };
  }
}

describe('fast task shape vs the zod task schema', () => {
  it('accepts only what the schema accepts, with the same DetailedTask; parsers agree with the schema path everywhere', () => {
    let fastHits = 0;
    fc.assert(
      fc.property(taskLike, (value) => {
        const fast = fastTaskWire(value);
        if (fast) fastHits++;
        const viaSchema = outcome(() => parseWireWithSchema(value, 'invalid tasks/get result'));
        // The schema accepts what the check accepts; only the one rule after the schema (`completed` needs a `result`) may refuse it.
        if (fast && !('value' in (viaSchema as object)))
          expect((viaSchema as { message: string }).message).toMatch(/is "completed" but has no "result"/);
        expect(outcome(() => parseDetailedTask(value))).toStrictEqual(viaSchema);
        const created = outcome(() => parseCreateTaskResult(value as Record<string, unknown>));
        // parseCreateTaskResult goes through the same reader: compare with the schema path on its input
        expect(created).toStrictEqual(
          outcome(() => parseCreateTaskResultWithSchema(value as Record<string, unknown>)),
        );
      }),
      { numRuns: RUNS },
    );
    expect(fastHits).toBeGreaterThan(RUNS / 20); // the generator does reach the fast path
  });

  it('a well-formed poll reply is taken by the fast path, and its result object is the same object', () => {
    const wire = JSON.parse(
      `{"taskId":"t1","status":"completed","ttlMs":null,"pollIntervalMs":500,"result":{"__proto__":{"x":1},"content":[]}}`,
    ) as Record<string, unknown>;
    expect(fastTaskWire(wire)).toBe(wire);
    const task = parseDetailedTask(wire);
    expect(task.status === 'completed' && task.result).toBe(wire.result);
    expect(Object.keys(wire.result as object)).toEqual(['__proto__', 'content']);
  });

  it('hostile fields always go to the schema (typed errors unchanged)', () => {
    for (const bad of [
      { taskId: 'a\u0000b', status: 'working' },
      { taskId: 'x'.repeat(1025), status: 'working' },
      { taskId: '\ud800', status: 'working' },
      { taskId: 't', status: 'working', ttlMs: 2 ** 53 },
      { taskId: 't', status: 'working', ttlMs: -1 },
      { taskId: 't', status: 'working', ttlMs: 1.5 },
      { taskId: 't', status: 'done' },
      { taskId: 't', status: 'working', statusMessage: 7 },
      { taskId: 't', status: 'working', pollIntervalMs: 'soon' },
      { taskId: 't', status: 'input_required', inputRequests: { q: {} } },
    ]) {
      expect(fastTaskWire(bad)).toBeUndefined();
      expect(outcome(() => parseDetailedTask(bad))).toStrictEqual(
        outcome(() => parseWireWithSchema(bad, 'invalid tasks/get result')),
      );
    }
  });
});

/** parseCreateTaskResult with the schema path only: the same unwrapping, then the schema. */
function parseCreateTaskResultWithSchema(result: Record<string, unknown>): unknown {
  let source: unknown = result;
  if (typeof result.taskId !== 'string' && result.task !== null && typeof result.task === 'object')
    source = result.task;
  const status = (source as { status?: unknown }).status;
  // Only a `completed` without `result` stands in as `working` (its result is fetched); other statuses are kept.
  if (status === 'completed' && (source as { result?: unknown }).result === undefined)
    source = { ...(source as Record<string, unknown>), status: 'working' };
  return parseWireWithSchema(source, 'invalid CreateTaskResult');
}

const envelopeLike = fc
  .record(
    {
      jsonrpc: mostly(fc.constant('2.0'), anyValue),
      id: mostly(fc.constantFrom(1, 7, '7'), fc.oneof(hostileNumber, hostileString, anyValue)),
      result: mostly(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), anyValue),
      method: rare(anyValue),
      error: rare(anyValue),
    },
    { requiredKeys: [] },
  )
  .chain((env) =>
    fc.option(anyValue, { nil: undefined }).map((proto) => {
      const clean = JSON.parse(JSON.stringify(env)) as Record<string, unknown>;
      return proto === undefined ? clean : withProtoKey(clean, proto);
    }),
  );

describe('fast JSON-RPC result envelope vs the zod envelope schema', () => {
  it('accepts only what the schema accepts, with the same id and the same result object', () => {
    let hits = 0;
    fc.assert(
      fc.property(envelopeLike, (record) => {
        const fast = fastResultResponse(record);
        if (!fast) return;
        hits++;
        expect('method' in record || 'error' in record).toBe(false);
        const parsed = JsonRpcResultResponseSchema.safeParse(record);
        expect(parsed.success).toBe(true);
        expect(fast.id).toBe(parsed.data?.id);
        expect(fast.result).toBe(parsed.data?.result);
        expect(classifyMessage(record)).toStrictEqual({
          kind: 'result',
          id: parsed.data?.id,
          result: parsed.data?.result,
        });
      }),
      { numRuns: RUNS },
    );
    expect(hits).toBeGreaterThan(RUNS / 20);
  });

  it('an id zod refuses (2^53, 1.5) or a non-object result is classified by the schema: invalid', () => {
    for (const record of [
      { jsonrpc: '2.0', id: 2 ** 53, result: {} },
      { jsonrpc: '2.0', id: 1.5, result: {} },
      { jsonrpc: '2.0', id: 1, result: [] },
      { jsonrpc: '1.0', id: 1, result: {} },
    ]) {
      expect(fastResultResponse(record)).toBeUndefined();
      expect(classifyMessage(record)).toStrictEqual({
        kind: 'invalid',
        detail: 'malformed JSON-RPC response',
      });
    }
  });
});

const toolResultLike = fc
  .record(
    {
      content: mostly(
        fc.array(
          mostly(fc.record({ type: mostly(fc.constant('text'), anyValue), text: fc.string() }), anyValue),
          { maxLength: 3 },
        ),
        anyValue,
      ),
      resultType: maybe(mostly(fc.constantFrom('complete', 'task'), anyValue)),
      structuredContent: maybe(mostly(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 })), anyValue)),
      isError: maybe(mostly(fc.boolean(), anyValue)),
    },
    { requiredKeys: [] },
  )
  .chain((r) =>
    fc
      .option(anyValue, { nil: undefined })
      .map(
        (proto) =>
          (proto === undefined
            ? JSON.parse(JSON.stringify(r))
            : withProtoKey(JSON.parse(JSON.stringify(r)), proto)) as Record<string, unknown>,
      ),
  );

describe('fast tools/call result vs CallToolResultSchema', () => {
  it('accepts only what the schema accepts (which returns the value itself)', () => {
    let hits = 0;
    fc.assert(
      fc.property(toolResultLike, (value) => {
        if (!isFastCallToolResult(value)) return;
        hits++;
        const parsed = CallToolResultSchema.safeParse(value);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toBe(value);
      }),
      { numRuns: RUNS },
    );
    expect(hits).toBeGreaterThan(RUNS / 20);
  });
});
