/**
 * `resultType` on `tasks/get`, `tasks/update` and `tasks/cancel` replies.
 *
 * Spec: modelcontextprotocol/ext-tasks schema/draft/schema.ts (`GetTaskResult`, `UpdateTaskResult`,
 * `CancelTaskResult`: `resultType: "complete"`) and specification/draft/tasks.md § Task Polling ("The `resultType`
 * field MUST be set to "complete" on this object"); modelcontextprotocol/modelcontextprotocol
 * docs/specification/2026-07-28/basic/index.mdx § ResultType ("A resultType of any value unrecognized by the client
 * MUST be considered invalid." / "clients MUST treat an absent resultType as "complete"").
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidResponseError, TaskClient } from '../../../src/index.js';
import { checkTaskReplyResultType } from '../../../src/client/task-replies.js';
import { ScriptedTransport } from '../../helpers/scripted-transport.js';
import { completed, created, detailed, elicit, outcome } from '../../helpers/unit-fixtures.js';

describe('checkTaskReplyResultType (basic/index.mdx § ResultType; ext-tasks schema GetTaskResult/UpdateTaskResult/CancelTaskResult)', () => {
  it.each([
    ['tasks/get', undefined],
    ['tasks/get', 'complete'],
    ['tasks/get', 'task'], // the extension's own examples (tasks.md § Task Execution Errors) show it: read by status
    ['tasks/update', undefined],
    ['tasks/update', 'complete'],
    ['tasks/cancel', 'complete'],
    ['tools/list', 'whatever'], // other methods are checked elsewhere
  ])('%s with resultType %s is accepted', (method, resultType) => {
    const result = resultType === undefined ? {} : { resultType };
    expect(checkTaskReplyResultType(method, result)).toBe(result);
  });

  it.each([
    ['tasks/get', 'input_required'],
    ['tasks/get', 'completed'],
    ['tasks/get', 7],
    ['tasks/update', 'task'],
    ['tasks/update', 'done'],
    ['tasks/cancel', 'cancelled'],
    ['tasks/cancel', null],
  ])('%s with resultType %j is an InvalidResponseError', (method, resultType) => {
    expect(() => checkTaskReplyResultType(method, { resultType })).toThrow(InvalidResponseError);
  });

  it('a hostile value is shown escaped and short', () => {
    const error = (() => {
      try {
        checkTaskReplyResultType('tasks/get', { resultType: `\u001b[31m${'x'.repeat(500)}` });
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(error?.message).not.toContain('\u001b');
    expect(error?.message.length).toBeLessThan(200);
  });
});

describe('through TaskClient: an unknown resultType is never accepted silently', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('tasks/get "MUST be set to complete": a reply with resultType "bogus" rejects the call with InvalidResponseError', async () => {
    const transport = new ScriptedTransport((method) => (method === 'tools/call' ? created() : completed(undefined, { resultType: 'bogus' })));
    const client = new TaskClient({ transport, jitterRatio: 0 });
    const call = outcome(client.callTool('job'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(call.error).toBeInstanceOf(InvalidResponseError);
    expect((call.error as InvalidResponseError).method).toBe('tasks/get');
    await client.close();
  });

  it('tasks/get with no resultType is read as complete (absent = "complete")', async () => {
    const { resultType: _, ...bare } = completed();
    const transport = new ScriptedTransport((method) => (method === 'tools/call' ? created() : bare));
    const client = new TaskClient({ transport, jitterRatio: 0 });
    const call = outcome(client.callTool('job'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(call.value).toEqual({ content: [{ type: 'text', text: 'done' }] });
    await client.close();
  });

  it('tasks/update (UpdateTaskResult resultType "complete"): "task" → respond() rejects with InvalidResponseError', async () => {
    const transport = new ScriptedTransport((method) => {
      if (method === 'tools/call') return created();
      if (method === 'tasks/update') return { resultType: 'task' };
      return detailed({ status: 'input_required', inputRequests: { q: elicit('?') } });
    });
    const client = new TaskClient({ transport, jitterRatio: 0 });
    const start = await client.startTool('job');
    if (start.resultType !== 'task') throw new Error('expected a task');
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(start.task.respond({ q: { action: 'accept', content: { ok: true } } })).rejects.toBeInstanceOf(InvalidResponseError);
    await client.close();
  });

  it('tasks/cancel (CancelTaskResult resultType "complete"): "cancelled" → cancel() rejects with InvalidResponseError', async () => {
    const transport = new ScriptedTransport((method) => (method === 'tools/call' ? created() : method === 'tasks/cancel' ? { resultType: 'cancelled' } : detailed()));
    const client = new TaskClient({ transport, jitterRatio: 0 });
    const start = await client.startTool('job');
    if (start.resultType !== 'task') throw new Error('expected a task');
    start.task.result().catch(() => undefined);
    const error = await start.task.cancel().catch((e: unknown) => e);
    // The delivery layer reports an undelivered cancel as CancelDeliveryError; the invalid reply is its cause.
    const chain: unknown[] = [];
    for (let e: unknown = error; e instanceof Error && chain.length < 5; e = e.cause) chain.push(e);
    expect(chain.some((e) => e instanceof InvalidResponseError && e.method === 'tasks/cancel')).toBe(true);
    await client.close();
  });
});
