/**
 * A malformed event on a response stream (data that is not JSON, a notification that does not parse) is not the
 * response: it is reported and skipped, and the stream is read on to the response, so a CreateTaskResult after it
 * is not lost (and its task not orphaned). Only a malformed reply to the request itself settles it.
 */
import { describe, expect, it } from 'vitest';
import {
  InvalidResponseError,
  OutcomeUnknownError,
  StreamableHttpTransport,
  StreamEndedError,
  TaskClient,
  type JsonRpcRequest,
} from '../../src/index.js';
import { MAX_SKIPPED_SSE_EVENTS } from '../../src/transport/sse-reply.js';
import { fakeFetch, jsonResponse, sseEvent, sseResponse } from '../helpers/unit-fixtures.js';

const URL_ = 'http://mcp.test/mcp';
const req = (method: string, id: number | string = 1): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id,
  method,
  params: {},
});
const GARBAGE = 'data: {not json\n\n';
const BAD_PROGRESS = sseEvent({ jsonrpc: '2.0', method: 'notifications/progress', params: 'nope' });
const TASK = {
  taskId: 'G',
  status: 'working',
  createdAt: '2026-08-01T09:00:00Z',
  lastUpdatedAt: '2026-08-01T09:00:00Z',
  ttlMs: 60_000,
  pollIntervalMs: 10,
};

describe('a malformed SSE event before the response', () => {
  it('data that is not JSON: reported through onViolation, skipped; the response after it settles the request', async () => {
    const { fetch } = fakeFetch((call) =>
      sseResponse([GARBAGE, sseEvent({ jsonrpc: '2.0', id: call.body.id, result: { ok: 1 } })]),
    );
    const violations: string[] = [];
    const result = await new StreamableHttpTransport(URL_, { fetch }).request(req('tools/call'), {
      onViolation: (d) => violations.push(d),
    });
    expect(result).toEqual({ ok: 1 });
    expect(violations).toEqual([
      'tools/call: skipped an SSE event on the response stream: SSE data is not JSON: {not json',
    ]);
  });

  it('a notification whose params is not an object: reported, skipped, no onNotification; the response settles', async () => {
    const { fetch } = fakeFetch((call) =>
      sseResponse([BAD_PROGRESS, sseEvent({ jsonrpc: '2.0', id: call.body.id, result: { ok: 2 } })]),
    );
    const violations: string[] = [];
    const notifications: string[] = [];
    const result = await new StreamableHttpTransport(URL_, { fetch }).request(req('tools/call'), {
      onViolation: (d) => violations.push(d),
      onNotification: (n) => notifications.push(n.method),
    });
    expect(result).toEqual({ ok: 2 });
    expect(notifications).toEqual([]);
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatch(
      /^tools\/call: skipped an SSE event on the response stream: malformed notification: /,
    );
  });

  it('a stream that ends after only bad events: StreamEndedError (a lost request) with the last bad event as cause', async () => {
    const { fetch } = fakeFetch(() => sseResponse([GARBAGE]));
    const error = await new StreamableHttpTransport(URL_, { fetch })
      .request(req('tasks/get'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamEndedError);
    expect((error as Error).cause).toBeInstanceOf(InvalidResponseError);
    expect(((error as Error).cause as Error).message).toBe(
      'tasks/get failed: invalid response: SSE data is not JSON: {not json',
    );
  });

  it(`${MAX_SKIPPED_SSE_EVENTS} bad events end the reading: StreamEndedError, the response after them is not waited for`, async () => {
    expect(MAX_SKIPPED_SSE_EVENTS).toBe(100);
    const { fetch } = fakeFetch((call) =>
      sseResponse([
        GARBAGE.repeat(MAX_SKIPPED_SSE_EVENTS),
        sseEvent({ jsonrpc: '2.0', id: call.body.id, result: {} }),
      ]),
    );
    let reported = 0;
    const error = await new StreamableHttpTransport(URL_, { fetch })
      .request(req('tasks/get'), { onViolation: () => reported++ })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamEndedError);
    expect(((error as Error).cause as Error).message).toBe(
      `tasks/get failed: invalid response: ${MAX_SKIPPED_SSE_EVENTS} unreadable SSE events before the response; last: SSE data is not JSON: {not json`,
    );
    expect(reported).toBe(MAX_SKIPPED_SSE_EVENTS);
  });

  it('a malformed response with our id settles the request: InvalidResponseError with unreadableReply; one with another id is skipped', async () => {
    const { fetch } = fakeFetch((call) =>
      sseResponse([
        sseEvent({ jsonrpc: '2.0', id: 'other', result: 'x' }),
        sseEvent({ jsonrpc: '2.0', id: call.body.id, result: 'not an object' }),
      ]),
    );
    const error = await new StreamableHttpTransport(URL_, { fetch })
      .request(req('tasks/get', 7))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).unreadableReply).toBe(true);
    expect((error as Error).message).toBe('tasks/get failed: invalid response: malformed JSON-RPC response');
  });
});

describe('TaskClient: a bad event before the CreateTaskResult', () => {
  for (const [name, bad] of [
    ['data that is not JSON', GARBAGE],
    ['notifications/progress with params "nope"', BAD_PROGRESS],
  ] as const) {
    it(`${name}: one serverViolation; the task is followed to its result`, async () => {
      const { fetch, calls } = fakeFetch((call) =>
        call.body.method === 'tools/call'
          ? sseResponse([
              bad,
              sseEvent({ jsonrpc: '2.0', id: call.body.id, result: { resultType: 'task', ...TASK } }),
            ])
          : jsonResponse({
              jsonrpc: '2.0',
              id: call.body.id,
              result: { resultType: 'complete', ...TASK, status: 'completed', result: { content: [] } },
            }),
      );
      const client = new TaskClient({ transport: new StreamableHttpTransport(URL_, { fetch }) });
      const violations: string[] = [];
      client.on('serverViolation', (d) => violations.push(d));
      await expect(client.callTool('x', {}, { onProgress: () => undefined })).resolves.toMatchObject({
        content: [],
      });
      expect(calls.map((c) => c.body.method)).toEqual(['tools/call', 'tasks/get']);
      expect(violations).toHaveLength(1);
      expect(violations[0]).toMatch(/^tools\/call: skipped an SSE event on the response stream: /);
      await client.close();
    });
  }

  it('a creation whose reply cannot be read (not JSON) is OutcomeUnknownError (OUTCOME_UNKNOWN), the InvalidResponseError as cause, not re-sent', async () => {
    const { fetch, calls } = fakeFetch(
      () => new Response('{"jsonrpc":"2.0",', { headers: { 'content-type': 'application/json' } }),
    );
    const client = new TaskClient({ transport: new StreamableHttpTransport(URL_, { fetch }) });
    const error = await client.callTool('x', {}, { idempotencyKey: 'k-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).code).toBe('OUTCOME_UNKNOWN');
    expect((error as Error).cause).toBeInstanceOf(InvalidResponseError);
    expect(calls).toHaveLength(1);
    await client.close();
  });
});
