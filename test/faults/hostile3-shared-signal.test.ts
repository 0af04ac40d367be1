/**
 * One caller's `AbortSignal` shared by many concurrent calls (a request-scoped or process-wide shutdown signal), some
 * of which the server turns into tasks during the abort grace. Every task the server created is cancelled by id,
 * each call rejects (typed, never a hang), the signal never reaches Node's MaxListenersExceededWarning, and each
 * rejection names the task that call started (`taskId`), since that is how a caller learns which work it started.
 * Real HTTP on loopback, fake timers for the client's clock. CLIENT-REQUIREMENTS 1.2 (never orphan work: reported by
 * id), 1.3 (nothing silent).
 */
import { describe, expect, it, vi } from 'vitest';
import { OutcomeUnknownError, redactTaskId, TaskDetachedError } from '../../src/node.js';
import { createdTask, GRACE_MS, settledBox, useHostile } from './hostile3-harness.js';
import { type Held, ioTurn, until } from './hostile3-server.js';

const bench = useHostile();

/** Starts `n` calls on one signal and waits until the server holds every `tools/call`. */
async function callsOnOneSignal(n: number, options: { onAbort?: 'cancel' | 'detach' } = {}) {
  const client = bench.client({}, { maxConnectionsPerOrigin: n });
  const controller = new AbortController();
  const calls = Array.from({ length: n }, (_, i) =>
    settledBox(client.callTool('deploy', { i }, { ...options, signal: controller.signal })),
  );
  const held: Held[] = [];
  for (let i = 0; i < n; i++) held.push(await bench.server.next('tools/call'));
  held.sort(
    (a, b) =>
      Number((a.params.arguments as { i: number }).i) - Number((b.params.arguments as { i: number }).i),
  );
  return { client, controller, calls, held };
}

describe('hostile3: one AbortSignal shared by 50 calls', () => {
  it('25 tasks before the abort, 15 during the grace, 5 inline answers, 5 silent: 40 cancels by id, typed rejections, no warning', async () => {
    const { controller, calls, held } = await callsOnOneSignal(50);
    for (let i = 0; i < 25; i++) held[i]!.result(createdTask(`task-${i}`));
    await until(() => bench.server.log.length === 50 && calls.every((c) => !c.settled), 'first tasks');
    for (let i = 0; i < 50; i++) await ioTurn(); // the 25 tasks are followed
    const reason = new Error('shutdown');
    controller.abort(reason);
    for (let i = 25; i < 40; i++) held[i]!.result(createdTask(`task-${i}`));
    for (let i = 40; i < 45; i++) held[i]!.result({ content: [{ type: 'text', text: 'inline' }] });
    await until(() => calls.slice(0, 45).every((c) => c.settled), 'answered calls settled');
    expect(calls.slice(45).some((c) => c.settled)).toBe(false); // the silent ones wait out the grace
    await vi.advanceTimersByTimeAsync(GRACE_MS);
    await until(() => calls.every((c) => c.settled), 'all settled');
    const cancelled = bench.server.log.filter((r) => r.method === 'tasks/cancel').map((r) => r.params.taskId);
    expect(new Set(cancelled)).toEqual(new Set(Array.from({ length: 40 }, (_, i) => `task-${i}`)));
    expect(cancelled).toHaveLength(40);
    for (const call of calls.slice(0, 45)) expect(call.error).toBe(reason);
    for (const call of calls.slice(45)) {
      expect(call.error).toBeInstanceOf(OutcomeUnknownError);
      expect((call.error as OutcomeUnknownError).cause).toBe(reason);
    }
    expect(bench.server.count('tools/call')).toBe(50); // nothing re-sent
  });

  it("each call's rejection names its own task: with onAbort 'detach' it is the only place the id is reported", async () => {
    const { client, controller, calls, held } = await callsOnOneSignal(3, { onAbort: 'detach' });
    const warnings: string[] = [];
    client.on('warning', (w) => warnings.push(w));
    const reason = new Error('shutdown');
    controller.abort(reason);
    held[0]!.result(createdTask('task-a'));
    held[1]!.result(createdTask('task-b'));
    held[2]!.result({ content: [{ type: 'text', text: 'inline' }] });
    await until(() => calls.every((c) => c.settled), 'settled');
    expect(bench.server.count('tasks/cancel')).toBe(0); // detached: the tasks run on
    expect(calls.map((c) => (c.error as { taskId?: string }).taskId)).toEqual([
      'task-a',
      'task-b',
      undefined,
    ]);
    for (const [i, taskId] of ['task-a', 'task-b'].entries()) {
      const error = calls[i]!.error as TaskDetachedError;
      expect(error).toBeInstanceOf(TaskDetachedError);
      expect(error.code).toBe('TASK_DETACHED');
      expect(error.cause).toBe(reason);
      expect(error.message).toBe(
        `tools/call: the call was aborted and task ${redactTaskId(taskId)} left running (onAbort 'detach')`,
      );
    }
    expect(calls[2]!.error).toBe(reason); // answered inline: nothing left running, the reason as it is
    expect(Object.hasOwn(reason, 'taskId')).toBe(false); // the caller's shared reason is not written to
    expect(warnings).toEqual([
      'tools/call deploy: the server answered after the call was aborted: the work ran to completion; the call rejects with the abort reason and the result is dropped',
    ]); // only the inline answer's: the rejections name every task
  });
});

describe("hostile3: an abort reason that cannot carry taskId, onAbort 'detach', no store", () => {
  for (const [what, reason] of [
    ['a string', 'stop'],
    ['a frozen Error', Object.freeze(new Error('stop'))],
  ] as const)
    it(`${what}: the call rejects with TaskDetachedError naming the task left running (cause: the reason)`, async () => {
      const client = bench.client();
      const warnings: string[] = [];
      client.on('warning', (w) => warnings.push(w));
      const controller = new AbortController();
      const call = settledBox(
        client.callTool('deploy', {}, { signal: controller.signal, onAbort: 'detach' }),
      );
      const held = await bench.server.next('tools/call');
      controller.abort(reason);
      held.result(createdTask('task-detached-1'));
      await until(() => call.settled, 'settled');
      expect(call.error).toBeInstanceOf(TaskDetachedError);
      expect(call.error).toMatchObject({
        code: 'TASK_DETACHED',
        taskId: 'task-detached-1',
        method: 'tools/call',
      });
      expect((call.error as TaskDetachedError).cause).toBe(reason);
      expect(bench.server.count('tasks/cancel')).toBe(0);
      expect(warnings).toEqual([]);
    });
});
