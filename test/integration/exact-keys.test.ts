/**
 * Over loopback HTTP against the reference server: a question asked under the key `__proto__` (and the other odd
 * keys) in an MRTR round and in a task is answered under exactly that key, the server receives the answer under it,
 * and a result carrying `__proto__` in `structuredContent`, `_meta` and at its top level reaches the caller exactly.
 * (MRTR: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr; Tasks:
 * https://github.com/modelcontextprotocol/ext-tasks § Task Update Requests)
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHttpTransport, TaskClient, type InputRequiredEvent } from '../../src/index.js';
import {
  createTaskServer,
  elicitForm,
  textResult,
  type TaskServer,
  type ToolDefinition,
} from '../../src/testing/index.js';
import { mapOf, ODD_KEYS } from '../helpers/odd-keys.js';
import '../helpers/no-jitter.js';

/** What the fixture tools return: the answers as the server received them, and `__proto__` keys of its own. */
function echoAnswers(answers: Record<string, unknown>): Record<string, unknown> {
  const result = textResult('answered', {
    structuredContent: {
      keys: Object.keys(answers),
      answers,
      ...mapOf(['__proto__'], () => ({ polluted: 'structured' })),
    },
    _meta: mapOf(['__proto__', 'a.b'], () => ({ polluted: 'meta' })),
  });
  return { ...result, ...mapOf(['__proto__'], () => ({ polluted: 'top' })) };
}

const questions = () =>
  mapOf(ODD_KEYS, (key) => elicitForm(`about ${key}`, { polluted: { type: 'string' } }));

/** MRTR: asks every odd key first, then echoes the `inputResponses` of the retry. */
const mrtrTool: ToolDefinition = {
  name: 'odd_keys_mrtr',
  description: 'Asks under odd keys in an MRTR round.',
  inputSchema: { type: 'object', properties: {} },
  requiredCapabilities: ['elicitation'],
  run: async (ctx) =>
    ctx.inputResponses === undefined
      ? ctx.inputRequired(questions(), { round: 1 })
      : echoAnswers(ctx.inputResponses),
};

/** Task: asks every odd key through `input_required`, then echoes the answers that came by `tasks/update`. */
const taskTool: ToolDefinition = {
  name: 'odd_keys_task',
  description: 'Asks under odd keys as a task.',
  inputSchema: { type: 'object', properties: {} },
  taskSupport: 'required',
  requiredCapabilities: ['elicitation'],
  run: async (ctx) => echoAnswers(await ctx.input(questions())),
};

let server: TaskServer;
const clients: TaskClient[] = [];
beforeAll(async () => {
  server = await createTaskServer({
    pollIntervalMs: 20,
    inlineBudgetMs: 20,
    inputTimeoutMs: 5_000,
    catalog: { tools: [mrtrTool, taskTool] },
  });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('method');
});
afterAll(() => server.close());

function client(): { client: TaskClient; events: InputRequiredEvent[] } {
  const c = new TaskClient({
    transport: new StreamableHttpTransport(server.url),
    polling: { minIntervalMs: 10 },
    handlers: { elicitation: (_params, ctx) => ({ action: 'accept', content: { polluted: ctx.key } }) },
  });
  clients.push(c);
  const events: InputRequiredEvent[] = [];
  c.on('inputRequired', (e) => events.push(e));
  return { client: c, events };
}

/** Checks a result of {@link echoAnswers}: every key answered under itself, and the `__proto__` keys kept. */
function expectExact(result: Record<string, unknown>): void {
  const structured = result.structuredContent as {
    keys: string[];
    answers: Record<string, { content: { polluted: string } }>;
  };
  expect(structured.keys).toEqual(ODD_KEYS);
  for (const key of ODD_KEYS)
    expect(Object.getOwnPropertyDescriptor(structured.answers, key)?.value).toEqual({
      action: 'accept',
      content: { polluted: key },
    });
  expect(Object.getOwnPropertyDescriptor(structured, '__proto__')?.value).toEqual({ polluted: 'structured' });
  expect(Object.getOwnPropertyDescriptor(result._meta, '__proto__')?.value).toEqual({ polluted: 'meta' });
  expect(Object.getOwnPropertyDescriptor(result, '__proto__')?.value).toEqual({ polluted: 'top' });
  for (const object of [result, structured, structured.answers, result._meta])
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
}

describe('exact keys over HTTP (issue behaviour 6)', () => {
  it('MRTR round: a question under __proto__ is answered under __proto__ in the re-send; the result keeps its __proto__ keys', async () => {
    const { client: c, events } = client();
    const result = await c.callTool('odd_keys_mrtr', {});
    expect(events.map((e) => e.key)).toEqual(ODD_KEYS);
    expectExact(result);
  }, 10_000);

  it('task: a question under __proto__ is answered by tasks/update under __proto__; the result keeps its __proto__ keys', async () => {
    const { client: c, events } = client();
    server.stats.reset();
    const result = await c.callTool('odd_keys_task', {});
    expect(events.map((e) => e.key)).toEqual(ODD_KEYS);
    expectExact(result);
    const received = server.stats.taskUpdates().flatMap((u) => Object.keys(u.inputResponses));
    expect(received.sort()).toEqual([...ODD_KEYS].sort());
  }, 10_000);
});
