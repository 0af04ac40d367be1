/**
 * The engine's decisions, tested directly as pure functions with tables of cases: the verdict on a failed `tasks/get`
 * and the next poll time, expiry, the error a lost task becomes, and the outcome a terminal `DetailedTask` or a
 * stored record stands for (ext-tasks § Task Polling, § Task Status; CLIENT-REQUIREMENTS 5.10, 5.16).
 */
import { describe, expect, it } from 'vitest';
import {
  HttpError,
  InvalidResponseError,
  McpError,
  NetworkError,
  TaskCancelledError,
  TaskExpiredError,
  TaskFailedError,
  TaskNotFoundError,
} from '../../src/index.js';
import type { DetailedTask } from '../../src/protocol/tasks.js';
import {
  expiresAt,
  lostTaskError,
  MAX_RETRY_AFTER_MS,
  pollFailureVerdict,
  settledFromRecord,
  terminalOutcome,
  ttlStart,
  type PollFailureFacts,
} from '../../src/tasks/decisions.js';
import { StoreUnavailableError } from '../../src/store/redis/errors.js';
import { TASK_RECORD_VERSION, type TaskRecord } from '../../src/store/task-record.js';

const lost = new McpError('tasks/get', { code: -32602, message: 'unknown task' });
const busy = new HttpError('tasks/get', 503, 'busy', 4_000);
const down = new NetworkError('tasks/get');
const refused = new HttpError('tasks/get', 403, 'forbidden');
const invalid = new InvalidResponseError('tasks/get', 'not a DetailedTask');

const TEN_YEARS_MS = 10 * 365 * 86_400_000;

const facts: PollFailureFacts = {
  expired: false,
  firstPolls: false,
  notVisible: 0,
  failures: 0,
  floorMs: 1_000,
  notYetVisibleRetries: 2,
  maxPollRetries: 5,
};

describe('pollFailureVerdict: what a failed tasks/get means and when the next poll goes', () => {
  it.each<[string, unknown, Partial<PollFailureFacts>, ReturnType<typeof pollFailureVerdict>]>([
    ['-32602 on a followed task: lost (unknown)', lost, {}, { kind: 'lost', reason: 'unknown' }],
    [
      '-32602 past the expiry: lost (classified later)',
      lost,
      { expired: true, firstPolls: true },
      { kind: 'lost', reason: 'unknown' },
    ],
    [
      '-32602 right after creation: polled again after one interval, a violation',
      lost,
      { firstPolls: true },
      { kind: 'retry', notVisible: true, delayMs: 1_000, violation: true },
    ],
    [
      '-32602 right after creation, re-checks used up: not-yet-visible',
      lost,
      { firstPolls: true, notVisible: 2 },
      { kind: 'lost', reason: 'not-yet-visible', violation: true },
    ],
    [
      'network failure, first: retried after the floor',
      down,
      {},
      { kind: 'retry', notVisible: false, delayMs: 1_000, retryAfterMs: undefined, report: true },
    ],
    [
      'network failure, third: backoff doubles per failure',
      down,
      { failures: 2 },
      { kind: 'retry', notVisible: false, delayMs: 4_000, retryAfterMs: undefined, report: true },
    ],
    [
      '503 with Retry-After 4 s: never sooner than the server asked',
      busy,
      {},
      { kind: 'retry', notVisible: false, delayMs: 4_000, retryAfterMs: 4_000, pauseMs: 4_000, report: true },
    ],
    [
      '429 with Retry-After 10 years (a task whose ttlMs is null): the wait and the server pause bounded at 1 hour',
      new HttpError('tasks/get', 429, 'slow down', TEN_YEARS_MS),
      {},
      {
        kind: 'retry',
        notVisible: false,
        delayMs: MAX_RETRY_AFTER_MS,
        retryAfterMs: TEN_YEARS_MS,
        pauseMs: MAX_RETRY_AFTER_MS,
        report: true,
      },
    ],
    [
      '503 with Retry-After exactly the bound: followed as asked',
      new HttpError('tasks/get', 503, 'busy', MAX_RETRY_AFTER_MS),
      {},
      {
        kind: 'retry',
        notVisible: false,
        delayMs: MAX_RETRY_AFTER_MS,
        retryAfterMs: MAX_RETRY_AFTER_MS,
        pauseMs: MAX_RETRY_AFTER_MS,
        report: true,
      },
    ],
    [
      '503 with Retry-After one past the bound: the bound',
      new McpError(
        'tasks/get',
        { code: -32603, message: 'busy' },
        { httpStatus: 503, retryAfterMs: MAX_RETRY_AFTER_MS + 1 },
      ),
      { failures: 2 },
      {
        kind: 'retry',
        notVisible: false,
        delayMs: MAX_RETRY_AFTER_MS,
        retryAfterMs: MAX_RETRY_AFTER_MS + 1,
        pauseMs: MAX_RETRY_AFTER_MS,
        report: true,
      },
    ],
    [
      '429 with Retry-After 0: the floor (backoff), no pause',
      new HttpError('tasks/get', 429, 'slow down', 0),
      { failures: 1 },
      { kind: 'retry', notVisible: false, delayMs: 2_000, retryAfterMs: 0, pauseMs: 0, report: true },
    ],
    [
      'Retry-After 10 years on the last tolerated failure: still fatal after maxPollRetries, never a 10-year wait',
      new HttpError('tasks/get', 429, 'slow down', TEN_YEARS_MS),
      { failures: 5 },
      { kind: 'fatal', report: true },
    ],
    [
      'transient past maxPollRetries: fatal, reported',
      down,
      { failures: 5 },
      { kind: 'fatal', report: true },
    ],
    [
      'the shared store out of reach when the poll was fenced (nothing sent): retried after the floor',
      new StoreUnavailableError('EVALSHA', { cause: new Error('connect ECONNREFUSED') }),
      {},
      { kind: 'retry', notVisible: false, delayMs: 1_000, retryAfterMs: undefined, report: true },
    ],
    ['403: fatal at once', refused, {}, { kind: 'fatal', report: false }],
    ['an invalid answer: fatal at once', invalid, {}, { kind: 'fatal', report: false }],
  ])('%s', (_, error, overrides, verdict) => {
    expect(pollFailureVerdict(error, { ...facts, ...overrides })).toEqual(verdict);
  });

  it.each([
    [1, 1_000],
    [2, 2_000],
    [5, 16_000],
    [6, 30_000], // capped at MAX_POLL_BACKOFF_MS
  ])('failure %i after the floor of 1 s: the next poll waits %i ms', (failure, delayMs) => {
    const verdict = pollFailureVerdict(down, { ...facts, failures: failure - 1, maxPollRetries: 10 });
    expect(verdict).toMatchObject({ kind: 'retry', delayMs });
  });
});

describe('expiry: local receipt time + ttlMs − the age the server reports', () => {
  it.each([
    ['no timestamps', {}, 10_000, undefined, 10_000],
    [
      'reported age 3 s',
      { createdAt: '2026-08-01T00:00:00Z', lastUpdatedAt: '2026-08-01T00:00:03Z' },
      10_000,
      undefined,
      7_000,
    ],
    [
      'a negative age counts as 0',
      { createdAt: '2026-08-01T00:00:03Z', lastUpdatedAt: '2026-08-01T00:00:00Z' },
      10_000,
      undefined,
      10_000,
    ],
    [
      'unparsable timestamps count as 0',
      { createdAt: 'yesterday', lastUpdatedAt: 'now' },
      10_000,
      undefined,
      10_000,
    ],
    ['never later than a start already known', {}, 10_000, 8_000, 8_000],
  ])('%s', (_, task, receivedAt, previous, start) => {
    expect(ttlStart(task, receivedAt, previous)).toBe(start);
  });

  it.each([
    [1_000, 60_000, 61_000],
    [1_000, null, null],
  ])('start %i + ttlMs %s → %s', (start, ttl, expiry) => {
    expect(expiresAt(start, ttl)).toBe(expiry);
  });

  it.each([
    ['before the expiry: TaskNotFoundError', 10_000, 9_999, TaskNotFoundError],
    ['at the expiry: TaskExpiredError', 10_000, 10_000, TaskExpiredError],
    ['no TTL: TaskNotFoundError', null, 1e15, TaskNotFoundError],
    ['expiry unknown: TaskNotFoundError', undefined, 1e15, TaskNotFoundError],
  ])('a lost task %s', (_, expiry, now, type) => {
    const error = lostTaskError({ taskId: 't1', expiresAt: expiry, now }, lost);
    expect(error).toBeInstanceOf(type);
    expect(error.taskId).toBe('t1');
    expect(error.cause).toBe(lost);
  });
});

describe('outcomes: what a terminal DetailedTask or a stored record stands for', () => {
  const base = {
    taskId: 't1',
    ttlMs: 60_000,
    createdAt: '2026-08-01T00:00:00Z',
    lastUpdatedAt: '2026-08-01T00:00:00Z',
  };
  const parse = (raw: Record<string, unknown>): Record<string, unknown> => {
    if (!Array.isArray(raw.content)) throw new TypeError('no content');
    return raw;
  };

  it.each<[string, DetailedTask, { ok: boolean; error?: unknown; value?: unknown }]>([
    [
      'completed: the parsed result',
      { ...base, status: 'completed', result: { content: [] } } as DetailedTask,
      { ok: true, value: { content: [] } },
    ],
    [
      'completed with an invalid result: its parse error',
      { ...base, status: 'completed', result: {} } as DetailedTask,
      { ok: false, error: TypeError },
    ],
    [
      'failed: TaskFailedError',
      { ...base, status: 'failed', error: { code: 1, message: 'x' } } as DetailedTask,
      { ok: false, error: TaskFailedError },
    ],
    [
      'cancelled: TaskCancelledError',
      { ...base, status: 'cancelled' } as DetailedTask,
      { ok: false, error: TaskCancelledError },
    ],
  ])('%s', (_, task, expected) => {
    const settled = terminalOutcome(task, parse);
    expect(settled.ok).toBe(expected.ok);
    if (settled.ok) expect(settled.value).toEqual(expected.value);
    else expect(settled.error).toBeInstanceOf(expected.error as new (...a: never[]) => unknown);
  });

  const record: TaskRecord = {
    version: TASK_RECORD_VERSION,
    server: 's',
    method: 'tools/call',
    taskId: 't1',
    localCreatedAt: 1_000,
    ttlMs: 60_000,
    status: 'working',
    answeredKeys: [],
    receivedAt: 1_000,
    updatedAt: 2_000,
  };
  it.each<[string, TaskRecord['outcome'], new (...a: never[]) => unknown]>([
    ['failed', { status: 'failed', error: { code: 1, message: 'x' } }, TaskFailedError],
    ['cancelled', { status: 'cancelled' }, TaskCancelledError],
    ['expired', { status: 'expired' }, TaskExpiredError],
    ['unknown', { status: 'unknown' }, TaskNotFoundError],
  ])('a stored %s outcome', (_, outcome, type) => {
    const settled = settledFromRecord({ ...record, outcome }, parse);
    expect(settled.ok).toBe(false);
    if (!settled.ok) expect(settled.error).toBeInstanceOf(type);
  });

  it('a stored completed outcome: the parsed result', () => {
    const settled = settledFromRecord(
      { ...record, outcome: { status: 'completed', result: { content: [] } } },
      parse,
    );
    expect(settled).toEqual({ ok: true, value: { content: [] } });
  });
});
