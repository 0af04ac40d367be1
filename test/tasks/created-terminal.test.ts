/**
 * A CreateTaskResult's status is the server's word: "The embedded `task` is the seed state for the task, typically
 * (though not necessarily) with `status: "working"`" (ext-tasks specification/draft/tasks.md § Task Creation), and
 * `CreateTaskResult = Result & Task` allows every status. A terminal one is kept, never rewritten to `working`.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TaskCancelledError, TaskFailedError } from '../../src/index.js';
import { parseCreateTaskResult } from '../../src/protocol/tasks.js';
import { created, detailed, outcome } from '../helpers/unit-fixtures.js';
import { setup, T0 } from '../helpers/engine-setup.js';

describe('parseCreateTaskResult keeps a terminal status', () => {
  it('cancelled, failed (with or without error) and completed with its result come back as sent, no onTerminal', () => {
    const onTerminal = vi.fn();
    expect(parseCreateTaskResult(created({ status: 'cancelled' }), { onTerminal }).status).toBe('cancelled');
    expect(parseCreateTaskResult(created({ status: 'failed' }), { onTerminal }).status).toBe('failed');
    expect(
      parseCreateTaskResult(created({ status: 'failed', error: { code: -32603, message: 'x' } }), {
        onTerminal,
      }),
    ).toMatchObject({ status: 'failed', error: { code: -32603, message: 'x' } });
    expect(
      parseCreateTaskResult(created({ status: 'completed', result: { content: [] } }), { onTerminal }),
    ).toMatchObject({ status: 'completed', result: { content: [] } });
    expect(onTerminal).not.toHaveBeenCalled();
  });

  it('completed without result (CreateTaskResult carries none): onTerminal, so the result is fetched with tasks/get', () => {
    const onTerminal = vi.fn();
    expect(parseCreateTaskResult(created({ status: 'completed' }), { onTerminal }).status).toBe('working');
    expect(onTerminal).toHaveBeenCalledTimes(1);
  });
});

describe('TaskClient: a CreateTaskResult that is already terminal', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('cancelled: the call rejects with TaskCancelledError at once; the handle says cancelled; no tasks/get, no tasks/cancel', async () => {
    const { transport, client } = setup((m) =>
      m === 'tools/call'
        ? created({ status: 'cancelled', statusMessage: 'refused' })
        : detailed({ status: 'working' }),
    );
    const statuses: string[] = [];
    const done = outcome(
      client.callTool('job', {}, { onTask: (h) => void h.on('status', (t) => statuses.push(t.status)) }),
    );
    await vi.advanceTimersByTimeAsync(5_000);
    expect(done.error).toBeInstanceOf(TaskCancelledError);
    expect((done.error as TaskCancelledError).taskId).toBe('t1');
    expect(statuses).toEqual(['cancelled']);
    expect(transport.of('tasks/get')).toHaveLength(0);
    expect(transport.of('tasks/cancel')).toHaveLength(0);
  });

  it('failed: TaskFailedError at once, with the error the reply carried', async () => {
    const { transport, client } = setup((m) =>
      m === 'tools/call'
        ? created({ status: 'failed', error: { code: -32603, message: 'boom' } })
        : detailed({ status: 'working' }),
    );
    const done = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(done.error).toBeInstanceOf(TaskFailedError);
    expect((done.error as TaskFailedError).error).toEqual({ code: -32603, message: 'boom' });
    expect(transport.of('tasks/get')).toHaveLength(0);
  });

  it('completed with a result in the reply: resolves with it, no tasks/get', async () => {
    const { transport, client } = setup((m) =>
      m === 'tools/call'
        ? created({ status: 'completed', result: { content: [{ type: 'text', text: 'inline-done' }] } })
        : detailed({ status: 'working' }),
    );
    const done = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(0);
    expect(done.value).toEqual({ content: [{ type: 'text', text: 'inline-done' }] });
    expect(transport.of('tasks/get')).toHaveLength(0);
  });

  it('completed without a result: one tasks/get at once fetches it', async () => {
    const { transport, client } = setup((m) =>
      m === 'tools/call'
        ? created({ status: 'completed' })
        : detailed({ status: 'completed', result: { content: [] } }),
    );
    const done = outcome(client.callTool('job', {}));
    await vi.advanceTimersByTimeAsync(0);
    expect(transport.of('tasks/get').map((s) => s.at - T0)).toEqual([0]);
    expect(done.value).toEqual({ content: [] });
  });
});
