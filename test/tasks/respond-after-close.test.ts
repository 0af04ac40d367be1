/**
 * Answering a task's question after `client.close()`, by the handle (`TaskHandle.respond`) or by the event
 * (`InputRequiredEvent.respond`): nothing reaches the server, nothing rejects, the answer is reported dropped (a
 * `warning` naming the key) and the question stays unanswered, as their TSDoc says (ext-tasks § Task Update
 * Requests: no `tasks/update` for a task this client stopped following).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ElicitResult, InputRequiredEvent } from '../../src/index.js';
import type { Handler } from '../helpers/scripted-transport.js';
import { created, detailed, elicit, flush } from '../helpers/unit-fixtures.js';
import { setup, startTask, T0 } from '../helpers/engine-setup.js';

const accept: ElicitResult = { action: 'accept', content: { ok: true } };
const DROPPED = 'task t1: answer to input request "ask" dropped, not sent: the client was closed';

const asking: Handler = (m) => {
  if (m === 'tools/call') return created();
  if (m === 'tasks/update' || m === 'tasks/cancel') return {};
  return detailed({ status: 'input_required', inputRequests: { ask: elicit('ask?') } });
};

describe('respond() after client.close()', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('TaskHandle.respond resolves [] (no key sent), sends no tasks/update, and warns on the handle and the client', async () => {
    const { transport, client, warnings } = setup(asking);
    const handle = await startTask(client);
    const handleWarnings: string[] = [];
    handle.on('warning', (w) => handleWarnings.push(w));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(handle.status).toBe('input_required');
    await client.close();
    await expect(handle.respond({ ask: accept })).resolves.toEqual([]);
    await flush();
    expect(transport.of('tasks/update')).toHaveLength(0);
    expect(handleWarnings).toEqual([DROPPED]);
    expect(warnings).toContain(DROPPED);
  });

  it('InputRequiredEvent.respond resolves false though the key was never answered; the event stays unanswered', async () => {
    const { transport, client, warnings } = setup(asking);
    const events: InputRequiredEvent[] = [];
    client.on('inputRequired', (e) => events.push(e));
    await startTask(client);
    await vi.advanceTimersByTimeAsync(1_000);
    await client.close();
    const event = events[0] as InputRequiredEvent;
    await expect(event.respond(accept)).resolves.toBe(false);
    await flush();
    expect(event.answered).toBe(false);
    expect(transport.of('tasks/update')).toHaveLength(0);
    expect(warnings).toContain(DROPPED);
  });
});
