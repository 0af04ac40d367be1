/**
 * The reference server honours idempotency keys: same key and tool → the same task, no new work; keys live
 * as long as their task.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_META_KEY } from '../../src/protocol/index.js';
import { canonicalJson, idempotencyKeyOf } from '../../src/testing/idempotency.js';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { pollTask, rpc } from './rpc.js';

let server: TaskServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const withKey = (key: string) => ({ meta: { [IDEMPOTENCY_META_KEY]: key } });
const LONG = { name: 'reindex_corpus', arguments: { documents: 100_000 } };

async function call(params: Record<string, unknown>, key?: string): Promise<Record<string, any>> {
  const reply = await rpc(server!.url, 'tools/call', params, key === undefined ? {} : withKey(key));
  if (reply.body.result === undefined) throw new Error(`tools/call failed: ${JSON.stringify(reply.body)}`);
  return reply.body.result;
}

describe('reference server: idempotency keys', () => {
  it('returns the same task, flat, for a repeated _meta key and starts no new work', async () => {
    server = await createTaskServer({ inlineBudgetMs: 10 });
    const first = await call(LONG, 'key-1');
    const again = await call(LONG, 'key-1');
    expect(first).toMatchObject({ resultType: 'task', status: 'working' });
    expect(again).toMatchObject({
      resultType: 'task',
      taskId: first.taskId,
      status: 'working',
      createdAt: first.createdAt,
    });
    for (const key of ['task', 'result', 'error', 'inputRequests', 'requestState'])
      expect(again).not.toHaveProperty(key);
    expect(server.core.tasksCreated).toBe(1);
    expect(server.core.registry.size).toBe(1);
    expect(server.core.idempotency.replays).toBe(1);
    expect(server.core.idempotency.taskIdFor('tools/call:reindex_corpus', 'key-1')).toBe(first.taskId);
    expect(server.stats.count('tools/call')).toBe(2);
  });

  it('creates one task per distinct key, per tool, and per call without a key', async () => {
    server = await createTaskServer({ inlineBudgetMs: 10 });
    const a = await call(LONG, 'a');
    const b = await call(LONG, 'b');
    const otherTool = await call({ name: 'deploy_release', arguments: { version: '1.0.0' } }, 'a');
    const noKey1 = await call(LONG);
    const noKey2 = await call(LONG);
    const ids = new Set([a.taskId, b.taskId, otherTool.taskId, noKey1.taskId, noKey2.taskId]);
    expect(ids.size).toBe(5);
    expect(server.core.tasksCreated).toBe(5);
    expect(server.core.idempotency.replays).toBe(0);
  });

  it('reads the key from a named argument when idempotencyArgument is set, and only then', async () => {
    server = await createTaskServer({ inlineBudgetMs: 10, idempotencyArgument: 'idempotency_key' });
    const params = { name: 'reindex_corpus', arguments: { documents: 100_000, idempotency_key: 'arg-key' } };
    const first = await call(params);
    const again = await call(params);
    expect(again.taskId).toBe(first.taskId);
    expect(server.core.tasksCreated).toBe(1);
    await server.close();

    server = await createTaskServer({ inlineBudgetMs: 10 });
    const x = await call(params);
    const y = await call(params);
    expect(x.taskId).not.toBe(y.taskId);
    expect(server.core.tasksCreated).toBe(2);
  });

  it('rejects a reused key with different arguments (-32602) and keeps the original task', async () => {
    server = await createTaskServer({ inlineBudgetMs: 10 });
    const first = await call(LONG, 'k');
    const reply = await rpc(
      server.url,
      'tools/call',
      { name: 'reindex_corpus', arguments: { documents: 99_999 } },
      withKey('k'),
    );
    expect(reply.body.error?.code).toBe(-32602);
    expect(reply.body.error?.message).toMatch(/different arguments/);
    expect(server.core.tasksCreated).toBe(1);
    expect((await call(LONG, 'k')).taskId).toBe(first.taskId);
  });

  it('answers concurrent duplicates (inside the inline budget) with the one task', async () => {
    server = await createTaskServer({ inlineBudgetMs: 150 });
    const replies = await Promise.all([call(LONG, 'same'), call(LONG, 'same'), call(LONG, 'same')]);
    expect(new Set(replies.map((r) => r.taskId)).size).toBe(1);
    expect(server.core.tasksCreated).toBe(1);
    expect(server.core.idempotency.replays).toBe(2);
  });

  it('replays the current state: a finished task comes back with its terminal status', async () => {
    server = await createTaskServer({ inlineBudgetMs: 10, pollIntervalMs: 20 });
    const params = { name: 'reindex_corpus', arguments: { documents: 50 } };
    const first = await call(params, 'done');
    await pollTask(server.url, first.taskId);
    const again = await call(params, 'done');
    expect(again).toMatchObject({ resultType: 'task', taskId: first.taskId, status: 'completed' });
    expect(again).not.toHaveProperty('result');
    expect(server.core.tasksCreated).toBe(1);
  });

  it('forgets a key when its task expires, then creates a new task', async () => {
    let clock = Date.UTC(2026, 7, 1, 9, 0, 0);
    server = await createTaskServer({ inlineBudgetMs: 10, ttlMs: 1_000, now: () => clock });
    const first = await call(LONG, 'ttl');
    clock += 999;
    expect((await call(LONG, 'ttl')).taskId).toBe(first.taskId);
    clock += 1;
    const fresh = await call(LONG, 'ttl');
    expect(fresh.taskId).not.toBe(first.taskId);
    expect(server.core.tasksCreated).toBe(2);
    expect(server.core.idempotency.size).toBe(1);
  });

  it('binds nothing for a call answered inline', async () => {
    server = await createTaskServer();
    const first = await call({ name: 'echo', arguments: { text: 'hi' } }, 'inline');
    const again = await call({ name: 'echo', arguments: { text: 'hi' } }, 'inline');
    expect(first).toMatchObject({ resultType: 'complete', content: [{ text: 'hi' }] });
    expect(again).toMatchObject({ resultType: 'complete', content: [{ text: 'hi' }] });
    expect(server.core.idempotency.size).toBe(0);
    expect(server.core.tasksCreated).toBe(0);
  });
});

describe('idempotency helpers', () => {
  it('prefers _meta over the argument and ignores empty or non-string keys', () => {
    expect(idempotencyKeyOf({ _meta: { [IDEMPOTENCY_META_KEY]: 'm' } }, { k: 'a' }, 'k')).toBe('m');
    expect(idempotencyKeyOf({}, { k: 'a' }, 'k')).toBe('a');
    expect(idempotencyKeyOf({}, { k: 'a' }, undefined)).toBeUndefined();
    expect(idempotencyKeyOf({ _meta: { [IDEMPOTENCY_META_KEY]: '' } }, { k: 7 }, 'k')).toBeUndefined();
    expect(idempotencyKeyOf({ _meta: [] }, {}, undefined)).toBeUndefined();
  });

  it('canonicalJson ignores key order', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: 1 }] })).toBe(canonicalJson({ a: [{ x: 1, y: 2 }], b: 1 }));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
  });
});
