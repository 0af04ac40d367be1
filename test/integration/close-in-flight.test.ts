/**
 * `client.close()` while a creation request is in flight never orphans work: the server answers `tools/call` only
 * after close() was called, with a task; the call rejects with ClientClosedError carrying that taskId and the server
 * sees `tasks/cancel` for it (or, with `onAbort: 'detach'`, the task is recorded). Real HTTP on loopback: the fault
 * server is the reference server, holding chosen requests until the test lets them go (no clock involved).
 *
 * Spec: ext-tasks specification/draft/tasks.md § Task Cancellation ("A client sends a tasks/cancel request to signal
 * its intent to cancel an in-progress task"); MCP 2026-07-28 basic/patterns/cancellation.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ClientClosedError,
  StreamableHttpTransport,
  TaskClient,
  type TaskClientOptions,
} from '../../src/index.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { createFaultServer, jsonReply, type Fault, type FaultServer } from '../faults/catalogue/index.js';
import '../helpers/no-jitter.js';

let server: FaultServer;
const clients: TaskClient[] = [];
let since = 0;
/** The task ids of this test's requests of `method`, as the server saw them. */
const seen = (method: string): Array<string | undefined> =>
  server.log
    .slice(since)
    .filter((e) => e.method === method)
    .map((e) => e.taskId);
beforeAll(async () => {
  server = await createFaultServer({ core: { pollIntervalMs: 20, ttlMs: 60_000, inlineBudgetMs: 10 } });
});
beforeEach(() => {
  since = server.log.length;
});
afterEach(async () => {
  server.clear();
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => server.close());

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function client(options: Partial<TaskClientOptions> = {}): TaskClient {
  const c = new TaskClient({
    transport: new StreamableHttpTransport(server.url),
    polling: { minIntervalMs: 10 },
    ...options,
  });
  clients.push(c);
  return c;
}

/** Holds the matching request until `release` resolves; `arrived` resolves when it reached the server. */
function held(answer?: (request: { id: unknown; params: Record<string, unknown> }) => Promise<unknown>): {
  fault: Fault;
  arrived: Promise<void>;
  release: () => void;
} {
  const arrived = deferred();
  const gate = deferred();
  const fault: Fault = {
    name: 'held until released',
    async reply(request, next) {
      arrived.resolve();
      await gate.promise;
      if (!answer) return next();
      return jsonReply({ jsonrpc: '2.0', id: request.id, result: await answer(request) });
    },
  };
  return { fault, arrived: arrived.promise, release: () => gate.resolve() };
}

/** A real task of the reference server (a long re-index), created now, as a `tools/call` answer. */
async function realTask(request: { id: unknown; params: Record<string, unknown> }): Promise<unknown> {
  const params = { name: 'reindex_corpus', arguments: { documents: 100_000 }, _meta: request.params._meta };
  const message = { jsonrpc: '2.0', id: request.id, method: 'tools/call', params };
  const reply = await server.core.handle(message, undefined);
  return (reply.response as { result: unknown }).result;
}

const LONG = { documents: 100_000 };

/** Starts a call on a new client, closes the client while the held request is at the server, then lets it answer. */
async function closeWhileHeld(
  hold: ReturnType<typeof held>,
  start: (c: TaskClient) => Promise<unknown>,
  options: Partial<TaskClientOptions> = {},
): Promise<unknown> {
  const c = client(options);
  const call = start(c).catch((e: unknown) => e);
  await hold.arrived;
  const closing = c.close();
  hold.release(); // the server answers after close() was called
  await closing; // close() resolved: every tasks/cancel it owed was sent
  return call;
}

/** Holds the next tools/call. */
function holdNextCall(): ReturnType<typeof held> {
  const hold = held();
  server.inject(hold.fault, { method: 'tools/call', times: 1 });
  return hold;
}

describe('close() while a creation request is in flight', () => {
  it('callTool: the late task gets tasks/cancel on the server; the call rejects with ClientClosedError carrying its taskId', async () => {
    const error = await closeWhileHeld(holdNextCall(), (c) => c.callTool('reindex_corpus', LONG));
    expect(error).toBeInstanceOf(ClientClosedError);
    const taskId = (error as ClientClosedError).taskId;
    expect(taskId).toEqual(expect.any(String));
    expect((error as ClientClosedError).outcomeUnknown).toBe(false);
    expect(seen('tasks/cancel')).toEqual([taskId]);
  });

  it('startTool: the same (tasks/cancel sent before close() resolves)', async () => {
    const error = (await closeWhileHeld(holdNextCall(), (c) =>
      c.startTool('reindex_corpus', LONG),
    )) as ClientClosedError;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(seen('tasks/cancel')).toEqual([error.taskId]);
  });

  it("onAbort 'detach': the late task is recorded in the store, not cancelled, and reported by id", async () => {
    const store = new MemoryTaskStore();
    const error = (await closeWhileHeld(
      holdNextCall(),
      (c) => c.callTool('reindex_corpus', LONG, { onAbort: 'detach' }),
      { store },
    )) as ClientClosedError;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(error.taskId).toEqual(expect.any(String));
    expect(seen('tasks/cancel')).toHaveLength(0);
    expect((await store.get(error.taskId as string))?.taskId).toBe(error.taskId);
  });

  it('a retry in the input_required (MRTR) loop that comes back as a task after close(): cancelled the same way', async () => {
    const hold = held(realTask);
    // The first round is the reference server's own input_required; the retry (with the answer) is held.
    let round = 0;
    server.inject(
      {
        name: 'retry held',
        reply: (request, next) => (round++ === 0 ? next() : hold.fault.reply(request, next)),
      },
      { tool: 'confirm_action', method: 'tools/call' },
    );
    const handlers = { elicitation: () => ({ action: 'accept' as const, content: { confirm: true } }) };
    const error = (await closeWhileHeld(hold, (c) => c.callTool('confirm_action', { action: 'wipe' }), {
      handlers,
    })) as ClientClosedError;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(error.taskId).toEqual(expect.any(String));
    expect(seen('tasks/cancel')).toEqual([error.taskId]);
  });

  it('a call waiting for the answer to an MRTR question rejects with ClientClosedError at once; nothing more is sent', async () => {
    const asked = deferred();
    const c = client({ handlers: { elicitation: () => (asked.resolve(), new Promise(() => undefined)) } });
    const call = c.callTool('confirm_action', { action: 'wipe' }).catch((e: unknown) => e);
    await asked.promise;
    await c.close();
    expect(await call).toBeInstanceOf(ClientClosedError);
    expect(seen('tools/call')).toHaveLength(1);
  });

  it('no answer within abortGraceMs: ClientClosedError with outcomeUnknown (the work may have started); close() still resolves', async () => {
    const hold = held();
    server.inject(hold.fault, { method: 'tools/call', times: 1 });
    const c = client({ limits: { abortGraceMs: 50 } });
    const call = c.callTool('reindex_corpus', LONG).catch((e: unknown) => e);
    await hold.arrived;
    await c.close();
    const error = (await call) as ClientClosedError;
    hold.release();
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(error.outcomeUnknown).toBe(true);
    expect(error.message).toMatch(/tools\/call was in flight.*may or may not have started/);
  });
});
