import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TaskClient } from '../../src/index.js';
import { ScriptedTransport } from '../helpers/scripted-transport.js';
import '../helpers/no-jitter.js';

describe('smoke', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('turns a task into one promise and polls no sooner than pollIntervalMs', async () => {
    let polls = 0;
    const transport = new ScriptedTransport((method) => {
      if (method === 'tools/call')
        return {
          resultType: 'task',
          taskId: 't1',
          status: 'working',
          createdAt: 'x',
          lastUpdatedAt: 'x',
          ttlMs: 60_000,
          pollIntervalMs: 500,
        };
      if (method === 'tasks/get') {
        polls++;
        return polls < 3
          ? { resultType: 'complete', taskId: 't1', status: 'working', ttlMs: 60_000, pollIntervalMs: 500 }
          : {
              resultType: 'complete',
              taskId: 't1',
              status: 'completed',
              ttlMs: 60_000,
              result: { content: [{ type: 'text', text: 'ok' }] },
            };
      }
      return { error: { code: -32601, message: 'nope' } };
    });
    const client = new TaskClient({ transport });
    const done = client.callTool('slow', { n: 1 });
    await vi.advanceTimersByTimeAsync(1_499);
    expect(transport.of('tasks/get').map((s) => s.at)).toEqual([500, 1000]);
    await vi.advanceTimersByTimeAsync(1);
    await expect(done).resolves.toEqual({ content: [{ type: 'text', text: 'ok' }] });
    expect(transport.of('tasks/get').map((s) => s.at)).toEqual([500, 1000, 1500]);
  });
});
