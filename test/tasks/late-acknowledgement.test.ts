/**
 * A late acknowledgement never turns a result into a failure: when a `tasks/update` is still on the wire as a poll
 * reports the task `completed`, the call resolves with the result and `respond()` resolves once the server's
 * acknowledgement arrives, instead of rejecting "could not be delivered" for an answer the server received
 * (ext-tasks § Task Update Requests; CLIENT-REQUIREMENTS: only the server's word).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  InputDeliveryError,
  MemoryTaskStore,
  TaskClient,
  type ElicitResult,
  type InputRequiredEvent,
} from '../../src/index.js';
import { ScriptedTransport } from '../helpers/scripted-transport.js';
import {
  completed,
  created,
  deferred,
  detailed,
  elicit,
  outcome,
  toolResult,
} from '../helpers/unit-fixtures.js';

const T0 = Date.parse('2026-08-01T12:00:00Z');
const accept: ElicitResult = { action: 'accept', content: { ok: true } };

/** A task that asks `ask`, then (once the answer is on its way) completes; each `tasks/update` is acked by `ack`. */
function server(ack: Promise<Record<string, unknown>>, updateFails = false) {
  let answered = false;
  const transport = new ScriptedTransport((m) => {
    if (m === 'tools/call') return created();
    if (m === 'tasks/update') {
      answered = true;
      return updateFails ? ack.then(() => Promise.reject(new Error('connection reset'))) : ack;
    }
    if (m === 'tasks/cancel') return {};
    return answered
      ? completed(toolResult('done'))
      : detailed({ status: 'input_required', inputRequests: { ask: elicit('ok?') } });
  });
  const client = new TaskClient({ transport, store: new MemoryTaskStore() });
  const warnings: string[] = [];
  client.on('warning', (w) => warnings.push(w));
  return { transport, client, warnings };
}

describe('a tasks/update still in flight when a poll reports completed', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('startTool: result() resolves with the result; respond() resolves with the key once the late ack arrives', async () => {
    const ack = deferred<Record<string, unknown>>();
    const { transport, client } = server(ack.promise);
    const start = await client.startTool('job', {});
    if (start.resultType !== 'task') throw new Error('expected a task');
    const handle = start.task;
    const result = outcome(handle.result());
    await vi.advanceTimersByTimeAsync(1_100); // first poll (one interval + jitter): input_required
    const answer = outcome(handle.respond({ ask: accept }));
    await vi.advanceTimersByTimeAsync(10); // the tasks/update is on the wire, not yet acknowledged
    expect(transport.of('tasks/update')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_100); // next poll: completed
    expect(handle.status).toBe('completed');
    expect(result.value).toEqual(toolResult('done'));
    expect(answer.settled).toBe(false); // the answer's fate is the server's acknowledgement, still on its way
    ack.resolve({});
    await vi.advanceTimersByTimeAsync(0);
    expect(answer.error).toBeUndefined();
    expect(answer.value).toEqual(['ask']);
    expect(transport.of('tasks/update')).toHaveLength(1);
    await client.close();
  });

  it('callTool with an inputRequired listener: the call resolves with the result, no warning or error about the answer', async () => {
    const ack = deferred<Record<string, unknown>>();
    const { client, warnings } = server(ack.promise);
    const answers: Array<{ value?: unknown; error?: unknown; settled: boolean }> = [];
    client.on(
      'inputRequired',
      (event: InputRequiredEvent) => void answers.push(outcome(event.respond(accept))),
    );
    const call = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(1_100);
    await vi.advanceTimersByTimeAsync(1_100);
    ack.resolve({});
    await vi.advanceTimersByTimeAsync(0);
    expect(call.value).toEqual(toolResult('done'));
    expect(answers).toHaveLength(1);
    expect(answers[0]!.error).toBeUndefined();
    expect(answers[0]!.value).toBe(true);
    expect(warnings).toEqual([]);
    await client.close();
  });

  it('an update whose attempt on the wire then fails is reported as not delivered, and is not retried after the end', async () => {
    const ack = deferred<Record<string, unknown>>();
    const { transport, client } = server(ack.promise, true);
    const start = await client.startTool('job', {});
    if (start.resultType !== 'task') throw new Error('expected a task');
    await vi.advanceTimersByTimeAsync(1_100);
    const answer = outcome(start.task.respond({ ask: accept }));
    await vi.advanceTimersByTimeAsync(1_100);
    expect(start.task.status).toBe('completed');
    ack.resolve({});
    await vi.advanceTimersByTimeAsync(60_000);
    expect(answer.error).toBeInstanceOf(InputDeliveryError);
    expect(transport.of('tasks/update')).toHaveLength(1);
    await client.close();
  });
});
