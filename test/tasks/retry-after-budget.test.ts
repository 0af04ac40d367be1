/**
 * A delivery (`tasks/cancel`, `tasks/update`) never retries sooner than the server's `Retry-After`, and never waits
 * past its budget (`DELIVERY_BUDGET_MS`) for it: a server answering `429 Retry-After: 3600` ends the delivery at
 * once with its typed error, never a `cancel()` pending for an hour.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CancelDeliveryError,
  HttpError,
  InputDeliveryError,
  McpError,
  TaskCancelledError,
  type ElicitResult,
} from '../../src/index.js';
import {
  DEFAULT_DELIVERY_RETRY,
  DELIVERY_BUDGET_MS,
  deliver,
  deliveryBudgetMs,
  DeliveryFailure,
} from '../../src/tasks/delivery.js';
import { created, detailed, elicit, outcome } from '../helpers/unit-fixtures.js';
import { setup, startTask, T0 } from '../helpers/engine-setup.js';

const HOUR = 3_600_000;
const accept: ElicitResult = { action: 'accept', content: { ok: true } };

/** A delivery whose attempts throw `failures` in turn, then succeed with 'ok'; `sent` holds each attempt's time since T0. */
function deliverFailing(failures: unknown[]) {
  const sent: number[] = [];
  const done = outcome(
    deliver(async () => {
      sent.push(Date.now() - T0);
      const next = failures.shift();
      if (next) throw next;
      return 'ok';
    }),
  );
  return { sent, done };
}

describe('the delivery budget', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it("is 30 s, or the schedule's own total when longer (the default schedule waits 7.5 s)", () => {
    expect(DELIVERY_BUDGET_MS).toBe(30_000);
    expect(deliveryBudgetMs(DEFAULT_DELIVERY_RETRY)).toBe(30_000);
    expect(deliveryBudgetMs({ attempts: 5, minDelayMs: 10_000, maxDelayMs: 60_000 })).toBe(130_000); // 10 + 20 + 40 + 60 s
  });

  it('a Retry-After within the budget is honoured to the millisecond; one past it ends the delivery at once', async () => {
    const { sent, done } = deliverFailing([
      new HttpError('tasks/cancel', 429, 'slow', 20_000),
      new HttpError('tasks/cancel', 429, 'slow', 20_000),
    ]);
    await vi.advanceTimersByTimeAsync(19_999);
    expect(sent).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toEqual([0, 20_000]); // 20 s waited; the next 20 s would make 40 s > 30 s
    expect(done.error).toBeInstanceOf(DeliveryFailure);
    const failure = done.error as DeliveryFailure;
    expect(failure.attempts).toBe(2);
    expect(failure.transient).toBe(true);
    expect(failure.retryAfterMs).toBe(20_000);
    expect((failure.cause as HttpError).retryAfterMs).toBe(20_000);
  });
});

describe('a delivery honours Retry-After carried by an McpError (429/503 with a JSON-RPC body)', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('503 + Retry-After 2 s + -32603, twice: re-sent at 2 000 and 4 000 ms, never sooner; a 429 + -32000 is retried too', async () => {
    const { sent, done } = deliverFailing([
      new McpError(
        'tasks/cancel',
        { code: -32603, message: 'overloaded' },
        { httpStatus: 503, retryAfterMs: 2_000 },
      ),
      new McpError(
        'tasks/cancel',
        { code: -32000, message: 'slow down' },
        { httpStatus: 429, retryAfterMs: 2_000 },
      ),
    ]);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(sent).toEqual([0]);
    await vi.advanceTimersByTimeAsync(2_001);
    expect(sent).toEqual([0, 2_000, 4_000]);
    expect(done.value).toBe('ok');
  });

  it('an McpError Retry-After past the budget ends the delivery at once with it', async () => {
    const error = new McpError(
      'tasks/cancel',
      { code: -32000, message: 'later' },
      { httpStatus: 429, retryAfterMs: HOUR },
    );
    const done = outcome(deliver(async () => Promise.reject(error)));
    await vi.advanceTimersByTimeAsync(0);
    expect(done.error).toBeInstanceOf(DeliveryFailure);
    expect((done.error as DeliveryFailure).retryAfterMs).toBe(HOUR);
    expect((done.error as DeliveryFailure).cause).toBe(error);
  });
});

describe('tasks/cancel answered 429 Retry-After: 3600', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('handle.cancel() rejects at once with CancelDeliveryError (taskId, retryAfterMs, the HttpError as cause); one tasks/cancel; the task stays followed and its record keeps cancelRequested', async () => {
    const { transport, client, store } = setup((m) => {
      if (m === 'tools/call') return created();
      if (m === 'tasks/cancel') throw new HttpError('tasks/cancel', 429, 'slow down', HOUR);
      return detailed({ status: 'working' });
    });
    const handle = await startTask(client);
    const cancelling = outcome(handle.cancel({ waitMs: 60_000 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(cancelling.error).toBeInstanceOf(CancelDeliveryError);
    const error = cancelling.error as CancelDeliveryError;
    expect(error.code).toBe('CANCEL_NOT_DELIVERED');
    expect(error.taskId).toBe('t1');
    expect(error.attempts).toBe(1);
    expect(error.retryAfterMs).toBe(HOUR);
    expect(error.cause).toBeInstanceOf(HttpError);
    expect((error.cause as HttpError).retryAfterMs).toBe(HOUR);
    expect(error.message).toContain('retry after 3600 s');
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    expect(handle.done).toBe(false); // only the server's word ends it
    expect(handle.cancelRequested).toBe(true);
    await vi.advanceTimersByTimeAsync(10);
    expect((await store.get('t1', handle.serverKey))?.cancelRequested).toBe(true);
    await vi.advanceTimersByTimeAsync(2 * HOUR);
    expect(transport.of('tasks/cancel')).toHaveLength(1); // never re-sent sooner than asked; not re-sent at all
    await client.close();
  });

  it('a caller abort (onAbort: cancel) ends the call at once with CancelDeliveryError (taskId, abortReason, retryAfterMs)', async () => {
    const { client } = setup((m) => {
      if (m === 'tools/call') return created();
      if (m === 'tasks/cancel') throw new HttpError('tasks/cancel', 429, 'slow down', HOUR);
      return detailed({ status: 'working' });
    });
    const controller = new AbortController();
    const call = outcome(client.callTool('job', {}, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(1_000);
    const reason = new Error('stop');
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(0);
    expect(call.settled).toBe(true);
    expect(call.error).toBeInstanceOf(CancelDeliveryError);
    expect((call.error as CancelDeliveryError).taskId).toBe('t1');
    expect((call.error as CancelDeliveryError).abortReason).toBe(reason);
    expect((call.error as CancelDeliveryError).retryAfterMs).toBe(HOUR);
    await client.close();
  });
});

describe('tasks/cancel answered 429 Retry-After: 10 while the server reports the task cancelled', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('the retries stop when tasks/get says cancelled: cancel() resolves, result() rejects TaskCancelledError, no more tasks/cancel', async () => {
    let cancelSeen = false;
    const { client, transport } = setup((m) => {
      if (m === 'tools/call') return created();
      if (m === 'tasks/cancel') {
        cancelSeen = true;
        throw new HttpError('tasks/cancel', 429, 'slow down', 10_000);
      }
      return detailed({ status: cancelSeen ? 'cancelled' : 'working' });
    });
    const handle = await startTask(client);
    const result = outcome(handle.result());
    const cancel = outcome(handle.cancel({ waitMs: 4_000 }));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(handle.status).toBe('cancelled');
    expect(result.error).toBeInstanceOf(TaskCancelledError);
    expect(cancel.settled).toBe(true);
    expect(cancel.error).toBeUndefined();
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    await client.close();
  });
});

describe('tasks/update answered 503 Retry-After: 3600', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('the call rejects at once with InputDeliveryError (taskId, key, the HttpError as cause); one tasks/update', async () => {
    const { transport, client } = setup(
      (m) => {
        if (m === 'tools/call') return created();
        if (m === 'tasks/update') throw new HttpError('tasks/update', 503, 'busy', HOUR);
        if (m === 'tasks/cancel') return {};
        return detailed({ status: 'input_required', inputRequests: { ask: elicit('?') } });
      },
      { handlers: { elicitation: () => accept } },
    );
    const call = outcome(client.callTool('job', {}, { onAbort: 'detach' }));
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.advanceTimersByTimeAsync(10);
    expect(call.error).toBeInstanceOf(InputDeliveryError);
    const error = call.error as InputDeliveryError;
    expect(error.taskId).toBe('t1');
    expect(error.key).toBe('ask');
    expect((error.cause as HttpError).retryAfterMs).toBe(HOUR);
    expect(transport.of('tasks/update')).toHaveLength(1);
    await client.close();
  });
});

describe('tasks/get answered 429 + Retry-After + a JSON-RPC -32000 body', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('is a slow-down, not a verdict: the next poll waits the 2 s Retry-After, the task completes, no tasks/cancel', async () => {
    let polls = 0;
    const { transport, client } = setup((m) => {
      if (m === 'tools/call') return created({ pollIntervalMs: 300 });
      if (m === 'tasks/get') {
        polls++;
        if (polls === 1)
          throw new McpError(
            'tasks/get',
            { code: -32000, message: 'slow down' },
            { httpStatus: 429, retryAfterMs: 2_000 },
          );
        return detailed({ status: 'completed', pollIntervalMs: 300, result: { content: [] } });
      }
      return {};
    });
    const handle = await startTask(client);
    const result = outcome(handle.result());
    await vi.advanceTimersByTimeAsync(300);
    expect(transport.of('tasks/get').map((s) => s.at - T0)).toEqual([300]);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(transport.of('tasks/get')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(transport.of('tasks/get').map((s) => s.at - T0)).toEqual([300, 2_300]);
    await vi.advanceTimersByTimeAsync(0);
    expect(result.value).toEqual({ content: [] });
    expect(transport.of('tasks/cancel')).toHaveLength(0);
  });
});

describe("a handle's error events for failed polls name the task", () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('HttpError 503 and McpError 429 emitted on the handle carry taskId; the task then completes', async () => {
    let polls = 0;
    const { client } = setup((m) => {
      if (m === 'tools/call') return created({ pollIntervalMs: 100 });
      if (m === 'tasks/get') {
        polls++;
        if (polls === 1) throw new HttpError('tasks/get', 503, 'busy', 1_000);
        if (polls === 2)
          throw new McpError('tasks/get', { code: -32000, message: 'slow down' }, { httpStatus: 429 });
        return detailed({ status: 'completed', result: { content: [] } });
      }
      return {};
    });
    const handle = await startTask(client);
    const errors: unknown[] = [];
    handle.on('error', (e) => errors.push(e));
    const result = outcome(handle.result());
    await vi.advanceTimersByTimeAsync(10_000);
    expect(errors.map((e) => [(e as Error).constructor.name, (e as { taskId?: string }).taskId])).toEqual([
      ['HttpError', 't1'],
      ['McpError', 't1'],
    ]);
    expect(result.value).toEqual({ content: [] });
  });
});
