import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  TaskClient,
  type InputRequiredEvent,
  type TaskClientOptions,
  type TaskHandle,
} from '../../src/index.js';
import type { InputRequests } from '../../src/protocol/input.js';
import type { CallToolResult } from '../../src/protocol/results.js';
import { InputScope } from '../../src/tasks/input-broker.js';
import { ScriptedTransport, type Handler } from '../helpers/scripted-transport.js';
import { completed, created, deferred, detailed, elicit, flush } from '../helpers/unit-fixtures.js';
import '../helpers/no-jitter.js';

function setup(handler: Handler, options: Partial<TaskClientOptions> = {}) {
  const transport = new ScriptedTransport(handler);
  const client = new TaskClient({ transport, ...options });
  return { transport, client };
}

async function startTask(client: TaskClient): Promise<TaskHandle<CallToolResult>> {
  const start = await client.startTool('job', {});
  if (start.resultType !== 'task') throw new Error('expected a task');
  return start.task;
}

const accept = { action: 'accept' as const, content: { ok: true } };

describe('task input requests (5.11–5.13)', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  /** A server whose task asks `requests()` on every poll, acknowledges tasks/update with {}. */
  function asking(requests: () => Record<string, unknown>) {
    return (method: string) => {
      if (method === 'tools/call') return created();
      if (method === 'tasks/update') return {};
      return detailed({ status: 'input_required', inputRequests: requests() });
    };
  }

  it('5.13: one inputRequired event per key on handle and client across many polls', async () => {
    const { transport, client } = setup(asking(() => ({ ask: elicit('Proceed?') })));
    const onClient: InputRequiredEvent[] = [];
    client.on('inputRequired', (e) => onClient.push(e));
    const handle = await startTask(client);
    const onHandle: InputRequiredEvent[] = [];
    handle.on('inputRequired', (e) => onHandle.push(e));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(transport.of('tasks/get')).toHaveLength(5);
    expect(onHandle).toHaveLength(1);
    expect(onClient).toHaveLength(1);
    expect(onClient[0]).toBe(onHandle[0]);
    expect(onHandle[0]).toMatchObject({
      key: 'ask',
      taskId: 't1',
      method: 'tools/call',
      answered: false,
      request: elicit('Proceed?'),
    });
    await client.close();
  });

  it('5.11: respond() sends tasks/update {taskId, inputResponses:{key: value}} once; a second respond resolves false', async () => {
    const { transport, client } = setup(asking(() => ({ ask: elicit('Proceed?') })));
    const events: InputRequiredEvent[] = [];
    client.on('inputRequired', (e) => events.push(e));
    await startTask(client);
    await vi.advanceTimersByTimeAsync(1_000);
    const event = events[0]!;
    await expect(event.respond(accept)).resolves.toBe(true);
    expect(event.answered).toBe(true);
    await expect(event.respond({ action: 'decline' })).resolves.toBe(false);
    const updates = transport.of('tasks/update');
    expect(updates).toHaveLength(1);
    const { _meta, ...params } = updates[0]!.message.params as Record<string, unknown>;
    expect(params).toEqual({ taskId: 't1', inputResponses: { ask: accept } });
    expect(_meta).toBeDefined();
    // The server still lists the key (eventually consistent): no new event, no second update.
    await vi.advanceTimersByTimeAsync(3_000);
    expect(events).toHaveLength(1);
    expect(transport.of('tasks/update')).toHaveLength(1);
    await client.close();
  });

  it('5.13: a key re-issued after being answered is not emitted again', async () => {
    let poll = 0;
    const { transport, client } = setup(
      asking(() => {
        poll++;
        return poll === 2 ? { other: elicit('Other?') } : { ask: elicit('Proceed?') };
      }),
    );
    const keys: string[] = [];
    client.on('inputRequired', (e) => {
      keys.push(e.key);
      if (e.key === 'ask') void e.respond(accept);
    });
    await startTask(client);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(keys).toEqual(['ask', 'other']);
    expect(transport.of('tasks/update')).toHaveLength(1);
    await client.close();
  });

  it('registered handlers answer automatically, once, with params and context', async () => {
    const elicitation = vi.fn(() => accept);
    const { transport, client } = setup(
      asking(() => ({ ask: elicit('Proceed?') })),
      { handlers: { elicitation } },
    );
    await startTask(client);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(elicitation).toHaveBeenCalledTimes(1);
    expect(elicitation.mock.calls[0]).toEqual([
      elicit('Proceed?').params,
      expect.objectContaining({ key: 'ask', taskId: 't1', method: 'tools/call' }),
    ]);
    expect(
      transport
        .of('tasks/update')
        .map((s) => (s.message.params as { inputResponses: unknown }).inputResponses),
    ).toEqual([{ ask: accept }]);
    await client.close();
  });

  it('a handler that throws → handle "error" event; the key stays open and can be answered by hand', async () => {
    const boom = new Error('handler broke');
    const { transport, client } = setup(
      asking(() => ({ ask: elicit('Proceed?') })),
      {
        handlers: {
          elicitation: () => {
            throw boom;
          },
        },
      },
    );
    const handle = await startTask(client);
    const errors: unknown[] = [];
    handle.on('error', (e) => errors.push(e));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(errors).toEqual([boom]);
    expect(transport.of('tasks/update')).toHaveLength(0);
    expect(handle.answeredKeys.has('ask')).toBe(false);
    await expect(handle.respond({ ask: { action: 'decline' } })).resolves.toEqual(['ask']);
    expect(transport.of('tasks/update')).toHaveLength(1);
    await client.close();
  });

  it('5.11: partial answers: each tasks/update carries only its keys; the rest stay open', async () => {
    const answered = new Set<string>();
    const { transport, client } = setup((method, params) => {
      if (method === 'tools/call') return created();
      if (method === 'tasks/update') {
        for (const k of Object.keys(params.inputResponses as object)) answered.add(k);
        return {};
      }
      const open = Object.fromEntries(
        Object.entries({ a: elicit('A?'), b: elicit('B?') }).filter(([k]) => !answered.has(k)),
      );
      return Object.keys(open).length
        ? detailed({ status: 'input_required', inputRequests: open })
        : completed();
    });
    const events = new Map<string, InputRequiredEvent>();
    client.on('inputRequired', (e) => events.set(e.key, e));
    const handle = await startTask(client);
    await vi.advanceTimersByTimeAsync(1_000);
    expect([...events.keys()]).toEqual(['a', 'b']);
    await events.get('a')!.respond(accept);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(handle.status).toBe('input_required');
    expect(Object.keys((handle.task as { inputRequests: object }).inputRequests)).toEqual(['b']);
    await events.get('b')!.respond({ action: 'decline' });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(
      transport
        .of('tasks/update')
        .map((s) => (s.message.params as { inputResponses: unknown }).inputResponses),
    ).toEqual([{ a: accept }, { b: { action: 'decline' } }]);
    await expect(handle.result()).resolves.toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect([...handle.answeredKeys]).toEqual(['a', 'b']);
  });

  it('5.12: input requests on the creation result are seen by an onTask listener', async () => {
    const { client } = setup((method) => {
      if (method === 'tools/call')
        return created({ status: 'input_required', inputRequests: { first: elicit('First?') } });
      return detailed();
    });
    const seen: string[] = [];
    const controller = new AbortController();
    client
      .callTool(
        'job',
        {},
        {
          signal: controller.signal,
          onAbort: 'detach',
          onTask: (h) => h.on('inputRequired', (e) => seen.push(e.key)),
        },
      )
      .catch(() => undefined);
    await flush();
    expect(seen).toEqual(['first']);
    controller.abort(new Error('over'));
    await client.close();
  });

  it('answeredKeys passed to client.task are never emitted or answered again (resume)', async () => {
    const { transport, client } = setup((method) =>
      method === 'tasks/update'
        ? {}
        : detailed({
            status: 'input_required',
            inputRequests: { old: elicit('Old?'), fresh: elicit('Fresh?') },
          }),
    );
    const keys: string[] = [];
    client.on('inputRequired', (e) => keys.push(e.key));
    const handle = await client.task('t1', { answeredKeys: ['old'] });
    await expect(handle.respond({ old: accept, fresh: accept })).resolves.toEqual(['fresh']);
    expect(keys).toEqual(['fresh']);
    expect(transport.of('tasks/update')).toHaveLength(1);
    await client.close();
  });
});

describe('InputScope', () => {
  const requests: InputRequests = {
    a: elicit('A?') as InputRequests[string],
    b: elicit('B?') as InputRequests[string],
  };

  function scope(deliver: (key: string, r: unknown) => Promise<void>) {
    const emitted: InputRequiredEvent[] = [];
    const handlerErrors: unknown[] = [];
    const s = new InputScope({
      method: 'tools/call',
      taskId: 't9',
      handlers: undefined,
      deliver,
      emit: (e) => emitted.push(e),
      onHandlerError: (e) => handlerErrors.push(e),
    });
    return { s, emitted, handlerErrors };
  }

  it('offer() returns and emits only new keys', () => {
    const { s, emitted } = scope(async () => undefined);
    expect(s.offer(requests).map((e) => e.key)).toEqual(['a', 'b']);
    expect(s.offer(requests)).toEqual([]);
    expect(emitted.map((e) => e.key)).toEqual(['a', 'b']);
  });

  it('a failed delivery reopens the key; the next answer is sent', async () => {
    const d = deferred<void>();
    let calls = 0;
    const { s, emitted } = scope(async () => {
      if (calls++ === 0) throw new Error('update failed');
      await d.promise;
    });
    s.offer(requests);
    const a = emitted[0]!;
    await expect(a.respond(accept)).rejects.toThrow('update failed');
    expect(a.answered).toBe(false);
    const second = a.respond(accept);
    expect(a.answered).toBe(true); // claimed at once: a concurrent answer loses
    await expect(a.respond({ action: 'cancel' })).resolves.toBe(false);
    d.resolve();
    await expect(second).resolves.toBe(true);
    expect(calls).toBe(2);
  });

  it('respondAll answers several keys and skips answered ones and keys the server never asked (5.11)', async () => {
    const delivered: string[] = [];
    const { s } = scope(async (key) => {
      delivered.push(key);
    });
    s.offer({ a: elicit('A?'), b: elicit('B?') } as unknown as InputRequests);
    await expect(s.respondAll({ a: accept, stranger: accept })).resolves.toEqual(['a']);
    await expect(s.respondAll({ a: accept, b: accept })).resolves.toEqual(['b']);
    expect(delivered).toEqual(['a', 'b']);
    expect(s.isAnswered('a') && s.isAnswered('b')).toBe(true);
  });
});
