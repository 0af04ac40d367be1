/**
 * A hostile `tasks/get` whose `inputRequests` holds 1,000,000 questions (each one malformed): the count limit is
 * applied before any question is validated, so the task is cancelled and the call fails with
 * `TooManyInputRequestsError` (per reply, the real count, the task id redacted in the message) instead of the client
 * validating a million values (and building a million validation issues) first. Real HTTP on loopback, fake timers
 * for the client's clock. CLIENT-REQUIREMENTS: question limits, hostile server input.
 */
import { describe, expect, it, vi } from 'vitest';
import { TooManyInputRequestsError } from '../../src/node.js';
import { parseDetailedTask } from '../../src/protocol/tasks.js';
import { createdTask, settledBox, useHostile } from './hostile3-harness.js';
import { ioTurn, until, wireTask } from './hostile3-server.js';

const bench = useHostile();
const FLOOD = 1_000_000;

/** `{"0":0,"1":0,…}`: `count` malformed questions, written as JSON text directly (cheap for the server). */
function floodJson(count: number): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(`"${i}":0`);
  return `{${parts.join(',')}}`;
}

describe('hostile3: a flood of input requests', () => {
  it('1,000,000 malformed questions in one tasks/get: TooManyInputRequestsError (per reply) before any is validated; tasks/cancel sent', async () => {
    const taskId = 'task-flood-0123456789';
    const flood = floodJson(FLOOD);
    bench.server.auto = (held) => {
      if (held.method === 'tasks/get') {
        const head = JSON.stringify({
          resultType: 'complete',
          ...wireTask(taskId, { status: 'input_required' }),
        });
        held.raw(
          200,
          `{"jsonrpc":"2.0","id":${JSON.stringify(held.id)},"result":${head.slice(0, -1)},"inputRequests":${flood}}}`,
        );
        return true;
      }
      if (held.method === 'tasks/cancel') {
        held.result({ resultType: 'complete', ...wireTask(taskId, { status: 'cancelled' }) });
        return true;
      }
      return undefined;
    };
    const client = bench.client({ handlers: { elicitation: () => ({ action: 'accept', content: {} }) } });
    const asked: unknown[] = [];
    client.on('inputRequired', (event) => asked.push(event));
    const call = settledBox(client.callTool('deploy', {}));
    (await bench.server.next('tools/call')).result(createdTask(taskId, { pollIntervalMs: 100 }));
    for (let i = 0; i < 50 && !call.settled; i++) {
      await vi.advanceTimersByTimeAsync(200);
      await ioTurn();
    }
    await until(() => call.settled, 'settled');
    const error = call.error as TooManyInputRequestsError;
    expect(error).toBeInstanceOf(TooManyInputRequestsError);
    expect([error.per, error.limit, error.count, error.taskId]).toEqual(['reply', 1_000, FLOOD, taskId]);
    expect(error.message).not.toContain(taskId); // redacted
    expect(error.taskCancel).toEqual({ kind: 'cancel-requested' });
    expect(bench.server.count('tasks/cancel')).toBe(1);
    expect(asked).toEqual([]);
  }, 30_000);

  it('the parser keeps an over-limit inputRequests as sent, its values unchecked (none is ever offered)', () => {
    const inputRequests = JSON.parse(floodJson(1_001)) as Record<string, unknown>;
    const task = parseDetailedTask({ ...wireTask('t-1', { status: 'input_required' }), inputRequests });
    expect(task.status).toBe('input_required');
    expect(task.status === 'input_required' && task.inputRequests).toBe(inputRequests);
  });

  it('at the limit (1,000 keys) every value is still checked: a malformed one is an invalid reply', () => {
    const inputRequests = JSON.parse(floodJson(1_000)) as Record<string, unknown>;
    expect(() =>
      parseDetailedTask({ ...wireTask('t-1', { status: 'input_required' }), inputRequests }),
    ).toThrow(/invalid tasks\/get result/);
  });
});
