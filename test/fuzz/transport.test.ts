/**
 * Fuzzing the real Streamable HTTP transport (parsing, status handling, SSE framing) through an injected fetch:
 * arbitrary and mutated bodies, statuses and content types, and SSE byte streams split at random points. The call
 * always settles, with a result or an `McpClientError`, once the body has ended.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { McpError, StreamableHttpTransport, type JsonRpcRequest } from '../../src/index.js';
import {
  assertSettledTyped,
  callToolResult,
  json,
  mutated,
  observe,
  splitAt,
  streamOf,
} from './arbitraries.js';

const REQUEST: JsonRpcRequest = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'x', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
};
const encoder = new TextEncoder();
export const JSON_RUNS = 4_000;
export const SSE_RUNS = 3_000;

/**
 * Turns of the event loop a request may take to settle. The body is finite and in memory, with no timer and no I/O,
 * so settling takes a fixed number of turns whatever the machine's load (one, in every case seen): a count, not a
 * clock, so a slow machine cannot fail it and a hang cannot pass it.
 */
const SETTLE_TURNS = 100;

/** Lets `box` settle for at most {@link SETTLE_TURNS} turns of the event loop. */
async function settle(box: ReturnType<typeof observe>): Promise<void> {
  for (let turn = 0; box.outcome.kind === 'pending' && turn < SETTLE_TURNS; turn++)
    await new Promise((r) => setImmediate(r));
}

function transportFor(response: () => Response, maxResponseBytes?: number): StreamableHttpTransport {
  return new StreamableHttpTransport('http://127.0.0.1:9/mcp', {
    fetch: async () => response(),
    maxResponseBytes,
  });
}

const envelope = mutated(
  fc.record(
    {
      jsonrpc: fc.constantFrom('2.0', '1.0'),
      id: fc.oneof(fc.constant(7), fc.constant('7'), fc.constant(null), fc.integer()),
      result: fc.oneof(callToolResult, json),
      error: fc.record({
        code: fc.oneof(fc.integer(), fc.double()),
        message: fc.oneof(fc.string({ maxLength: 6 }), json),
      }),
      method: fc.constantFrom('notifications/progress', 'elicitation/create'),
    },
    { requiredKeys: ['jsonrpc'] },
  ),
);

describe('fuzz: StreamableHttpTransport JSON replies', () => {
  it(`any status × content type × body: a result or an McpClientError (${JSON_RUNS} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(200, 200, 200, 202, 204, 400, 401, 404, 405, 429, 500, 502),
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'text/event-stream',
          'text/html',
          '',
          'application/problem+json',
        ),
        fc.oneof(
          envelope.map((v) => JSON.stringify(v)),
          json.map((v) => JSON.stringify(v)),
          fc.string({ maxLength: 40 }),
          fc.constant(''),
        ),
        fc.integer({ min: 1, max: 4 }),
        async (status, contentType, body, pieces) => {
          const bytes = encoder.encode(body);
          const cuts = Array.from({ length: pieces }, (_, i) => Math.floor((bytes.length * i) / pieces));
          const nullBody = status === 204;
          const transport = transportFor(
            () =>
              new Response(nullBody ? null : streamOf(splitAt(bytes, cuts)), {
                status,
                headers: contentType ? { 'content-type': contentType } : {},
              }),
          );
          const box = observe(transport.request(REQUEST));
          await settle(box);
          assertSettledTyped(
            box.outcome,
            `HTTP ${status} ${contentType} ${JSON.stringify(body).slice(0, 120)}`,
          );
          // A valid success envelope with the request's id is the only way to get a value.
          if (box.outcome.kind === 'value') {
            const parsed = JSON.parse(body) as { id?: unknown; result?: unknown };
            expect(parsed.id).toBe(7);
            expect(box.outcome.value).toEqual(parsed.result);
          }
        },
      ),
      { numRuns: JSON_RUNS },
    );
  }, 60_000);
});

type SseItem =
  | { t: 'comment'; text: string }
  | { t: 'notification'; progress: number }
  | { t: 'foreign'; id: number | string }
  | { t: 'request' }
  | { t: 'garbage'; text: string }
  | { t: 'ours' }
  | { t: 'ours-error' };

const sseItem: fc.Arbitrary<SseItem> = fc.oneof(
  fc.record({
    t: fc.constant('comment' as const),
    text: fc.string({ maxLength: 8 }).map((s) => s.replace(/[\r\n]/g, '')),
  }),
  fc.record({ t: fc.constant('notification' as const), progress: fc.nat(10) }),
  fc.record({
    t: fc.constant('foreign' as const),
    id: fc.oneof(fc.integer({ min: 8, max: 99 }), fc.constant('7')),
  }),
  fc.record({ t: fc.constant('request' as const) }),
  fc.record({
    t: fc.constant('garbage' as const),
    text: fc.string({ minLength: 1, maxLength: 8 }).map((s) => s.replace(/[\r\n]/g, '')),
  }),
  fc.record({ t: fc.constant('ours' as const) }),
  fc.record({ t: fc.constant('ours-error' as const) }),
);

const RESULT = { content: [{ type: 'text', text: 'héllo 世界 ✓' }] };

function frame(item: SseItem, eol: string, multiline: boolean): string {
  const data = (value: unknown): string => {
    const text = multiline ? JSON.stringify(value, null, 1) : JSON.stringify(value);
    return (
      text
        .split('\n')
        .map((line) => `data: ${line}`)
        .join(eol) +
      eol +
      eol
    );
  };
  switch (item.t) {
    case 'comment':
      return `:${item.text}${eol}`;
    case 'notification':
      return data({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p', progress: item.progress },
      });
    case 'foreign':
      return data({ jsonrpc: '2.0', id: item.id, result: { content: [] } });
    case 'request':
      return data({ jsonrpc: '2.0', id: 'srv-1', method: 'sampling/createMessage', params: {} });
    case 'garbage':
      return `data: {${item.text}${eol}${eol}`;
    case 'ours':
      return data({ jsonrpc: '2.0', id: 7, result: RESULT });
    case 'ours-error':
      return data({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'boom' } });
  }
}

/**
 * What the transport must answer for a stream: the first settling event decides; none = StreamEndedError. Garbage
 * (data that is not JSON) never settles: it is reported and skipped, and the response after it still counts.
 */
function expected(items: SseItem[]): 'result' | 'mcp-error' | 'ended' {
  for (const item of items) {
    if (item.t === 'ours') return 'result';
    if (item.t === 'ours-error') return 'mcp-error';
  }
  return 'ended';
}

describe('fuzz: SSE byte streams split at random points', () => {
  it(`the first settling event decides, whatever the splits and line ends (${SSE_RUNS} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(sseItem, { maxLength: 8 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        async (items, eol, multiline, offsets, cutTail) => {
          let text = items.map((item) => frame(item, eol, multiline)).join('');
          if (cutTail && text.length > 2) text = text.slice(0, -2); // the last event loses its blank line
          const bytes = encoder.encode(text);
          const transport = transportFor(
            () =>
              new Response(streamOf(splitAt(bytes, offsets)), {
                status: 200,
                headers: { 'content-type': 'text/event-stream' },
              }),
          );
          const progress: unknown[] = [];
          const violations: string[] = [];
          const box = observe(
            transport.request(REQUEST, {
              onNotification: (n) => progress.push(n),
              onViolation: (d) => violations.push(d),
            }),
          );
          await settle(box);
          assertSettledTyped(box.outcome, `SSE ${JSON.stringify(text).slice(0, 200)}`);
          // With the tail cut, the last event may never be dispatched: only check the oracle on intact streams.
          if (cutTail) return;
          const want = expected(items);
          const got = box.outcome;
          if (want === 'result') expect(got.kind === 'value' && got.value).toEqual(RESULT);
          else if (got.kind !== 'typed') throw new Error(`expected ${want}, got a value`);
          else if (want === 'mcp-error') expect(got.error).toBeInstanceOf(McpError);
          else expect(got.error.code).toBe('STREAM_ENDED');
          // Every garbage event before the settling one was reported, none after it.
          const settleAt = items.findIndex((item) => item.t === 'ours' || item.t === 'ours-error');
          expect(violations).toHaveLength(
            items.slice(0, settleAt === -1 ? items.length : settleAt).filter((item) => item.t === 'garbage')
              .length,
          );
        },
      ),
      { numRuns: SSE_RUNS },
    );
  }, 60_000);
});
