/**
 * What a record keeps for the people who come back to it: who answered each question and when the server
 * acknowledged it (`answers`, from `respond(response, { answeredBy })`), and `uncollected` when a task ended while
 * no caller awaited its outcome (a detached call, a host that went away), so a result is not lost in silence.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { completed, created, detailed, queue } from '../helpers/unit-fixtures.js';
import { askingTask, setup, startTask, T0 } from '../helpers/engine-setup.js';

beforeEach(() =>
  vi.useFakeTimers({
    now: T0,
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  }),
);
afterEach(() => vi.useRealTimers());

const asking = askingTask;

describe('audit marks in the task record', () => {
  it('a task that ends while nobody awaits result() is recorded uncollected', async () => {
    const get = queue([detailed(), completed()]);
    const { client, store } = setup((m) => (m === 'tools/call' ? created() : get()));
    await startTask(client);
    await vi.advanceTimersByTimeAsync(2_500);
    const record = await store.get('t1');
    expect(record?.outcome?.status).toBe('completed');
    expect(record?.uncollected).toBe(true);
  });

  it('a task whose outcome a caller awaited is not', async () => {
    const get = queue([detailed(), completed()]);
    const { client, store } = setup((m) => (m === 'tools/call' ? created() : get()));
    const handle = await startTask(client);
    const result = handle.result();
    await vi.advanceTimersByTimeAsync(2_500);
    await result;
    const record = await store.get('t1');
    expect(record?.outcome?.status).toBe('completed');
    expect(record?.uncollected).toBeUndefined();
  });

  it('an acknowledged answer is recorded with who answered and when', async () => {
    const get = queue([asking, asking, completed()]);
    const { client, store } = setup(
      (m) => (m === 'tools/call' ? created() : m === 'tasks/update' ? {} : get()),
      { capabilities: { elicitation: { form: {} } } },
    );
    client.on(
      'inputRequired',
      (event) => void event.respond({ action: 'accept', content: { ok: true } }, { answeredBy: 'alice' }),
    );
    const handle = await startTask(client);
    const result = handle.result();
    await vi.advanceTimersByTimeAsync(1_000);
    const answeredAt = Date.now();
    await vi.advanceTimersByTimeAsync(2_000);
    await result;
    const record = await store.get('t1');
    expect(record?.answeredKeys).toEqual(['confirm']);
    expect(record?.answers).toEqual([{ key: 'confirm', action: 'accept', answeredBy: 'alice', answeredAt }]);
  });
});
