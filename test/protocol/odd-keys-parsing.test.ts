/**
 * Every `inputRequests` / `inputResponses` key kept byte-exact through the protocol layer, `__proto__` included, and
 * no prototype pollution (MRTR: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr, keys
 * are any server-chosen strings). Inputs come from `JSON.parse`, as from the wire, where `__proto__` is an own key.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { classifyMessage } from '../../src/transport/messages.js';
import {
  CallToolResultSchema,
  InputRequestsSchema,
  InputRequiredResultSchema,
  parseDetailedTask,
  ToolSchema,
} from '../../src/protocol/index.js';
import { mapOf, ODD_KEYS } from '../helpers/odd-keys.js';

const question = (key: string) => ({
  method: 'elicitation/create',
  params: {
    message: `about ${key}`,
    requestedSchema: { type: 'object', properties: { polluted: { type: 'string' } } },
  },
});

/** `{key: question(key)}` for every odd key, as JSON text (JSON.stringify keeps an own `__proto__`). */
function questionsJson(): string {
  return JSON.stringify(mapOf(ODD_KEYS, question));
}

afterEach(() => {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('method');
});

describe('exact keys: inputRequests (MRTR § InputRequests: any string key)', () => {
  it('InputRequestsSchema keeps __proto__, constructor, toString, dotted, empty and non-ASCII keys as own keys', () => {
    const parsed = InputRequestsSchema.parse(JSON.parse(questionsJson()));
    expect(Object.keys(parsed)).toEqual(ODD_KEYS);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    for (const key of ODD_KEYS) {
      expect(Object.hasOwn(parsed, key)).toBe(true);
      expect(Object.getOwnPropertyDescriptor(parsed, key)?.value).toEqual(question(key));
    }
    expect(JSON.parse(JSON.stringify(parsed))).toEqual(JSON.parse(questionsJson()));
    expect(JSON.stringify(parsed)).toBe(questionsJson());
  });

  it('the request under __proto__ is validated like any other (a bad one is an error, not silently kept or dropped)', () => {
    const bad = InputRequestsSchema.safeParse(JSON.parse('{"__proto__": {"method": "elicitation/create"}}'));
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path[0]).toBe('__proto__');
  });

  it('an input_required result keeps its __proto__ key; so does a task that is input_required', () => {
    const text = `{"resultType":"input_required","inputRequests":${questionsJson()},"requestState":"s"}`;
    const mrtr = InputRequiredResultSchema.parse(JSON.parse(text));
    expect(Object.keys(mrtr.inputRequests ?? {})).toEqual(ODD_KEYS);
    const task = parseDetailedTask(
      JSON.parse(`{"taskId":"t","status":"input_required","ttlMs":null,"inputRequests":${questionsJson()}}`),
    );
    expect(task.status === 'input_required' && Object.keys(task.inputRequests)).toEqual(ODD_KEYS);
  });

  it('form fields named __proto__ in requestedSchema.properties are kept', () => {
    const parsed = InputRequestsSchema.parse(
      JSON.parse(
        '{"k":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"__proto__":{"type":"string"}}}}}}',
      ),
    );
    const properties = (parsed.k?.params as { requestedSchema: { properties: Record<string, unknown> } })
      .requestedSchema.properties;
    expect(Object.keys(properties)).toEqual(['__proto__']);
  });
});

describe('exact keys: results, _meta, structuredContent, tool definitions', () => {
  const RESULT =
    '{"content":[{"type":"text","text":"x","__proto__":{"polluted":"block"}}],"structuredContent":{"__proto__":{"polluted":"sc"},"a.b":1},"_meta":{"__proto__":{"polluted":"meta"}},"__proto__":{"polluted":"top"}}';

  it('a JSON-RPC response keeps __proto__ at every level of its result', () => {
    const message = classifyMessage(JSON.parse(`{"jsonrpc":"2.0","id":1,"result":${RESULT}}`));
    expect(message.kind).toBe('result');
    const result = (message as { result: Record<string, unknown> }).result;
    expect(JSON.stringify(result)).toBe(RESULT);
  });

  it('CallToolResultSchema returns the result with every own key (top level, content, structuredContent, _meta)', () => {
    const parsed = CallToolResultSchema.parse(JSON.parse(RESULT));
    expect(JSON.stringify(parsed)).toBe(RESULT);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(parsed.structuredContent)).toBe(Object.prototype);
    expect((parsed as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a tool whose inputSchema has a __proto__ key keeps it', () => {
    const text =
      '{"name":"t","inputSchema":{"type":"object","__proto__":{"x":1},"properties":{"__proto__":{"type":"string"}}}}';
    expect(JSON.stringify(ToolSchema.parse(JSON.parse(text)))).toBe(text);
  });
});
