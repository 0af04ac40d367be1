import { describe, expect, it } from 'vitest';
import {
  HttpError,
  InvalidResponseError,
  McpError,
  NetworkError,
  RequestTimeoutError,
  StreamEndedError,
} from '../../src/index.js';
import {
  classifyPollError,
  isTransientStatus,
  MAX_POLL_BACKOFF_MS,
  pollRetryDelayMs,
} from '../../src/tasks/decisions.js';

describe('classifyPollError (5.16)', () => {
  it('5.16: -32602 means the task is lost', () => {
    expect(classifyPollError(new McpError('tasks/get', { code: -32602, message: 'x' }))).toEqual({
      kind: 'lost',
    });
    expect(
      classifyPollError(new McpError('tasks/get', { code: -32602, message: 'x' }, { httpStatus: 400 })),
    ).toEqual({ kind: 'lost' });
  });

  it('network, stream-ended and timeout errors are transient', () => {
    for (const e of [
      new NetworkError('tasks/get'),
      new StreamEndedError('tasks/get'),
      new RequestTimeoutError('tasks/get', 1),
    ]) {
      expect(classifyPollError(e)).toEqual({ kind: 'transient', retryAfterMs: undefined });
    }
  });

  it('HTTP 408/425/429/5xx are transient and keep Retry-After; 4xx are fatal', () => {
    expect(classifyPollError(new HttpError('tasks/get', 429, '', 2_000))).toEqual({
      kind: 'transient',
      retryAfterMs: 2_000,
    });
    expect(classifyPollError(new HttpError('tasks/get', 503, ''))).toEqual({
      kind: 'transient',
      retryAfterMs: undefined,
    });
    expect([408, 425, 429, 500, 502, 503, 504].every(isTransientStatus)).toBe(true);
    expect([400, 401, 403, 404, 409].some(isTransientStatus)).toBe(false);
    expect(classifyPollError(new HttpError('tasks/get', 404, ''))).toEqual({ kind: 'fatal' });
  });

  it('-32603 over HTTP 5xx is transient; -32603 without status, -32021 and unknown errors are fatal', () => {
    expect(
      classifyPollError(new McpError('tasks/get', { code: -32603, message: 'x' }, { httpStatus: 503 })),
    ).toEqual({ kind: 'transient', retryAfterMs: undefined });
    expect(classifyPollError(new McpError('tasks/get', { code: -32603, message: 'x' }))).toEqual({
      kind: 'fatal',
    });
    expect(
      classifyPollError(new McpError('tasks/get', { code: -32021, message: 'x' }, { httpStatus: 400 })),
    ).toEqual({ kind: 'fatal' });
    expect(classifyPollError(new InvalidResponseError('tasks/get', 'x'))).toEqual({ kind: 'fatal' });
    expect(classifyPollError(new Error('x'))).toEqual({ kind: 'fatal' });
  });
});

describe('classifyPollError: the HTTP status decides transience', () => {
  it("429, 502, 503 and 504 are transient whatever the JSON-RPC code, and keep the reply's Retry-After", () => {
    for (const status of [429, 502, 503, 504]) {
      for (const code of [-32000, -32603, -32600, -32602, -32021]) {
        expect(
          classifyPollError(
            new McpError('tasks/get', { code, message: 'x' }, { httpStatus: status, retryAfterMs: 2_000 }),
          ),
        ).toEqual({ kind: 'transient', retryAfterMs: 2_000 });
      }
    }
    expect(
      classifyPollError(
        new McpError('tasks/get', { code: -32603, message: 'x' }, { httpStatus: 503, retryAfterMs: 3_000 }),
      ),
    ).toEqual({ kind: 'transient', retryAfterMs: 3_000 });
  });

  it('other statuses keep the old rules: -32602 over 400 is lost, -32000 over 500 or 400 is fatal', () => {
    expect(
      classifyPollError(new McpError('tasks/get', { code: -32602, message: 'x' }, { httpStatus: 404 })),
    ).toEqual({ kind: 'lost' });
    expect(
      classifyPollError(new McpError('tasks/get', { code: -32000, message: 'x' }, { httpStatus: 500 })),
    ).toEqual({ kind: 'fatal' });
    expect(
      classifyPollError(
        new McpError('tasks/get', { code: -32000, message: 'x' }, { httpStatus: 400, retryAfterMs: 1_000 }),
      ),
    ).toEqual({ kind: 'fatal' });
  });
});

describe('pollRetryDelayMs', () => {
  it('doubles from the floor per attempt', () => {
    expect([1, 2, 3, 4, 5].map((n) => pollRetryDelayMs(1_000, n, undefined))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000,
    ]);
  });

  it(`caps at ${MAX_POLL_BACKOFF_MS} ms, but never below the floor`, () => {
    expect(MAX_POLL_BACKOFF_MS).toBe(30_000);
    expect(pollRetryDelayMs(1_000, 10, undefined)).toBe(30_000);
    expect(pollRetryDelayMs(60_000, 3, undefined)).toBe(60_000);
  });

  it('never sooner than Retry-After', () => {
    expect(pollRetryDelayMs(1_000, 1, 5_000)).toBe(5_000);
    expect(pollRetryDelayMs(1_000, 4, 5_000)).toBe(8_000);
    expect(pollRetryDelayMs(1_000, 1, 120_000)).toBe(120_000);
  });

  it('is never below the floor for any attempt (property over a grid)', () => {
    for (const floor of [100, 250, 1_000, 7_000, 300_000]) {
      for (let attempt = 1; attempt <= 20; attempt++) {
        for (const retryAfter of [undefined, 0, 50, 10_000]) {
          const d = pollRetryDelayMs(floor, attempt, retryAfter);
          expect(d).toBeGreaterThanOrEqual(floor);
          expect(d).toBeGreaterThanOrEqual(retryAfter ?? 0);
          expect(d).toBeLessThanOrEqual(Math.max(floor, MAX_POLL_BACKOFF_MS, retryAfter ?? 0));
        }
      }
    }
  });
});
