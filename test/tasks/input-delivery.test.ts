/**
 * Behaviours 4 and 5: answers to a task's questions (`tasks/update`, ext-tasks § Task Update Requests) are never
 * sent after cancel or close, and a failed delivery is retried, re-offered or reported, never a silent hang.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ClientClosedError,
  HttpError,
  InputDeliveryError,
  NetworkError,
  type ElicitResult,
  type InputRequiredEvent,
  type TaskClient,
} from '../../src/index.js';
import { DEFAULT_MAX_CONCURRENT_UPDATES } from '../../src/tasks/update-sender.js';
import type { Handler } from '../helpers/scripted-transport.js';
import {
  completed,
  created,
  deferred,
  detailed,
  elicit,
  flush,
  outcome,
  rpcError,
  toolResult,
} from '../helpers/unit-fixtures.js';
import { setup, startTask, T0 } from '../helpers/engine-setup.js';

const accept: ElicitResult = { action: 'accept', content: { ok: true } };

/** A server whose task asks `keys` until answered. */
function asking(keys: string[], update: Handler = () => ({})): Handler {
  return (m, p, msg) => {
    if (m === 'tools/call') return created();
    if (m === 'tasks/update') return update(m, p, msg);
    if (m === 'tasks/cancel') return {};
    return detailed({
      status: 'input_required',
      inputRequests: Object.fromEntries(keys.map((k) => [k, elicit(`${k}?`)])),
    });
  };
}

describe('behaviour 4: no tasks/update after cancel() or close() (ext-tasks § Task Update Requests, § Task Cancellation)', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('behaviour 4: a slow handler answering after cancel() is dropped with a warning, never sent', async () => {
    const answer = deferred<ElicitResult>();
    const { transport, client, warnings } = setup(asking(['ask']), {
      handlers: { elicitation: () => answer.promise },
    });
    const handle = await startTask(client);
    const handleWarnings: string[] = [];
    handle.on('warning', (w) => handleWarnings.push(w));
    await vi.advanceTimersByTimeAsync(1_000);
    await handle.cancel();
    answer.resolve(accept);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(transport.of('tasks/update')).toHaveLength(0);
    expect(handleWarnings.some((w) => w.includes('ask'))).toBe(true);
    expect(warnings.some((w) => w.includes('ask'))).toBe(true);
    await client.close();
  });

  it('behaviour 4: event.respond() after client.close() resolves false and sends nothing', async () => {
    const { transport, client, warnings } = setup(asking(['ask']));
    const events: InputRequiredEvent[] = [];
    client.on('inputRequired', (e) => events.push(e));
    await startTask(client);
    await vi.advanceTimersByTimeAsync(1_000);
    await client.close();
    await expect(events[0]!.respond(accept)).resolves.toBe(false);
    await flush();
    expect(transport.of('tasks/update')).toHaveLength(0);
    expect(warnings.some((w) => w.includes('ask'))).toBe(true);
  });
});

describe('behaviour 4: tasks/update retries stop at once on close(), cancel() or the task ending (ext-tasks § Task Update Requests)', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  const busy = (): never => {
    throw new HttpError('tasks/update', 503, 'busy');
  };

  async function answering(client: TaskClient) {
    const events: InputRequiredEvent[] = [];
    client.on('inputRequired', (e) => events.push(e));
    const handle = await startTask(client);
    await vi.advanceTimersByTimeAsync(1_000);
    const answer = outcome(events[0]!.respond(accept));
    await vi.advanceTimersByTimeAsync(10); // the first tasks/update: 503, a retry is due in 500 ms
    return { handle, answer };
  }

  it('behaviour 4: client.close() during the retries: respond() rejects at once with ClientClosedError carrying taskId; no tasks/update after it', async () => {
    const { transport, client } = setup(asking(['ask'], busy));
    const { answer } = await answering(client);
    expect(transport.of('tasks/update')).toHaveLength(1);
    expect(answer.settled).toBe(false);
    await client.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(answer.error).toBeInstanceOf(ClientClosedError);
    expect((answer.error as ClientClosedError).code).toBe('CLIENT_CLOSED');
    expect((answer.error as ClientClosedError).taskId).toBe('t1');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(transport.of('tasks/update')).toHaveLength(1);
  });

  it('behaviour 4: handle.cancel() during the retries: respond() rejects at once with InputDeliveryError (taskId, key); the handle keeps following; no tasks/update after it', async () => {
    const { transport, client } = setup(asking(['ask'], busy));
    const { handle, answer } = await answering(client);
    await handle.cancel();
    await vi.advanceTimersByTimeAsync(0);
    expect(answer.error).toBeInstanceOf(InputDeliveryError);
    expect((answer.error as InputDeliveryError).taskId).toBe('t1');
    expect((answer.error as InputDeliveryError).key).toBe('ask');
    expect((answer.error as InputDeliveryError).message).toContain('"ask"');
    expect(String(((answer.error as InputDeliveryError).cause as Error).message)).toContain(
      'a cancel was requested',
    );
    expect(handle.done).toBe(false); // only the server's word ends the task
    await vi.advanceTimersByTimeAsync(60_000);
    expect(transport.of('tasks/update')).toHaveLength(1);
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    await client.close();
  });

  it('behaviour 4: the task ending while its update is retried: respond() rejects with InputDeliveryError; no tasks/update after it', async () => {
    let ended = false;
    const { transport, client } = setup((m, p, msg) => {
      if (m === 'tasks/get' && ended) return completed(toolResult('done'));
      return asking(['ask'], () => {
        ended = true;
        throw new HttpError('tasks/update', 503, 'busy', 5_000); // the retry is due after the next poll
      })(m, p, msg);
    });
    const events: InputRequiredEvent[] = [];
    client.on('inputRequired', (e) => events.push(e));
    const handle = await startTask(client);
    const result = outcome(handle.result());
    await vi.advanceTimersByTimeAsync(1_000);
    const answer = outcome(events[0]!.respond(accept));
    await vi.advanceTimersByTimeAsync(10);
    expect(transport.of('tasks/update')).toHaveLength(1);
    expect(answer.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000); // the next poll sees "completed"
    expect(result.value).toEqual(toolResult('done'));
    expect(answer.error).toBeInstanceOf(InputDeliveryError);
    expect((answer.error as InputDeliveryError).taskId).toBe('t1');
    expect((answer.error as InputDeliveryError).key).toBe('ask');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(transport.of('tasks/update')).toHaveLength(1);
    await client.close();
  });
});

describe('behaviour 5: a failed tasks/update is never a silent hang (ext-tasks § Task Update Requests)', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('behaviour 5: transient failures (network, 503, 429) are retried with backoff until the update is delivered', async () => {
    let calls = 0;
    const { transport, client } = setup(
      asking(['ask'], () => {
        calls++;
        if (calls === 1) throw new NetworkError('tasks/update', { cause: new Error('reset') });
        if (calls === 2) throw new HttpError('tasks/update', 503, 'busy');
        if (calls === 3) throw new HttpError('tasks/update', 429, 'slow down', 1_000);
        return {};
      }),
      { handlers: { elicitation: () => accept } },
    );
    const handle = await startTask(client);
    const answered: string[] = [];
    handle.on('answered', (k) => answered.push(k));
    await vi.advanceTimersByTimeAsync(30_000);
    expect(transport.of('tasks/update')).toHaveLength(4);
    expect(answered).toEqual(['ask']);
    await client.close();
  });

  it('behaviour 5: a definitive rejection re-offers the question once: one new inputRequired event, same key', async () => {
    let calls = 0;
    const { transport, client } = setup(
      asking(['ask'], () => (calls++ === 0 ? rpcError(-32603, 'cannot take this answer') : {})),
    );
    const events: InputRequiredEvent[] = [];
    client.on('inputRequired', (e) => events.push(e));
    await startTask(client);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(events).toHaveLength(1);
    const first = outcome(events[0]!.respond(accept));
    await vi.advanceTimersByTimeAsync(10);
    expect(first.error).toBeDefined();
    expect(events.map((e) => e.key)).toEqual(['ask', 'ask']);
    const second = outcome(events[1]!.respond(accept));
    await vi.advanceTimersByTimeAsync(10);
    expect(second.value).toBe(true);
    expect(transport.of('tasks/update')).toHaveLength(2);
    await client.close();
  });

  it('behaviour 5: a second definitive rejection of the same key rejects the call with InputDeliveryError naming the key', async () => {
    const { client } = setup(
      asking(['ask'], () => rpcError(-32603, 'cannot take this answer')),
      { handlers: { elicitation: () => accept } },
    );
    const done = outcome(client.callTool('job'));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(done.error).toBeInstanceOf(InputDeliveryError);
    const error = done.error as InputDeliveryError;
    expect(error.code).toBe('INPUT_NOT_DELIVERED');
    expect(error.key).toBe('ask');
    expect(error.taskId).toBe('t1');
    await client.close();
  });

  it('behaviour 5: a -32602 answer to tasks/update while the task is still alive asking the same key: re-offered once, then InputDeliveryError (never a silent loop)', async () => {
    const { transport, client } = setup(
      asking(['ask'], () => rpcError(-32602, 'answer rejected')),
      { handlers: { elicitation: () => accept } },
    );
    const events: InputRequiredEvent[] = [];
    client.on('inputRequired', (e) => events.push(e));
    const done = outcome(client.callTool('job', {}, { onAbort: 'detach' }));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(done.error).toBeInstanceOf(InputDeliveryError);
    const error = done.error as InputDeliveryError;
    expect(error.key).toBe('ask');
    expect(error.taskId).toBe('t1');
    expect(events.map((e) => e.key)).toEqual(['ask', 'ask']);
    expect(transport.of('tasks/update')).toHaveLength(2);
    await client.close();
  });

  it('behaviour 5: 2,000 questions in one poll go in a few tasks/update, never more in flight than the bound', async () => {
    const keys = Array.from({ length: 2_000 }, (_, i) => `q${i}`);
    let inFlight = 0;
    let maxInFlight = 0;
    const { transport, client } = setup(
      asking(keys, async () => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await new Promise((r) => setTimeout(r, 50));
        inFlight--;
        return {};
      }),
      { handlers: { elicitation: () => accept } },
    );
    const handle = await startTask(client);
    await vi.advanceTimersByTimeAsync(2_000);
    const sentKeys = transport
      .of('tasks/update')
      .flatMap((s) => Object.keys((s.message.params as { inputResponses: object }).inputResponses));
    expect(new Set(sentKeys).size).toBe(2_000);
    expect(transport.of('tasks/update').length).toBeLessThanOrEqual(DEFAULT_MAX_CONCURRENT_UPDATES + 1);
    expect(maxInFlight).toBeLessThanOrEqual(DEFAULT_MAX_CONCURRENT_UPDATES);
    expect(handle.answeredKeys.size).toBe(2_000);
    await client.close();
  });

  it('behaviour 5: tasks/update in flight per server stay bounded across many tasks', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    let n = 0;
    const { client } = setup(
      (m) => {
        if (m === 'tools/call') return created({ taskId: `t${n++}` });
        if (m === 'tasks/update') {
          maxInFlight = Math.max(maxInFlight, ++inFlight);
          return new Promise((r) => setTimeout(() => (inFlight--, r({})), 50));
        }
        return detailed({ status: 'input_required', inputRequests: { ask: elicit('?') } });
      },
      { handlers: { elicitation: () => accept } },
    );
    for (let i = 0; i < 40; i++) await startTask(client);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(maxInFlight).toBeGreaterThan(0);
    expect(maxInFlight).toBeLessThanOrEqual(DEFAULT_MAX_CONCURRENT_UPDATES);
    await client.close();
  });
});
