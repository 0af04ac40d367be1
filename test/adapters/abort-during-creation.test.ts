/**
 * The framework's abort while a call's creating request is on its way (CLIENT-REQUIREMENTS: never orphan work): the
 * adapter's `onAbort` applies from the creation on. With `'detach'` the task the server created anyway keeps
 * running and is reported by id (to `onStatus` and to the task tools) while the call rejects with the framework's
 * own reason; with `'cancel'` it gets one `tasks/cancel`. Each adapter through its real framework package
 * (`ai`'s tool `execute`, LangChain's `DynamicStructuredTool.invoke`, the Agents SDK `MCPServer.callTool`), against
 * the reference server over loopback HTTP. The tool's job aborts the framework's signal as soon as the server
 * starts it, so the abort lands while the `tools/call` response (a `CreateTaskResult` after the server's inline
 * budget) is still on its way: no timing window involved.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TaskToolUpdate } from '../../src/adapters/shared/options.js';
import type { TaskHandle } from '../../src/index.js';
import { ADAPTERS, Fixture, gatedTool } from './helpers.js';

const fx = new Fixture();
let onJobStart: (() => void) | undefined;

beforeAll(() => {
  const gated = gatedTool(() => fx.gate);
  // The gated tool, whose job first runs the test's hook (the framework's abort).
  return fx.start([{ ...gated, run: (ctx) => (onJobStart?.(), gated.run(ctx)) }]);
});
afterEach(() => {
  onJobStart = undefined;
  return fx.reset();
});
afterAll(() => fx.stop());

describe.each(Object.keys(ADAPTERS))('%s: an abort while the task is being created', (adapter) => {
  const adapt = ADAPTERS[adapter] as (typeof ADAPTERS)[string];

  it("onAbort 'detach': the task keeps running, onStatus and task_status report it by id, the call rejects with the framework's reason", async () => {
    const client = fx.client();
    let reportedId!: (taskId: string) => void;
    const reported = new Promise<string>((resolve) => (reportedId = resolve));
    const updates: TaskToolUpdate[] = [];
    const call = await adapt(client, {
      onAbort: 'detach',
      maxWaitMs: 1_000,
      onStatus: (u) => {
        updates.push(u);
        if (u.taskId) reportedId(u.taskId);
      },
    });
    const created = new Promise<TaskHandle<unknown>>((resolve) => client.once('task', resolve));
    const abort = new AbortController();
    const reason = new Error('the user pressed stop');
    onJobStart = () => abort.abort(reason);
    const rejection = call('slow_report', { title: 'x' }, abort.signal).then(
      () => 'resolved',
      (error: unknown) => error,
    );
    const handle = await created;
    // Before the fix the creation's abort cancelled the task (the client's default) and nobody heard of its id.
    const first = await Promise.race([
      reported,
      handle.result().then(
        () => 'settled',
        (error: { code?: string }) => `settled: ${error.code}`,
      ),
    ]);
    expect(first).toBe(handle.taskId);
    expect(updates.find((u) => u.taskId)).toMatchObject({ toolName: 'slow_report', status: 'working' });
    const error = await rejection;
    if (adapter !== 'langchain') expect(error).toBe(reason); // LangChain rejects with its own "Aborted" first
    expect(error).not.toBe('resolved');
    expect(fx.server.stats.taskCancels(handle.taskId)).toHaveLength(0);
    // The task tools know it by id (no store needed): the model can come back to it.
    const status = await call('task_status', { taskId: handle.taskId });
    expect(JSON.stringify(status)).toContain(`Task ${handle.taskId} is working (drafting).`);
    fx.gate.open();
    await expect(handle.result()).resolves.toMatchObject({ structuredContent: { title: 'x', pages: 3 } });
    expect(fx.server.stats.taskCancels(handle.taskId)).toHaveLength(0);
  });

  it("onAbort 'cancel' (the default): the task created during the abort gets one tasks/cancel", async () => {
    const client = fx.client();
    const call = await adapt(client, {});
    const created = new Promise<TaskHandle<unknown>>((resolve) => client.once('task', resolve));
    const abort = new AbortController();
    const reason = new Error('stop');
    onJobStart = () => abort.abort(reason);
    const rejection = call('slow_report', { title: 'y' }, abort.signal).catch((error: unknown) => error);
    const handle = await created;
    // Cancelled and acknowledged, then no longer followed (the outcome stays the server's to report).
    await expect(handle.result()).rejects.toMatchObject({
      code: 'CANCEL_NOT_CONFIRMED',
      taskId: handle.taskId,
    });
    if (adapter !== 'langchain') expect(await rejection).toBe(reason);
    else await rejection;
    expect(fx.server.stats.taskCancels(handle.taskId)).toHaveLength(1);
  });
});
