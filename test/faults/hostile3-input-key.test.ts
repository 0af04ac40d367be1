/**
 * A hostile input request key (a C1 CSI, bidi override, 5,000 characters) on a task whose `tasks/update` the server
 * keeps refusing: the call fails with `InputDeliveryError` whose `key` keeps the server's key exactly and whose
 * `message` shows it escaped and cut, like every other server text in an error message. Real HTTP on loopback,
 * fake timers for the client's clock. House rule: never raw control characters reaching a terminal.
 */
import { describe, expect, it, vi } from 'vitest';
import { InputDeliveryError } from '../../src/node.js';
import { createdTask, settledBox, useHostile } from './hostile3-harness.js';
import { ioTurn, until, wireTask } from './hostile3-server.js';

const bench = useHostile();

describe('hostile3: a hostile input request key', () => {
  it('InputDeliveryError: key kept exactly, message escaped and bounded', async () => {
    const key = `k\u009b31m\u202eevil${'x'.repeat(5_000)}`;
    const question = {
      method: 'elicitation/create',
      params: { message: 'ok?', requestedSchema: { type: 'object', properties: {} } },
    };
    bench.server.auto = (held) => {
      if (held.method === 'tasks/get') {
        held.result({
          resultType: 'complete',
          ...wireTask('task-key', { status: 'input_required', inputRequests: { [key]: question } }),
        });
        return true;
      }
      if (held.method === 'tasks/update') {
        held.error(-32602, 'answer refused');
        return true;
      }
      if (held.method === 'tasks/cancel') {
        held.result({});
        return true;
      }
      return undefined;
    };
    const client = bench.client({ handlers: { elicitation: () => ({ action: 'accept', content: {} }) } });
    const call = settledBox(client.callTool('deploy', {}));
    (await bench.server.next('tools/call')).result(createdTask('task-key', { pollIntervalMs: 100 }));
    for (let i = 0; i < 200 && !call.settled; i++) {
      await vi.advanceTimersByTimeAsync(500);
      await ioTurn();
    }
    await until(() => call.settled, 'settled');
    const error = call.error as InputDeliveryError;
    expect(error).toBeInstanceOf(InputDeliveryError);
    expect(error.key).toBe(key);
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(error.message.length).toBeLessThan(1_000);
  });
});
