/**
 * `Retry-After` on `tasks/get` over real loopback HTTP (the fault server): the client never polls sooner than the
 * server asks, but the wait is a `warning` naming it in ms, and a wait that would end after the task's retention
 * (creation + `ttlMs`) settles the task at once with `TaskExpiredError` (`retryAfterMs` set) instead of a promise
 * that never settles. CLIENT-REQUIREMENTS 1.3 (nothing silent; no promise waits forever) and 5.x (polling).
 */
import { describe, expect, it } from 'vitest';
import { redactTaskId } from '../../src/errors.js';
import { TaskExpiredError, type CallToolResult } from '../../src/index.js';
import { chain, rewriteTask, type Fault } from './catalogue/index.js';
import { rejectionOf, useFaultBench } from './setup.js';

const bench = useFaultBench();
const TASK_TOOL = 'reindex_corpus';

/** `tasks/get` answers 429 with `Retry-After: seconds` for its first `times` polls of each task. */
function tooManyRequests(seconds: string, times: number): Fault {
  return {
    name: `tasks/get 429 Retry-After ${seconds}`,
    reply: (request, next) =>
      request.method === 'tasks/get' && request.countForTarget < times
        ? { kind: 'raw', status: 429, headers: { 'Retry-After': seconds }, chunks: [] }
        : next(),
  };
}

describe('Retry-After on tasks/get', () => {
  it('999999999 s with a 60 s ttlMs: TaskExpiredError at once (retryAfterMs), a warning says how long; no further poll', async () => {
    bench.server.inject(tooManyRequests('999999999', Infinity), { tool: TASK_TOOL });
    const client = bench.client();
    const warnings: string[] = [];
    client.on('warning', (w) => warnings.push(w));
    const handleErrors: unknown[] = [];
    let taskId = '';
    let expiresAt: number | null = null;
    const error = await rejectionOf(
      client.callTool(
        TASK_TOOL,
        { documents: 40 },
        {
          onTask: (h) => {
            taskId = h.taskId;
            h.on('error', (e) => handleErrors.push(e));
            expiresAt = h.expiresAt;
          },
        },
      ),
    );
    expect(error).toBeInstanceOf(TaskExpiredError);
    const e = error as TaskExpiredError;
    expect(e.code).toBe('TASK_EXPIRED');
    expect(e.taskId).toBe(taskId);
    expect(e.retryAfterMs).toBe(999_999_999_000);
    expect(e.expiredAt).toBe(expiresAt);
    expect(e.message).toBe(
      `task ${redactTaskId(taskId)}: the server asked to wait 999999999000 ms (Retry-After) before the next tasks/get, past the task's retention (it expires at ${new Date(expiresAt!).toISOString()}); not followed further`,
    );
    expect(warnings).toEqual([
      `task ${redactTaskId(taskId)}: the server asked to wait 999999999000 ms (Retry-After) before the next tasks/get`,
    ]);
    expect(handleErrors).toHaveLength(1); // the 429 itself, as before (its HttpError carries retryAfterMs too)
    expect((handleErrors[0] as { retryAfterMs?: number }).retryAfterMs).toBe(999_999_999_000);
    expect(bench.server.requests('tasks/get', taskId)).toHaveLength(1);
    expect(bench.server.requests('tasks/cancel', taskId)).toHaveLength(0); // the server asked for quiet
  }, 5_000);

  it('ttlMs null (kept forever): the wait is bounded at 1 hour (MAX_RETRY_AFTER_MS), and a warning says both', async () => {
    bench.server.inject(
      chain(
        tooManyRequests('999999999', Infinity),
        rewriteTask('ttlMs null', (task) => ({ ...task, ttlMs: null })),
      ),
      { tool: TASK_TOOL },
    );
    const client = bench.client();
    const warnings: string[] = [];
    client.on('warning', (w) => warnings.push(w));
    let taskId = '';
    let settled = false;
    const outcome = client
      .callTool(TASK_TOOL, { documents: 40 }, { onTask: (h) => (taskId = h.taskId) })
      .finally(() => (settled = true));
    outcome.catch(() => undefined); // the close below rejects it
    while (warnings.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(warnings).toEqual([
      `task ${redactTaskId(taskId)}: the server asked to wait 999999999000 ms (Retry-After) before the next tasks/get; waiting 3600000 ms, this client's limit`,
    ]);
    expect(settled).toBe(false);
  }, 5_000);

  it('a wait within the retention (1 s): honoured, then the task completes', async () => {
    bench.server.inject(tooManyRequests('1', 1), { tool: TASK_TOOL });
    const client = bench.client();
    const warnings: string[] = [];
    client.on('warning', (w) => warnings.push(w));
    let taskId = '';
    const result: CallToolResult = await client.callTool(
      TASK_TOOL,
      { documents: 40 },
      { onTask: (h) => (taskId = h.taskId) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'Indexed 40 documents' }]);
    expect(warnings).toEqual([
      `task ${redactTaskId(taskId)}: the server asked to wait 1000 ms (Retry-After) before the next tasks/get`,
    ]);
    const polls = bench.server.requests('tasks/get', taskId);
    expect(polls[1]!.at - polls[0]!.at).toBeGreaterThanOrEqual(1_000);
  }, 5_000);
});
