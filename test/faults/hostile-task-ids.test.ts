/**
 * A hostile server over real loopback HTTP (the fault server): a refused `tasks/cancel` followed by `result()`, a
 * `CreateTaskResult` whose `taskId` is no string, and one task id given to two different creations. Each test pins the
 * client's exact outcome (CLIENT-REQUIREMENTS 1.1 "only the server's word", 1.2 "never orphan work", 1.3 "nothing
 * silent").
 */
import { describe, expect, it } from 'vitest';
import { CancelDeliveryError, InvalidResponseError, type CallToolResult } from '../../src/index.js';
import { rewriteTask, rpcErrorReply, rpcResultReply, type Fault } from './catalogue/index.js';
import { rejectionOf, useFaultBench } from './setup.js';

const bench = useFaultBench();
const TASK_TOOL = 'reindex_corpus';
const T = 5_000;

function text(result: CallToolResult): string {
  return result.content.map((c) => String((c as { text?: unknown }).text)).join('');
}

/**
 * A fault that answers the second `tools/call` with the first creation's `taskId` (waiting for the first reply), so
 * two creations get one task id. `first()` is that id.
 */
function firstTaskIdTwice(): { fault: Fault; first: () => string | undefined } {
  let first: string | undefined;
  let firstSeen: () => void = () => undefined;
  const seen = new Promise<void>((resolve) => (firstSeen = resolve));
  const fault: Fault = {
    name: 'one task id for two creations',
    async reply(request, next) {
      const honest = await next();
      if (request.method !== 'tools/call' || honest.kind !== 'json') return honest;
      const body = honest.body as { result: Record<string, unknown> };
      if (request.count === 0) {
        first = String(body.result.taskId);
        firstSeen();
        return honest;
      }
      await seen;
      return { ...honest, body: { ...body, result: { ...body.result, taskId: first } } };
    },
  };
  return { fault, first: () => first };
}

/** A client whose `tools/call` of TASK_TOOL gets `taskId: 12345`; `warnings` collects its warnings. */
function numberIdClient() {
  bench.server.inject(
    rewriteTask('taskId a number', (task) => ({ ...task, taskId: 12345 })),
    { tool: TASK_TOOL, method: 'tools/call' },
  );
  const client = bench.client();
  const warnings: string[] = [];
  client.on('warning', (w) => warnings.push(w));
  return { client, warnings };
}

describe('a refused tasks/cancel', () => {
  it(
    'cancel() rejects (refused), and result() settles with what the server reports, not "cancel requested"',
    async () => {
      const refuseCancel: Fault = {
        name: 'tasks/cancel refused',
        reply: (request, next) =>
          request.method === 'tasks/cancel' ? rpcErrorReply(request, -32603, 'nope', 200) : next(),
      };
      bench.server.inject(refuseCancel, { tool: TASK_TOOL });
      const client = bench.client();
      // ≈ 500 ms of work: the task is still working when the cancel is refused and outlives the cancel's waitMs.
      const started = await client.startTool(TASK_TOOL, { documents: 250 });
      if (started.resultType !== 'task') throw new Error('expected a task');
      const handle = started.task;
      const cancel = await rejectionOf(handle.cancel({ waitMs: 100 }));
      expect(cancel).toBeInstanceOf(CancelDeliveryError);
      expect((cancel as CancelDeliveryError).code).toBe('CANCEL_NOT_DELIVERED');
      expect(cancel.message).toMatch(
        /the server refused tasks\/cancel: .*nope.*; the task may still be running$/,
      );
      // The server never recorded a cancel: the handle follows the task to the server's own outcome.
      expect(text(await handle.result())).toBe('Indexed 250 documents');
      expect(handle.status).toBe('completed');
      expect(bench.server.requests('tasks/cancel', handle.taskId)).toHaveLength(1);
    },
    T,
  );
});

describe('a CreateTaskResult whose taskId is no string', () => {
  for (const [label, foreign, escaped] of [
    ['a number', 12345, '12345'],
    ['an object', { a: 1, b: '\u001b[2J' }, '{"a":1,"b":"\\u001b[2J"}'],
  ] as const) {
    it(
      `${label}: INVALID_RESPONSE carrying the id as JSON text (escaped); tasks/cancel sent with the exact value`,
      async () => {
        const cancels: unknown[] = [];
        const ackCancel: Fault = {
          name: 'tasks/cancel acknowledged (any id)',
          reply: (request, next) => {
            if (request.method !== 'tasks/cancel') return next();
            cancels.push(request.params.taskId);
            return rpcResultReply(request, { resultType: 'complete' });
          },
        };
        bench.server.inject(ackCancel, { method: 'tasks/cancel' });
        bench.server.inject(
          rewriteTask('taskId no string', (task) => ({ ...task, taskId: foreign })),
          { tool: TASK_TOOL, method: 'tools/call' },
        );
        const client = bench.client();
        const warnings: string[] = [];
        client.on('warning', (w) => warnings.push(w));
        const error = await rejectionOf(client.callTool(TASK_TOOL, { documents: 40 }));
        expect(error).toBeInstanceOf(InvalidResponseError);
        const e = error as InvalidResponseError;
        expect(e.code).toBe('INVALID_RESPONSE');
        expect(e.taskId).toBeUndefined(); // not usable: never stored, polled or printed raw
        expect(e.taskIdEscaped).toBe(escaped);
        expect(e.taskCancel).toEqual({ kind: 'cancel-requested' });
        expect(cancels).toEqual([foreign]);
        expect(warnings).toEqual([]);
      },
      T,
    );
  }

  it(
    'the server refuses that tasks/cancel: taskCancel says so and a warning names the id escaped',
    async () => {
      bench.server.inject(
        {
          name: 'tasks/cancel refused',
          reply: (request, next) =>
            request.method === 'tasks/cancel' ? rpcErrorReply(request, -32602, 'unknown task', 200) : next(),
        },
        { method: 'tasks/cancel' },
      );
      const { client, warnings } = numberIdClient();
      const e = (await rejectionOf(client.callTool(TASK_TOOL, { documents: 40 }))) as InvalidResponseError;
      expect(e.taskIdEscaped).toBe('12345');
      expect(e.taskCancel).toMatchObject({ kind: 'cancel-not-delivered', refused: true });
      expect(warnings).toEqual([
        'tools/call: tasks/cancel for the task 12345 (a taskId that is no string) was refused: tasks/cancel failed: unknown task (JSON-RPC -32602); it may be running',
      ]);
    },
    T,
  );

  it(
    "onAbort 'detach': no tasks/cancel; not-sent, and a warning names the id",
    async () => {
      const { client, warnings } = numberIdClient();
      const cancelsBefore = bench.server.requests('tasks/cancel').length; // the log spans the file's tests
      const e = (await rejectionOf(
        client.callTool(TASK_TOOL, { documents: 40 }, { onAbort: 'detach' }),
      )) as InvalidResponseError;
      expect(e.taskCancel).toEqual({ kind: 'not-sent', reason: 'detached' });
      expect(bench.server.requests('tasks/cancel')).toHaveLength(cancelsBefore);
      expect(warnings).toEqual([
        'tools/call: the server named task 12345 with a taskId that is no string; it may be running, left running (onAbort: detach)',
      ]);
    },
    T,
  );
});

describe('one task id for two creations', () => {
  it(
    'two concurrent calls with different arguments get the same taskId: a serverViolation, one call follows it, the other rejects',
    async () => {
      // The second creation reply names the first creation's task (the server's second task is left aside).
      const { fault: sameId, first: firstId } = firstTaskIdTwice();
      bench.server.inject(sameId, { tool: TASK_TOOL });
      const client = bench.client();
      const violations: string[] = [];
      client.on('serverViolation', (v) => violations.push(v));
      const cancelsBefore = bench.server.requests('tasks/cancel').length; // the log spans the file's tests
      const settled = await Promise.allSettled([
        client.callTool(TASK_TOOL, { documents: 40 }),
        client.callTool(TASK_TOOL, { documents: 41 }),
      ]);
      const fulfilled = settled.filter((s) => s.status === 'fulfilled');
      const rejected = settled.filter((s) => s.status === 'rejected');
      expect(fulfilled).toHaveLength(1);
      expect(rejected).toHaveLength(1);
      expect(['Indexed 40 documents', 'Indexed 41 documents']).toContain(
        text((fulfilled[0] as PromiseFulfilledResult<CallToolResult>).value),
      );
      const e = (rejected[0] as PromiseRejectedResult).reason as InvalidResponseError;
      expect(e).toBeInstanceOf(InvalidResponseError);
      expect(e.taskId).toBe(firstId());
      expect(e.taskIdEscaped).toBe(firstId());
      expect(e.taskCancel).toEqual({ kind: 'not-sent', reason: 'id-in-use' });
      expect(e.message).toBe(
        `tools/call failed: invalid response: the server gave task ${firstId()}, created by an earlier tools/call with other parameters, to this request; its own work cannot be identified`,
      );
      expect(violations).toEqual([
        `tools/call: the server gave task ${firstId()} to two different requests (one task id for two creations)`,
      ]);
      expect(bench.server.requests('tasks/cancel')).toHaveLength(cancelsBefore); // the task is the other call's: not cancelled
    },
    T,
  );

  it(
    'the same request twice (an idempotent re-send) getting the same taskId: shared, no violation',
    async () => {
      bench.server.inject(firstTaskIdTwice().fault, { tool: TASK_TOOL });
      const client = bench.client();
      const violations: string[] = [];
      client.on('serverViolation', (v) => violations.push(v));
      const [a, b] = await Promise.all([
        client.callTool(TASK_TOOL, { documents: 40 }),
        client.callTool(TASK_TOOL, { documents: 40 }),
      ]);
      expect([text(a), text(b)]).toEqual(['Indexed 40 documents', 'Indexed 40 documents']);
      expect(violations).toEqual([]);
    },
    T,
  );
});
