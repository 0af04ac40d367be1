/**
 * The framework-neutral adapter core on its own: the `maxWaitMs` wait under fake timers, option validation, tool
 * selection, and the texts the model reads.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  McpError,
  TaskCancelledError,
  TaskExpiredError,
  TaskFailedError,
  TaskNotFoundError,
  type TaskHandle,
} from '../../src/index.js';
import { resolveTaskToolsOptions } from '../../src/adapters/shared/options.js';
import { toolErrorFrom } from '../../src/adapters/shared/outcome.js';
import { selectTools } from '../../src/adapters/shared/select-tools.js';
import { waitForTask } from '../../src/adapters/shared/wait.js';

/** Just what `waitForTask` reads of a handle: `done` and `result()`. */
function fakeHandle<T>(): { handle: TaskHandle<T>; settle(value: T): void } {
  let resolve!: (value: T) => void;
  const outcome = new Promise<T>((r) => (resolve = r));
  let done = false;
  const handle = {
    get done() {
      return done;
    },
    result: () => outcome,
  } as unknown as TaskHandle<T>;
  return {
    handle,
    settle: (value) => {
      done = true;
      resolve(value);
    },
  };
}

afterEach(() => vi.useRealTimers());

describe('waitForTask', () => {
  it('ends with {timedOut} exactly at maxWaitMs and leaves no timer or listener behind', async () => {
    vi.useFakeTimers();
    const { handle } = fakeHandle<string>();
    const abort = new AbortController();
    const remove = vi.spyOn(abort.signal, 'removeEventListener');
    let end: unknown;
    void waitForTask(handle, 1_000, abort.signal).then((e) => (end = e));
    await vi.advanceTimersByTimeAsync(999);
    expect(end).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(end).toEqual({ timedOut: true });
    expect(vi.getTimerCount()).toBe(0);
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
  });

  it('ends with the outcome when it comes first, and clears the timer', async () => {
    vi.useFakeTimers();
    const { handle, settle } = fakeHandle<string>();
    const wait = waitForTask(handle, 60_000);
    settle('done');
    await expect(wait).resolves.toEqual({ settled: { ok: true, value: 'done' } });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('without maxWaitMs waits for the outcome and sets no timer', async () => {
    vi.useFakeTimers();
    const { handle, settle } = fakeHandle<string>();
    const wait = waitForTask(handle, undefined);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(3_600_000);
    settle('late');
    await expect(wait).resolves.toEqual({ settled: { ok: true, value: 'late' } });
  });

  it('rejects with the signal reason, untouched', async () => {
    vi.useFakeTimers();
    const { handle } = fakeHandle<string>();
    const abort = new AbortController();
    const reason = new Error('user stop');
    const wait = waitForTask(handle, 5_000, abort.signal);
    abort.abort(reason);
    await expect(wait).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('options and selection', () => {
  it('rejects bad options naming the option and the value', () => {
    expect(() => resolveTaskToolsOptions({ maxWaitMs: -1 })).toThrow(
      'createTaskTools: invalid option "maxWaitMs"',
    );
    expect(() => resolveTaskToolsOptions({ maxWaitMs: Number.NaN })).toThrow('(got null)');
    expect(() => resolveTaskToolsOptions({ onAbort: 'ignore' as 'cancel' })).toThrow(
      'invalid option "onAbort"',
    );
    expect(() => resolveTaskToolsOptions({ includ: ['x'] } as object)).toThrow('includ');
  });

  it('enables the task tools with maxWaitMs unless told otherwise', () => {
    expect(resolveTaskToolsOptions({}).taskTools).toBe(false);
    expect(resolveTaskToolsOptions({ maxWaitMs: 0 }).taskTools).toBe(true);
    expect(resolveTaskToolsOptions({ maxWaitMs: 10, taskTools: false }).taskTools).toBe(false);
  });

  it('includes, excludes and prefixes; a collision with a task tool is a TypeError', () => {
    const tools = [
      { name: 'a', inputSchema: { type: 'object' } },
      { name: 'b', inputSchema: { type: 'object' } },
      { name: 'task_status', inputSchema: { type: 'object' } },
    ] as never[];
    const opts = resolveTaskToolsOptions({ include: ['a', 'b'], exclude: ['b'], prefix: 'x_' });
    expect(selectTools(tools, opts, ['task_status']).map((t) => t.exposedName)).toEqual(['x_a']);
    expect(() => selectTools(tools, resolveTaskToolsOptions({}), ['task_status'])).toThrow(
      'two tools would be named "task_status"; set "prefix"',
    );
  });
});

describe('texts for the model', () => {
  const task = { taskId: 't-1', status: 'failed', ttlMs: null } as const;
  it.each([
    [
      new TaskFailedError({ ...task, error: { code: -32603, message: 'disk full' } }),
      'TASK_FAILED',
      'The tool "x" failed on the server (task t-1): disk full (JSON-RPC -32603).',
    ],
    [
      new TaskCancelledError('t-1'),
      'TASK_CANCELLED',
      'The tool "x" was cancelled before it finished (task t-1). Its work may be partly done; call it again only if it is still needed.',
    ],
    [
      new TaskExpiredError('t-1', Date.UTC(2026, 0, 1)),
      'TASK_EXPIRED',
      'The server no longer keeps task t-1 of the tool "x" (it expired at 2026-01-01T00:00:00.000Z), so its outcome cannot be known. Call it again if the work is still needed.',
    ],
    [
      new TaskNotFoundError('t-1'),
      'TASK_NOT_FOUND',
      'The server does not know task t-1 of the tool "x", so its outcome is unknown. Do not assume it finished; call it again if the work is still needed.',
    ],
    [
      new McpError('tools/call', { code: -32602, message: 'bad version' }),
      'SERVER_ERROR',
      'The server rejected the call to the tool "x": ',
    ],
  ])('%s → %s', (error, code, text) => {
    const mapped = toolErrorFrom('x', error);
    expect(mapped.code).toBe(code);
    expect(mapped.message.startsWith(text)).toBe(true);
    expect(mapped.cause).toBe(error);
  });
});

describe('hostile tool names', () => {
  it("a hostile tool name and task id in toolErrorFrom's sentences are escaped (ids and names never raw)", () => {
    const id = 't-1\u202e\u200b\u{e0041}\n';
    const cancelled = toolErrorFrom('deploy\u001b[2J\u2060', new TaskCancelledError(id));
    expect(cancelled.message).toBe(
      'The tool "deploy\\u001b[2J\\u2060" was cancelled before it finished (task t-1\\u202e\\u200b\\u{e0041}\\x0a). Its work may be partly done; call it again only if it is still needed.',
    );
    expect(cancelled.taskId).toBe(id); // the field stays exact
    expect(toolErrorFrom('x', new TaskNotFoundError(id)).message).toMatch(
      /^The server does not know task t-1\\u202e\\u200b\\u\{e0041\}\\x0a of the tool "x"/,
    );
  });

  it('a server tool named "__proto__" is an ordinary key of the AI SDK tool set', async () => {
    const { createTaskTools } = await import('../../src/adapters/ai-sdk/index.js');
    const stub = {
      listTools: async () => [
        { name: '__proto__', description: 'odd', inputSchema: { type: 'object', properties: {} } },
        { name: 'constructor', inputSchema: { type: 'object' } },
      ],
      startTool: async () => ({
        resultType: 'complete',
        result: { content: [{ type: 'text', text: 'ran' }] },
      }),
      on: () => undefined,
      off: () => undefined,
    };
    const tools = await createTaskTools(stub as never);
    expect(Object.keys(tools)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(tools)).toBe(Object.prototype);
    const execute = Object.getOwnPropertyDescriptor(tools, '__proto__')?.value.execute as (
      a: unknown,
      o: unknown,
    ) => Promise<unknown>;
    await expect(execute({}, { toolCallId: 'x', messages: [] })).resolves.toEqual({
      content: [{ type: 'text', text: 'ran' }],
    });
  });
});
