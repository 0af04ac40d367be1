import { describe, expect, it } from 'vitest';
import * as errors from '../../src/errors.js';
import {
  AuthorizationError,
  AuthorizationRequiredError,
  CancelDeliveryError,
  CancelNotConfirmedError,
  InputDeliveryError,
  ClientClosedError,
  GetHeadersError,
  HttpError,
  InputRequiredError,
  InvalidHeaderError,
  InvalidResponseError,
  OutputValidationError,
  isMcpClientError,
  McpClientError,
  McpError,
  NetworkError,
  OutcomeUnknownError,
  PaginationError,
  RedirectBlockedError,
  ServerExitedError,
  redactTaskId,
  RequestTimeoutError,
  ResponseTooLargeError,
  StreamEndedError,
  TaskCancelledError,
  TaskError,
  TaskExpiredError,
  TaskFollowedElsewhereError,
  TaskFailedError,
  TaskNotFoundError,
  TooManyRoundsError,
  UnsupportedProtocolVersionError,
} from '../../src/index.js';
import type { McpClientErrorCode } from '../../src/index.js';
import type { DetailedTask } from '../../src/protocol/tasks.js';

const LONG_ID = 'task-0123456789abcdef-0123456789abcdef';
const failedTask = (taskId: string, extra: Partial<DetailedTask> = {}) =>
  ({
    taskId,
    status: 'failed',
    ttlMs: null,
    error: { code: -32603, message: 'disk full', data: { p: 1 } },
    ...extra,
  }) as DetailedTask & { status: 'failed' };

const samples: Array<[McpClientError, string | number, string]> = [
  [new HttpError('tools/list', 503, 'busy', 1_000), 'HTTP_ERROR', 'HttpError'],
  [new NetworkError('tools/list', { cause: new Error('ECONNREFUSED') }), 'NETWORK_ERROR', 'NetworkError'],
  [new StreamEndedError('tools/call'), 'STREAM_ENDED', 'StreamEndedError'],
  [new InvalidResponseError('tools/call', 'bad'), 'INVALID_RESPONSE', 'InvalidResponseError'],
  [
    new OutputValidationError('weather', { content: [] }, [{ path: '', message: 'x' }], 'outputSchema'),
    'INVALID_OUTPUT',
    'OutputValidationError',
  ],
  [new ResponseTooLargeError('tools/call', 10), 'RESPONSE_TOO_LARGE', 'ResponseTooLargeError'],
  [new RequestTimeoutError('tools/call', 5), 'REQUEST_TIMEOUT', 'RequestTimeoutError'],
  [
    new UnsupportedProtocolVersionError('2026-07-28', ['1999-01-01']),
    'UNSUPPORTED_PROTOCOL_VERSION',
    'UnsupportedProtocolVersionError',
  ],
  [
    new InputRequiredError('tools/call', { k: { method: 'elicitation/create' } }),
    'INPUT_REQUIRED',
    'InputRequiredError',
  ],
  [new TooManyRoundsError('tools/call', 3), 'TOO_MANY_ROUNDS', 'TooManyRoundsError'],
  [
    new errors.TooManyInputRequestsError('tools/call', 'task', 10_000, 10_001, 't1'),
    'TOO_MANY_INPUT_REQUESTS',
    'TooManyInputRequestsError',
  ],
  [new TaskFailedError(failedTask('t1')), 'TASK_FAILED', 'TaskFailedError'],
  [new TaskCancelledError('t1'), 'TASK_CANCELLED', 'TaskCancelledError'],
  [new TaskExpiredError('t1', 0), 'TASK_EXPIRED', 'TaskExpiredError'],
  [new TaskNotFoundError('t1'), 'TASK_NOT_FOUND', 'TaskNotFoundError'],
  [
    new TaskFollowedElsewhereError('t1', 'host:42:abc', 0),
    'TASK_FOLLOWED_ELSEWHERE',
    'TaskFollowedElsewhereError',
  ],
  [
    new errors.TaskDetachedError('tools/call', 't1', undefined, { cause: 'stop' }),
    'TASK_DETACHED',
    'TaskDetachedError',
  ],
  [new CancelNotConfirmedError('t1', undefined), 'CANCEL_NOT_CONFIRMED', 'CancelNotConfirmedError'],
  [new CancelDeliveryError('t1', undefined, 5), 'CANCEL_NOT_DELIVERED', 'CancelDeliveryError'],
  [new InputDeliveryError('t1', 'ask', undefined), 'INPUT_NOT_DELIVERED', 'InputDeliveryError'],
  [new OutcomeUnknownError('tools/call'), 'OUTCOME_UNKNOWN', 'OutcomeUnknownError'],
  [new ClientClosedError(), 'CLIENT_CLOSED', 'ClientClosedError'],
  [new ServerExitedError('node server.js --stdio', 1, null), 'SERVER_EXITED', 'ServerExitedError'],
  [
    new RedirectBlockedError('tools/call', 307, 'http://127.0.0.1:9', 'cross-origin'),
    'REDIRECT_BLOCKED',
    'RedirectBlockedError',
  ],
  [new PaginationError('tools/list', 'repeated-cursor', 2), 'PAGINATION_FAILED', 'PaginationError'],
  [
    new GetHeadersError('tools/call', { cause: new Error('token fail') }),
    'GET_HEADERS_FAILED',
    'GetHeadersError',
  ],
  [
    new InvalidHeaderError('headers', 'X-Api-Key', 'its value contains CR or LF'),
    'INVALID_HEADER',
    'InvalidHeaderError',
  ],
  [new McpError('tools/call', { code: -32602, message: 'bad params' }), -32602, 'McpError'],
  [
    new AuthorizationRequiredError('http://127.0.0.1:1/mcp', 'tools/call'),
    'AUTHORIZATION_REQUIRED',
    'AuthorizationRequiredError',
  ],
  [
    new AuthorizationError('http://127.0.0.1:1/mcp', 'refresh', 'invalid_grant'),
    'AUTHORIZATION_FAILED',
    'AuthorizationError',
  ],
];

describe('errors (§7, STYLE 12–16)', () => {
  it.each(samples.map(([e, code, name]) => [name, code, e] as const))(
    '7.3: %s has the stable code %s and its class name',
    (name, code, e) => {
      expect(e.code).toBe(code);
      expect(e.name).toBe(name);
      expect(e).toBeInstanceOf(McpClientError);
      expect(e).toBeInstanceOf(Error);
      expect(isMcpClientError(e)).toBe(true);
      expect(isMcpClientError(e, code as McpClientErrorCode | number)).toBe(true);
      expect(isMcpClientError(e, 'NOT_A_CODE' as never)).toBe(false);
    },
  );

  it('every exported error class is covered above', () => {
    const classes = Object.entries(errors)
      .filter(([, v]) => typeof v === 'function' && (v as { prototype?: unknown }).prototype instanceof Error)
      .map(([k]) => k)
      .filter((k) => k !== 'McpClientError' && k !== 'TaskError');
    expect(classes.sort()).toEqual(samples.map(([, , name]) => name).sort());
  });

  it('the family tree: task errors are TaskError; transport errors are not', () => {
    expect(new TaskFailedError(failedTask('t1'))).toBeInstanceOf(TaskError);
    expect(new TaskExpiredError('t1', 0)).toBeInstanceOf(TaskError);
    expect(new HttpError('m', 500, '')).not.toBeInstanceOf(TaskError);
    expect(new HttpError('m', 500, '')).not.toBeInstanceOf(NetworkError);
    expect(new TaskCancelledError('t1')).not.toBeInstanceOf(TaskFailedError);
  });

  it('isMcpClientError is false for plain errors and non-objects', () => {
    expect(isMcpClientError(new Error('x'))).toBe(false);
    expect(isMcpClientError(null)).toBe(false);
    expect(isMcpClientError('TASK_FAILED')).toBe(false);
    expect(isMcpClientError({ code: 'TASK_FAILED' })).toBe(false);
  });

  describe('STYLE 14: instanceof across copies (Symbol.for brand)', () => {
    const kBrand = Symbol.for('mcp-tasks-client.errorBrand');

    it('an object whose prototype chain has constructors with the same brands matches', () => {
      class ForeignBase extends Error {
        static readonly [kBrand]: string = 'McpClientError';
      }
      class ForeignTaskError extends ForeignBase {
        static override readonly [kBrand]: string = 'TaskError';
      }
      class ForeignTaskFailed extends ForeignTaskError {
        static override readonly [kBrand]: string = 'TaskFailedError';
      }
      const foreign = new ForeignTaskFailed('from another copy');
      expect(foreign instanceof TaskFailedError).toBe(true);
      expect(foreign instanceof TaskError).toBe(true);
      expect(foreign instanceof McpClientError).toBe(true);
      expect(foreign instanceof TaskCancelledError).toBe(false);
      expect(isMcpClientError(foreign)).toBe(true);
    });

    it('a constructor without the brand, or with another brand, does not match', () => {
      class Unbranded extends Error {}
      class OtherBrand extends Error {
        static readonly [kBrand] = 'SomethingElse';
      }
      expect(new Unbranded('x') instanceof McpClientError).toBe(false);
      expect(new OtherBrand('x') instanceof McpClientError).toBe(false);
      expect(Object.create(null) instanceof McpClientError).toBe(false);
    });

    it('errors of a second loaded copy of the module match this copy and vice versa', async () => {
      // src/errors.ts re-exports the classes from src/errors/*.ts: load a second copy of those files.
      const path = '../../src/errors/task-errors.ts?second-copy';
      const basePath = '../../src/errors/base.ts?second-copy';
      const copy = {
        ...((await import(/* @vite-ignore */ path)) as typeof errors),
        McpClientError: ((await import(/* @vite-ignore */ basePath)) as typeof errors).McpClientError,
      };
      expect(copy.TaskFailedError).not.toBe(TaskFailedError);
      const theirs = new copy.TaskNotFoundError('t1');
      expect(theirs instanceof TaskNotFoundError).toBe(true);
      expect(theirs instanceof McpClientError).toBe(true);
      expect(theirs instanceof TaskExpiredError).toBe(false);
      expect(new TaskExpiredError('t1', 0) instanceof copy.TaskExpiredError).toBe(true);
      expect(new HttpError('m', 500, '') instanceof copy.McpClientError).toBe(true);
    });
  });

  describe('messages and ids', () => {
    it('redactTaskId keeps ids of up to 8 characters and shortens longer ones', () => {
      expect(redactTaskId('t-4f9c')).toBe('t-4f9c');
      expect(redactTaskId('12345678')).toBe('12345678');
      expect(redactTaskId('123456789')).toBe('123456…(9)');
      expect(redactTaskId(LONG_ID)).toBe(`task-0…(${LONG_ID.length})`);
    });

    it('task error messages redact long ids while .taskId stays full', () => {
      const all: TaskError[] = [
        new TaskFailedError(failedTask(LONG_ID)),
        new TaskCancelledError(LONG_ID),
        new TaskExpiredError(LONG_ID, Date.parse('2026-08-01T09:15:00Z')),
        new TaskNotFoundError(LONG_ID, 'not-yet-visible'),
      ];
      for (const e of all) {
        expect(e.taskId).toBe(LONG_ID);
        expect(e.message).not.toContain(LONG_ID);
        expect(e.message).toContain('task-0…(38)');
      }
      expect(all.map((e) => e.message)).toEqual([
        'task task-0…(38) failed: disk full (JSON-RPC -32603)',
        'task task-0…(38) was cancelled',
        'task task-0…(38) expired at 2026-08-01T09:15:00.000Z',
        'task task-0…(38) is unknown to the server (not yet visible after creation)',
      ]);
    });

    it('5.9: TaskFailedError keeps the server error and the task; without error it shows statusMessage', () => {
      const task = failedTask('t1');
      const e = new TaskFailedError(task);
      expect(e.error).toEqual({ code: -32603, message: 'disk full', data: { p: 1 } });
      expect(e.task).toBe(task);
      const bare = new TaskFailedError({
        taskId: 't1',
        status: 'failed',
        ttlMs: null,
        statusMessage: 'quota',
      });
      expect(bare.error).toBeUndefined();
      expect(bare.message).toBe('task t1 failed: quota');
      expect(new TaskFailedError({ taskId: 't1', status: 'failed', ttlMs: null }).message).toBe(
        'task t1 failed: no reason given',
      );
    });

    it('STYLE 13: cause is chained', () => {
      const root = new Error('socket hang up');
      const net = new NetworkError('tasks/get', { cause: root });
      expect(net.cause).toBe(root);
      expect(net.message).toBe('tasks/get failed: network error: socket hang up');
      const rpc = new McpError(
        'tasks/get',
        { code: -32602, message: 'unknown task' },
        { cause: net, httpStatus: 400 },
      );
      expect(rpc.cause).toBe(net);
      expect(rpc.httpStatus).toBe(400);
      expect(new TaskExpiredError('t1', 0, undefined, { cause: rpc }).cause).toBe(rpc);
      expect(new TaskNotFoundError('t1', 'unknown', undefined, { cause: rpc }).cause).toBe(rpc);
      expect(new UnsupportedProtocolVersionError('a', [], { cause: rpc }).cause).toBe(rpc);
      expect(new InvalidResponseError('m', 'd', undefined, { cause: root }).cause).toBe(root);
      expect(new HttpError('m', 500, '', undefined, { cause: root }).cause).toBe(root);
    });

    it('McpError names the method and keeps the server text, code and data', () => {
      const e = new McpError('tools/call', {
        code: -32021,
        message: 'Missing capability',
        data: { requiredCapabilities: {} },
      });
      expect(e.message).toBe('tools/call failed: Missing capability (JSON-RPC -32021)');
      expect([e.code, e.data, e.method, e.httpStatus]).toEqual([
        -32021,
        { requiredCapabilities: {} },
        'tools/call',
        undefined,
      ]);
    });

    it('HttpError message with and without a body excerpt', () => {
      expect(new HttpError('tools/list', 404, '').message).toBe('tools/list failed: HTTP 404');
      expect(new HttpError('tools/list', 500, 'oops').message).toBe('tools/list failed: HTTP 500: oops');
    });
  });
});
