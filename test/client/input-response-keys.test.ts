/**
 * Every `inputRequests` key reaches the caller and comes back in `inputResponses` byte-exact, `__proto__` included:
 * through the input broker's dedupe, the MRTR answer map and re-send, and `tasks/update`; and nothing changes a
 * prototype. (MRTR: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr; Tasks:
 * https://github.com/modelcontextprotocol/ext-tasks § Task Update Requests)
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TaskClient, type InputRequiredEvent } from '../../src/index.js';
import { ScriptedTransport, type Handler } from '../helpers/scripted-transport.js';
import { completed, created, detailed, toolResult } from '../helpers/unit-fixtures.js';
import { mapOf, ODD_KEYS } from '../helpers/odd-keys.js';
import '../helpers/no-jitter.js';

/** `inputRequests` with one form question per odd key, as a server's JSON would parse. */
function oddQuestions(): Record<string, unknown> {
  const map = mapOf(ODD_KEYS, (key) => ({
    method: 'elicitation/create',
    params: { message: `about ${key}`, requestedSchema: { type: 'object', properties: {} } },
  }));
  return JSON.parse(JSON.stringify(map)) as Record<string, unknown>;
}

/** The answer a handler gives for `key`: it names the key, and tries to pollute. */
const answerFor = (key: string) => ({ action: 'accept' as const, content: { key, polluted: 'yes' } });

/** Own keys of the JSON actually sent (the transport would send this text). */
function wireKeys(params: unknown, field: 'inputResponses'): string[] {
  const sent = JSON.parse(JSON.stringify(params)) as Record<string, Record<string, unknown>>;
  return Object.keys(sent[field] ?? {});
}

function setup(handler: Handler) {
  const transport = new ScriptedTransport(handler);
  const client = new TaskClient({
    transport,
    handlers: { elicitation: (_p, ctx) => answerFor(ctx.key) },
  });
  const events: InputRequiredEvent[] = [];
  client.on('inputRequired', (e) => events.push(e));
  return { transport, client, events };
}

beforeEach(() => vi.useFakeTimers({ now: 0 }));
afterEach(() => {
  vi.useRealTimers();
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('key');
});

describe('exact keys through the client (issue behaviour 6)', () => {
  it('MRTR: one event per key, and the re-send carries inputResponses under every key byte-exact (__proto__ too)', async () => {
    let round = 0;
    const { transport, client, events } = setup((method) => {
      if (method !== 'tools/call') return {};
      return round++ === 0
        ? { resultType: 'input_required', inputRequests: oddQuestions(), requestState: 'st' }
        : toolResult('done');
    });
    await expect(client.callTool('ask', {})).resolves.toEqual(toolResult('done'));
    expect(events.map((e) => e.key)).toEqual(ODD_KEYS);
    const [, retry] = transport.of('tools/call');
    const params = retry!.message.params as Record<string, unknown>;
    expect(wireKeys(params, 'inputResponses')).toEqual(ODD_KEYS);
    const responses = params.inputResponses as Record<string, unknown>;
    for (const key of ODD_KEYS)
      expect(Object.getOwnPropertyDescriptor(responses, key)?.value).toEqual(answerFor(key));
    expect(Object.getPrototypeOf(responses)).toBe(Object.prototype);
    expect(transport.of('tools/call')).toHaveLength(2); // answered once: no loop towards TooManyRoundsError
  });

  it('task: each key is answered once through tasks/update under its exact key (__proto__ too)', async () => {
    let polls = 0;
    const { transport, client, events } = setup((method) => {
      if (method === 'tools/call') return created();
      if (method === 'tasks/update') return { resultType: 'complete' };
      return polls++ === 0
        ? detailed({ status: 'input_required', inputRequests: oddQuestions() })
        : completed();
    });
    const call = client.callTool('ask', {});
    await vi.advanceTimersByTimeAsync(3_000);
    await expect(call).resolves.toEqual(toolResult('done'));
    expect(events.map((e) => e.key)).toEqual(ODD_KEYS);
    const updated = transport.of('tasks/update').flatMap((s) => wireKeys(s.message.params, 'inputResponses'));
    expect(updated.sort()).toEqual([...ODD_KEYS].sort());
    const proto = transport
      .of('tasks/update')
      .find((s) => wireKeys(s.message.params, 'inputResponses').includes('__proto__'));
    const sent = JSON.parse(JSON.stringify(proto!.message.params)) as {
      inputResponses: Record<string, unknown>;
    };
    expect(Object.getOwnPropertyDescriptor(sent.inputResponses, '__proto__')?.value).toEqual(
      answerFor('__proto__'),
    );
  });

  it('handle.respond() with a map built from JSON keeps __proto__ as a key', async () => {
    const transport: ScriptedTransport = new ScriptedTransport((method) => {
      if (method === 'tools/call') return created();
      if (method === 'tasks/update') return { resultType: 'complete' };
      return transport.of('tasks/update').length === 0
        ? detailed({ status: 'input_required', inputRequests: oddQuestions() })
        : completed();
    });
    const client = new TaskClient({ transport });
    client.on('inputRequired', () => undefined);
    const start = await client.startTool('ask', {});
    if (start.resultType !== 'task') throw new Error('expected a task');
    const handle = start.task;
    await vi.advanceTimersByTimeAsync(1_000);
    const answers = JSON.parse(`{"__proto__":${JSON.stringify(answerFor('__proto__'))}}`) as Record<
      string,
      never
    >;
    await expect(handle.respond(answers)).resolves.toEqual(['__proto__']);
    expect(wireKeys(transport.of('tasks/update')[0]!.message.params, 'inputResponses')).toEqual([
      '__proto__',
    ]);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(handle.result()).resolves.toEqual(toolResult('done'));
  });
});
