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
import {
  CancelDeliveryError,
  CancelNotConfirmedError,
  InvalidResponseError,
  McpError,
  TaskClient,
} from '../../src/index.js';
import { checkTaskReplyResultType } from '../../src/modern/task-replies.js';
import { ScriptedTransport } from '../helpers/scripted-transport.js';
import { completed, created, detailed, elicit, outcome } from '../helpers/unit-fixtures.js';
import '../helpers/no-jitter.js';

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
    const transport = new ScriptedTransport((method) =>
      method === 'tools/call' ? created() : completed(undefined, { resultType: 'bogus' }),
    );
    const client = new TaskClient({ transport });
    const call = outcome(client.callTool('job'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(call.error).toBeInstanceOf(InvalidResponseError);
    expect((call.error as InvalidResponseError).method).toBe('tasks/get');
    await client.close();
  });

  it('tasks/get with no resultType is read as complete (absent = "complete")', async () => {
    const { resultType: _, ...bare } = completed();
    const transport = new ScriptedTransport((method) => (method === 'tools/call' ? created() : bare));
    const client = new TaskClient({ transport });
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
    const client = new TaskClient({ transport });
    const start = await client.startTool('job');
    if (start.resultType !== 'task') throw new Error('expected a task');
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(
      start.task.respond({ q: { action: 'accept', content: { ok: true } } }),
    ).rejects.toBeInstanceOf(InvalidResponseError);
    await client.close();
  });

  it.each(['cancelled', 'task'])(
    'tasks/cancel (CancelTaskResult resultType "complete"): %j → cancel() rejects with CancelNotConfirmedError (the request reached the server), a serverViolation names it',
    async (resultType) => {
      const transport = new ScriptedTransport((method) =>
        method === 'tools/call' ? created() : method === 'tasks/cancel' ? { resultType } : detailed(),
      );
      const client = new TaskClient({ transport });
      const violations: string[] = [];
      client.on('serverViolation', (d) => violations.push(d));
      const start = await client.startTool('job');
      if (start.resultType !== 'task') throw new Error('expected a task');
      start.task.result().catch(() => undefined);
      const error = await start.task.cancel().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CancelNotConfirmedError);
      expect((error as CancelNotConfirmedError).invalidAck).toBe(true);
      expect((error as Error).message).toBe(
        `task t1: tasks/cancel reached the server, but its reply was not an acknowledgement: resultType "${resultType}" on a tasks/cancel reply (the extension requires "complete"); the cancel is not confirmed (last status working)`,
      );
      expect((error as Error).message).not.toMatch(/could not be delivered/);
      expect((error as Error).cause).toBeInstanceOf(InvalidResponseError);
      expect(transport.of('tasks/cancel')).toHaveLength(1); // sent once: re-sending cannot make the reply valid
      expect(violations).toEqual([
        expect.stringContaining(`resultType "${resultType}" on a tasks/cancel reply`),
      ]);
      expect(start.task.done).toBe(false); // the server's word still decides how the task ends
      await client.close();
    },
  );

  it('tasks/cancel acknowledged with resultType "task" after a caller abort: the call rejects with the abort reason carrying the taskId (the cancel reached the server)', async () => {
    const transport = new ScriptedTransport((method) =>
      method === 'tools/call' ? created() : method === 'tasks/cancel' ? { resultType: 'task' } : detailed(),
    );
    const client = new TaskClient({ transport });
    const controller = new AbortController();
    const call = outcome(client.callTool('job', {}, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(10);
    const reason = new Error('stop');
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(10);
    expect(call.error).toBe(reason);
    expect((call.error as { taskId?: string }).taskId).toBe('t1');
    expect(transport.of('tasks/cancel')).toHaveLength(1);
    await client.close();
  });

  it('tasks/cancel refused with a JSON-RPC error: CancelDeliveryError says the server refused it, not that it could not be delivered', async () => {
    const transport = new ScriptedTransport((method) => {
      if (method === 'tools/call') return created();
      if (method === 'tasks/cancel')
        throw new McpError('tasks/cancel', { code: -32603, message: 'cancel not supported here' });
      return detailed();
    });
    const client = new TaskClient({ transport });
    const start = await client.startTool('job');
    if (start.resultType !== 'task') throw new Error('expected a task');
    start.task.result().catch(() => undefined);
    const error = (await start.task.cancel().catch((e: unknown) => e)) as CancelDeliveryError;
    expect(error).toBeInstanceOf(CancelDeliveryError);
    expect(error.message).toMatch(
      /^task t1: the server refused tasks\/cancel: .*cancel not supported here.*; the task may still be running$/,
    );
    await client.close();
  });
});
