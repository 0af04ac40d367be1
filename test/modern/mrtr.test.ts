import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  InputRequiredError,
  InvalidResponseError,
  TaskClient,
  TooManyRoundsError,
  type TaskClientOptions,
} from '../../src/index.js';
import { ScriptedTransport, type Handler } from '../helpers/scripted-transport.js';
import { completed, created, elicit, flush, toolResult } from '../helpers/unit-fixtures.js';
import '../helpers/no-jitter.js';

function setup(handler: Handler, options: Partial<TaskClientOptions> = {}) {
  const transport = new ScriptedTransport(handler);
  const client = new TaskClient({ transport, ...options });
  return { transport, client };
}

/** Params of a sent message without `_meta`. */
function paramsOf(transport: ScriptedTransport, method: string): Array<Record<string, unknown>> {
  return transport.of(method).map((s) => {
    const { _meta, ...rest } = s.message.params as Record<string, unknown>;
    return rest;
  });
}

const accept = { action: 'accept' as const, content: { ok: true } };
/** A state the client must echo byte-exact without parsing: quotes, escapes, unicode, base64-ish padding. */
const STATE = 'eyJzIjoxfQ==.{"a":[1, 2]}\\n "quoted" é ✓ ';

/** A server that runs `rounds` (one per call of tools/call) and then answers `final`. */
function rounds(
  list: Array<Record<string, unknown>>,
  final: Record<string, unknown> = toolResult('done'),
): Handler {
  let i = 0;
  return (method) => {
    if (method !== 'tools/call') return { content: [] };
    return list[i++] ?? final;
  };
}

describe('MRTR (4.1–4.5)', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('4.2–4.4: a handler answers; the retry has the original params + inputResponses + requestState byte-exact, a new id and _meta', async () => {
    const elicitation = vi.fn(() => accept);
    const { transport, client } = setup(
      rounds([{ resultType: 'input_required', inputRequests: { ok: elicit('Sure?') }, requestState: STATE }]),
      {
        handlers: { elicitation },
      },
    );
    await expect(client.callTool('reindex', { set: 'a', n: 2 })).resolves.toEqual(toolResult('done'));
    expect(paramsOf(transport, 'tools/call')).toEqual([
      { name: 'reindex', arguments: { set: 'a', n: 2 } },
      { name: 'reindex', arguments: { set: 'a', n: 2 }, inputResponses: { ok: accept }, requestState: STATE },
    ]);
    const [first, retry] = transport.of('tools/call').map((s) => s.message);
    expect(retry!.id).not.toBe(first!.id);
    expect(typeof retry!.id).toBe('number');
    expect((retry!.params as Record<string, unknown>)._meta).toEqual(
      (first!.params as Record<string, unknown>)._meta,
    );
    expect((retry!.params as Record<string, unknown>)._meta).not.toBe(
      (first!.params as Record<string, unknown>)._meta,
    );
    expect((retry!.params as { requestState: string }).requestState).toBe(STATE);
    expect(elicitation).toHaveBeenCalledWith(
      elicit('Sure?').params,
      expect.objectContaining({ key: 'ok', taskId: undefined, method: 'tools/call' }),
    );
  });

  it('4.2: an inputRequired listener answers when no handler exists', async () => {
    const { transport, client } = setup(
      rounds([{ resultType: 'input_required', inputRequests: { ok: elicit('Sure?') } }]),
    );
    const keys: string[] = [];
    client.on('inputRequired', (e) => {
      keys.push(e.key);
      void e.respond({ action: 'decline' });
    });
    await expect(client.callTool('t')).resolves.toEqual(toolResult('done'));
    expect(keys).toEqual(['ok']);
    expect(paramsOf(transport, 'tools/call')[1]).toEqual({
      name: 't',
      inputResponses: { ok: { action: 'decline' } },
    });
  });

  it('4.5: several rounds each carry only the latest answers and state', async () => {
    const { transport, client } = setup(
      rounds([
        { resultType: 'input_required', inputRequests: { a: elicit('A?') }, requestState: 's1' },
        { resultType: 'input_required', inputRequests: { b: elicit('B?') }, requestState: 's2' },
        { resultType: 'input_required', inputRequests: { c: elicit('C?') } },
      ]),
      { handlers: { elicitation: (p) => ({ action: 'accept', content: { q: p.message } }) } },
    );
    await client.callTool('t', { x: 1 });
    expect(paramsOf(transport, 'tools/call')).toEqual([
      { name: 't', arguments: { x: 1 } },
      {
        name: 't',
        arguments: { x: 1 },
        inputResponses: { a: { action: 'accept', content: { q: 'A?' } } },
        requestState: 's1',
      },
      {
        name: 't',
        arguments: { x: 1 },
        inputResponses: { b: { action: 'accept', content: { q: 'B?' } } },
        requestState: 's2',
      },
      { name: 't', arguments: { x: 1 }, inputResponses: { c: { action: 'accept', content: { q: 'C?' } } } },
    ]);
    const ids = transport.sent.map((s) => s.message.id);
    expect(new Set(ids).size).toBe(4);
  });

  it('4.2, 4.3: a requestState-only round is retried at once with no inputResponses', async () => {
    const { transport, client } = setup(
      rounds([{ resultType: 'input_required', requestState: 'only-state' }]),
    );
    await client.callTool('t');
    expect(paramsOf(transport, 'tools/call')).toEqual([
      { name: 't' },
      { name: 't', requestState: 'only-state' },
    ]);
  });

  it('4.2: no handler and no listener → InputRequiredError, no retry', async () => {
    const { transport, client } = setup(
      rounds([
        {
          resultType: 'input_required',
          inputRequests: { ok: elicit('Sure?'), roots: { method: 'roots/list' } },
        },
      ]),
    );
    const error = await client.callTool('t').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputRequiredError);
    expect((error as InputRequiredError).code).toBe('INPUT_REQUIRED');
    expect(Object.keys((error as InputRequiredError).requests)).toEqual(['ok', 'roots']);
    expect((error as Error).message).toBe(
      'tools/call needs input that no handler answers: ok (elicitation/create), roots (roots/list)',
    );
    expect(transport.of('tools/call')).toHaveLength(1);
  });

  it('4.2: a roots handler alone cannot answer an elicitation → InputRequiredError naming only that key', async () => {
    const { client } = setup(
      rounds([
        { resultType: 'input_required', inputRequests: { ok: elicit('Sure?'), r: { method: 'roots/list' } } },
      ]),
      {
        handlers: { roots: () => ({ roots: [{ uri: 'file:///w', name: 'w' }] }) },
      },
    );
    const error = await client.callTool('t').catch((e: unknown) => e);
    expect(Object.keys((error as InputRequiredError).requests)).toEqual(['ok']);
  });

  it('4.5: maxInputRounds caps the rounds → TooManyRoundsError', async () => {
    const { transport, client } = setup(() => ({ resultType: 'input_required', requestState: 'again' }), {
      limits: { maxInputRounds: 2 },
    });
    const error = await client.callTool('t').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooManyRoundsError);
    expect((error as TooManyRoundsError).rounds).toBe(2);
    expect((error as Error).message).toBe(
      'tools/call failed: the server asked for input again after 2 answered rounds (limits.maxInputRounds: 2)',
    );
    expect(transport.of('tools/call')).toHaveLength(3); // the first request + one re-send per answered round
  });

  it('4.1: input_required with neither inputRequests nor requestState → InvalidResponseError', async () => {
    const { client } = setup(rounds([{ resultType: 'input_required' }]));
    const error = await client.callTool('t').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toBe(
      'tools/call failed: invalid response: malformed input_required result',
    );
  });

  it('a handler that throws rejects the call with its error, no retry', async () => {
    const boom = new Error('no UI');
    const { transport, client } = setup(
      rounds([{ resultType: 'input_required', inputRequests: { ok: elicit('?') } }]),
      {
        handlers: {
          elicitation: () => {
            throw boom;
          },
        },
      },
    );
    await expect(client.callTool('t')).rejects.toBe(boom);
    expect(transport.of('tools/call')).toHaveLength(1);
  });

  it('an abort while waiting for an answer rejects with signal.reason', async () => {
    const { transport, client } = setup(
      rounds([{ resultType: 'input_required', inputRequests: { ok: elicit('?') } }]),
    );
    client.on('inputRequired', () => undefined); // never answers
    const controller = new AbortController();
    const reason = new Error('closed dialog');
    const call = client.callTool('t', {}, { signal: controller.signal });
    await flush();
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(transport.of('tools/call')).toHaveLength(1);
  });

  it('4.4: answers never leak into another concurrent call', async () => {
    let answer: ((v: unknown) => void) | undefined;
    const { transport, client } = setup((method, params) => {
      if (params.name === 'asks' && !params.inputResponses)
        return { resultType: 'input_required', inputRequests: { k: elicit('?') }, requestState: 'S' };
      return toolResult(String(params.name));
    });
    client.on('inputRequired', (e) => (answer = (v) => void e.respond(v as typeof accept)));
    const a = client.callTool('asks');
    await flush();
    await client.callTool('other', { y: 1 });
    answer!(accept);
    await a;
    expect(paramsOf(transport, 'tools/call')).toEqual([
      { name: 'asks' },
      { name: 'other', arguments: { y: 1 } },
      { name: 'asks', inputResponses: { k: accept }, requestState: 'S' },
    ]);
  });

  it('4.1: resources/read and prompts/get run MRTR rounds too', async () => {
    const { transport, client } = setup((method, params) => {
      if (!params.requestState) return { resultType: 'input_required', requestState: `${method}-state` };
      return method === 'resources/read' ? { contents: [{ uri: 'file:///x', text: 'x' }] } : { messages: [] };
    });
    await client.readResource('file:///x');
    await client.getPrompt('p', { a: 'b' });
    expect(paramsOf(transport, 'resources/read')).toEqual([
      { uri: 'file:///x' },
      { uri: 'file:///x', requestState: 'resources/read-state' },
    ]);
    expect(paramsOf(transport, 'prompts/get')).toEqual([
      { name: 'p', arguments: { a: 'b' } },
      { name: 'p', arguments: { a: 'b' }, requestState: 'prompts/get-state' },
    ]);
  });

  it('5.5: MRTR then task: the retry creates a task that is polled without MRTR fields', async () => {
    const { transport, client } = setup(
      (method, params) => {
        if (method === 'tools/call') {
          return params.requestState
            ? created()
            : { resultType: 'input_required', inputRequests: { go: elicit('Go?') }, requestState: 'r1' };
        }
        return completed(toolResult('composed'));
      },
      { handlers: { elicitation: () => accept } },
    );
    const call = client.callTool('compose', { z: 1 });
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(call).resolves.toEqual(toolResult('composed'));
    expect(paramsOf(transport, 'tools/call')).toEqual([
      { name: 'compose', arguments: { z: 1 } },
      { name: 'compose', arguments: { z: 1 }, inputResponses: { go: accept }, requestState: 'r1' },
    ]);
    expect(paramsOf(transport, 'tasks/get')).toEqual([{ taskId: 't1' }]);
    expect(transport.sent.map((s) => s.message.method)).toEqual(['tools/call', 'tools/call', 'tasks/get']);
  });
});
