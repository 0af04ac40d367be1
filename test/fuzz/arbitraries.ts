/**
 * fast-check generators of server output: valid shapes (creation results, DetailedTasks, MRTR results, JSON-RPC
 * envelopes) and mutations of them (a field dropped, replaced by arbitrary JSON, an unknown field added, a nested
 * wrapper), plus SSE byte streams split at arbitrary points. Shared by the fuzz tests.
 */
import fc from 'fast-check';
import { McpClientError } from '../../src/index.js';

/** Outcome of one fuzzed call: a value, a typed error, anything else (a bug), or still pending (a bug). */
export type Outcome =
  | { kind: 'value'; value: unknown }
  | { kind: 'typed'; error: McpClientError }
  | { kind: 'untyped'; error: unknown }
  | { kind: 'pending' };

/** Classifies how `promise` settles. */
export function observe(promise: Promise<unknown>): { readonly outcome: Outcome } {
  const box: { outcome: Outcome } = { outcome: { kind: 'pending' } };
  promise.then(
    (value) => (box.outcome = { kind: 'value', value }),
    (error: unknown) =>
      (box.outcome = error instanceof McpClientError ? { kind: 'typed', error } : { kind: 'untyped', error }),
  );
  return box;
}

/** Fails the property with a readable message unless the outcome is a value or a typed error. */
export function assertSettledTyped(outcome: Outcome, what: string): void {
  if (outcome.kind === 'pending') throw new Error(`${what}: still pending after the input ended`);
  if (outcome.kind === 'untyped')
    throw new Error(`${what}: untyped error ${String((outcome.error as Error)?.stack ?? outcome.error)}`);
}

/** Arbitrary JSON, small. */
export const json = fc.jsonValue({ maxDepth: 3 });

/** Numbers a server might put in `ttlMs` / `pollIntervalMs`, good and bad. */
export const msValue = fc.oneof(
  fc.integer({ min: 0, max: 5_000 }),
  fc.constantFrom(0, -1, 1, 1e12, 2 ** 53, Number.MAX_SAFE_INTEGER),
  fc.double({ noNaN: false }),
  fc.constant(null),
  fc.string({ maxLength: 4 }),
);

const statusArb = fc.oneof(
  fc.constantFrom('working', 'input_required', 'completed', 'failed', 'cancelled'),
  fc.string({ maxLength: 6 }),
);

/** An embedded input request, mostly well-formed. */
export const inputRequest = fc.oneof(
  fc.record({
    method: fc.constant('elicitation/create'),
    params: fc.record({
      message: fc.string({ maxLength: 10 }),
      requestedSchema: fc.constant({ type: 'object', properties: { confirm: { type: 'boolean' } } }),
    }),
  }),
  fc.record({
    method: fc.constant('sampling/createMessage'),
    params: fc.record({ messages: fc.constant([]), maxTokens: fc.nat(100) }),
  }),
  fc.record({ method: fc.constant('roots/list'), params: fc.constant({}) }),
  fc.record({ method: fc.string({ maxLength: 8 }), params: json }),
);

export const inputRequests = fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), inputRequest, {
  maxKeys: 3,
});

/** A `CallToolResult`, mostly valid. */
export const callToolResult = fc.oneof(
  fc.record({
    content: fc.array(fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 8 }) }), {
      maxLength: 2,
    }),
    isError: fc.option(fc.boolean(), { nil: undefined }),
  }),
  fc.dictionary(fc.string({ maxLength: 5 }), json, { maxKeys: 3 }),
);

export const jsonRpcError = fc.record({
  code: fc.oneof(fc.integer({ min: -32800, max: -32000 }), fc.constant(-32602)),
  message: fc.string({ maxLength: 10 }),
  data: fc.option(json, { nil: undefined }),
});

/** A task shape (`CreateTaskResult` / DetailedTask fields), each field optional and possibly of the wrong type. */
export function taskShape(taskId: fc.Arbitrary<unknown>): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      resultType: fc.constantFrom('task', 'complete', 'input_required', 'bogus'),
      taskId,
      status: statusArb,
      statusMessage: fc.oneof(fc.string({ maxLength: 8 }), json),
      createdAt: fc.oneof(fc.constant('2026-08-01T09:00:00Z'), fc.string({ maxLength: 6 })),
      lastUpdatedAt: fc.constant('2026-08-01T09:00:01Z'),
      ttlMs: msValue,
      pollIntervalMs: msValue,
      inputRequests: fc.oneof(inputRequests, json),
      result: fc.oneof(callToolResult, json),
      error: fc.oneof(jsonRpcError, json),
    },
    { requiredKeys: ['taskId', 'status'] },
  );
}

/** A well-formed DetailedTask / CreateTaskResult body for `taskId`, each status with its own fields. */
export function validTask(
  taskId: string,
  resultType: 'task' | 'complete',
): fc.Arbitrary<Record<string, unknown>> {
  const base = fc.record(
    {
      ttlMs: fc.oneof(fc.nat(120_000), fc.constant(null)),
      pollIntervalMs: fc.nat(2_000),
      statusMessage: fc.string({ maxLength: 8 }),
      createdAt: fc.constant('2026-08-01T09:00:00Z'),
      lastUpdatedAt: fc.constant('2026-08-01T09:00:01Z'),
    },
    { requiredKeys: ['ttlMs'] },
  );
  const variant = fc.oneof(
    fc.constant({ status: 'working' }),
    inputRequests.map((r) => ({ status: 'input_required', inputRequests: r })),
    fc
      .record({
        content: fc.array(fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 8 }) }), {
          maxLength: 2,
        }),
        isError: fc.boolean(),
      })
      .map((result) => ({ status: 'completed', result })),
    jsonRpcError.map((error) => ({ status: 'failed', error })),
    fc.constant({ status: 'cancelled' }),
  );
  return fc.tuple(base, variant).map(([b, v]) => ({ resultType, taskId, ...b, ...v }));
}

/** Applies 0–3 random mutations to an object: drop a key, replace a value by arbitrary JSON, add a key, nest it. */
export function mutated(base: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<unknown> {
  const mutation = fc.oneof(
    fc.record({ op: fc.constant('drop' as const), pick: fc.nat() }),
    fc.record({ op: fc.constant('replace' as const), pick: fc.nat(), value: json }),
    fc.record({ op: fc.constant('add' as const), key: fc.string({ maxLength: 6 }), value: json }),
    fc.record({ op: fc.constant('nest' as const), key: fc.constantFrom('task', 'result', 'data') }),
  );
  return fc.tuple(base, fc.array(mutation, { maxLength: 3 })).map(([value, ops]) => {
    let out: Record<string, unknown> = { ...value };
    for (const m of ops) {
      const keys = Object.keys(out);
      if (m.op === 'drop' && keys.length > 0) delete out[keys[m.pick % keys.length]!];
      else if (m.op === 'replace' && keys.length > 0) out[keys[m.pick % keys.length]!] = m.value;
      else if (m.op === 'add') out[m.key] = m.value;
      else if (m.op === 'nest') out = { resultType: out.resultType, [m.key]: out };
    }
    return out;
  });
}

/** An MRTR `input_required` result, mostly valid. */
export const mrtrResult = mutated(
  fc.record(
    {
      resultType: fc.constantFrom('input_required', 'complete', 'task'),
      inputRequests,
      requestState: fc.oneof(fc.string({ maxLength: 12 }), json),
    },
    { requiredKeys: ['resultType'] },
  ),
);

/** Splits `bytes` at the given (sorted, deduplicated) offsets. */
export function splitAt(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const cuts = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of cuts) {
    if (cut > from) chunks.push(bytes.slice(from, cut));
    from = Math.max(from, cut);
  }
  if (from < bytes.length) chunks.push(bytes.slice(from));
  return chunks;
}

/** A `ReadableStream` that yields `chunks` and then ends. */
export function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}
