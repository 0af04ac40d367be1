import { describe, expect, it, vi } from 'vitest';
import { isTerminalStatus } from '../../src/index.js';
import { parseCreateTaskResult, parseDetailedTask } from '../../src/protocol/tasks.js';
import { TaskShapeError } from '../../src/protocol/tasks.js';
import { created, detailed } from '../helpers/unit-fixtures.js';

describe('parseCreateTaskResult (5.4)', () => {
  it('5.4: parses the flat shape', () => {
    expect(
      parseCreateTaskResult(created({ statusMessage: 'queued', pollIntervalMs: 2_000, ttlMs: 900_000 })),
    ).toEqual({
      taskId: 't1',
      status: 'working',
      statusMessage: 'queued',
      createdAt: '2026-08-01T09:00:00Z',
      lastUpdatedAt: '2026-08-01T09:00:00Z',
      ttlMs: 900_000,
      pollIntervalMs: 2_000,
    });
  });

  it('"Seed vs spec" 2: unwraps a nested task and reports it once', () => {
    const onNested = vi.fn();
    const { resultType, ...task } = created();
    expect(parseCreateTaskResult({ resultType, task }, onNested).taskId).toBe('t1');
    expect(onNested).toHaveBeenCalledTimes(1);
    parseCreateTaskResult(created(), onNested);
    expect(onNested).toHaveBeenCalledTimes(1);
  });

  it('"Seed vs spec" 3: tolerates missing timestamps and pollIntervalMs; ttlMs null means unlimited', () => {
    expect(
      parseCreateTaskResult({ resultType: 'task', taskId: 'x', status: 'working', ttlMs: null }),
    ).toEqual({ taskId: 'x', status: 'working', ttlMs: null });
  });

  it('"Seed vs spec" 5: legacy ttl/pollInterval are read as milliseconds only when the new keys are missing', () => {
    const legacy = parseCreateTaskResult({
      resultType: 'task',
      taskId: 'x',
      status: 'working',
      ttl: 60_000,
      pollInterval: 5_000,
    });
    expect([legacy.ttlMs, legacy.pollIntervalMs]).toEqual([60_000, 5_000]);
    const both = parseCreateTaskResult({
      resultType: 'task',
      taskId: 'x',
      status: 'working',
      ttlMs: 1_000,
      ttl: 60_000,
      pollIntervalMs: 200,
      pollInterval: 5_000,
    });
    expect([both.ttlMs, both.pollIntervalMs]).toEqual([1_000, 200]);
  });

  it('a non-number pollIntervalMs is kept as NaN (the poller raises it to the floor)', () => {
    expect(parseCreateTaskResult(created({ pollIntervalMs: 'soon' })).pollIntervalMs).toBeNaN();
  });

  it.each([
    ['no taskId', { resultType: 'task', status: 'working' }],
    ['empty taskId', created({ taskId: '' })],
    ['unknown status', created({ status: 'paused' })],
    ['negative ttlMs', created({ ttlMs: -1 })],
  ])('rejects %s with TaskShapeError', (_label, value) => {
    expect(() => parseCreateTaskResult(value)).toThrow(TaskShapeError);
  });
});

describe('parseDetailedTask (5.8)', () => {
  it('5.8: input_required carries inputRequests (empty when missing)', () => {
    const t = parseDetailedTask(detailed({ status: 'input_required' }));
    expect(t).toMatchObject({ status: 'input_required', inputRequests: {} });
  });

  it('5.8: completed carries result; completed without result is a TaskShapeError', () => {
    expect(parseDetailedTask(detailed({ status: 'completed', result: { content: [] } }))).toMatchObject({
      status: 'completed',
      result: { content: [] },
    });
    expect(() => parseDetailedTask(detailed({ status: 'completed' }))).toThrow(
      new TaskShapeError('task t1 is "completed" but has no "result"'),
    );
  });

  it('5.8, 5.9: failed keeps the error object; failed without error has none', () => {
    const error = { code: -32603, message: 'boom', data: { x: 1 } };
    expect(parseDetailedTask(detailed({ status: 'failed', error }))).toMatchObject({
      status: 'failed',
      error,
    });
    expect('error' in parseDetailedTask(detailed({ status: 'failed' }))).toBe(false);
  });

  it('"Seed vs spec" 16: accepts resultType task on a tasks/get reply', () => {
    expect(parseDetailedTask(detailed({ resultType: 'task' })).status).toBe('working');
  });

  it('isTerminalStatus: completed, failed and cancelled only', () => {
    expect(
      (['working', 'input_required', 'completed', 'failed', 'cancelled'] as const).map(isTerminalStatus),
    ).toEqual([false, false, true, true, true]);
  });
});
