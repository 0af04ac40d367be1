/**
 * Phase "correctness": before any figure, both clients against the same reference server (its own process, HTTP on
 * loopback, `pollIntervalMs` CORRECTNESS_INTERVAL_MS), one case at a time, ours (TaskClient, undici sender) and
 * `@modelcontextprotocol/ext-tasks` (bench/lib/peer-host.ts):
 * - inline: `echo` answered inline;
 * - task: `sleep_ms` 300 ms becomes a task and completes with its result;
 * - question: `deploy_release` asks one question (`confirm`, input_required) → answered accept → completed;
 * - cancel: `sleep_ms` of an hour, cancelled once it is a task.
 * For each: what the client reported, and what the server saw (`tasks/update` and `tasks/cancel` received for the
 * task, its final status on the server).
 */
import { TaskClient } from '../../src/client/task-client.js';
import type { TaskHandle } from '../../src/tasks/task-handle.js';
import { StreamableHttpTransport } from '../../src/transport/streamable-http.js';
import { createUndiciSender } from '../../src/transport/undici-sender.js';
import { report, startServerProcess, type ServerProcess } from '../lib/child.js';
import { envInt, sleep } from '../lib/measure.js';
import { errorChain } from '../lib/outcome.js';
import { createPeerHost } from '../lib/peer-host.js';

const intervalMs = envInt('CORRECTNESS_INTERVAL_MS', 100);
const server: ServerProcess = await startServerProcess({ pollIntervalMs: intervalMs });

type Case = { client: Record<string, unknown>; taskId?: string };
const text = (result: unknown): string | undefined =>
  (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;

async function ours(): Promise<Record<string, Case>> {
  const client = new TaskClient({
    transport: new StreamableHttpTransport(server.url, { sender: createUndiciSender() }),
  });
  const cases: Record<string, Case> = {};
  let questions = 0;
  client.on('inputRequired', (event) => {
    questions++;
    void event.respond({ action: 'accept', content: { confirm: true } });
  });
  const run = async (
    name: string,
    body: (onTask: (h: TaskHandle<unknown>) => void) => Promise<Record<string, unknown>>,
  ): Promise<void> => {
    let taskId: string | undefined;
    try {
      cases[name] = { client: await body((h) => (taskId = h.taskId)), taskId };
    } catch (error) {
      cases[name] = { client: { status: 'rejected', ...errorChain(error) }, taskId };
    }
  };
  await run('inline', async (onTask) => ({
    status: 'completed',
    text: text(await client.callTool('echo', { text: 'hi' }, { onTask })),
  }));
  await run('task', async (onTask) => ({
    status: 'completed',
    text: text(await client.callTool('sleep_ms', { ms: 300 }, { onTask })),
  }));
  await run('question', async (onTask) => {
    const result = await client.callTool('deploy_release', { version: '1.2.3' }, { onTask });
    return { status: 'completed', text: text(result), questionsSeen: questions };
  });
  await run('cancel', async (onTask) => {
    const start = await client.startTool('sleep_ms', { ms: 3_600_000 });
    if (start.resultType !== 'task') return { status: 'not a task' };
    onTask(start.task as TaskHandle<unknown>);
    await sleep(2 * intervalMs);
    await start.task.cancel();
    return start.task.result().then(
      () => ({ status: 'completed' }),
      (error: unknown) => ({ status: 'rejected', ...errorChain(error) }),
    );
  });
  await client.close();
  return cases;
}

async function peer(): Promise<Record<string, Case>> {
  let questions = 0;
  const host = await createPeerHost(server.url, {
    onInputRequest: async () => {
      questions++;
      return { action: 'accept', content: { confirm: true } } as never;
    },
  });
  const cases: Record<string, Case> = {};
  const outcomeOf = async (
    name: string,
    args: Record<string, unknown>,
    cancelAfterMs?: number,
  ): Promise<Case> => {
    try {
      const execution = await host.session.callTool(name, args as never);
      const taskId = execution.kind === 'task' ? execution.handle.taskId : undefined;
      if (cancelAfterMs !== undefined) {
        const settled = execution.settle();
        await sleep(cancelAfterMs);
        await execution.cancel();
        const { outcome } = await settled;
        return { client: summarise(outcome), taskId };
      }
      const { outcome } = await execution.settle();
      return { client: summarise(outcome), taskId };
    } catch (error) {
      return { client: { status: 'rejected', ...errorChain(error) } };
    }
  };
  const summarise = (outcome: {
    status: string;
    result?: unknown;
    error?: unknown;
  }): Record<string, unknown> => ({
    status: outcome.status,
    ...(outcome.result !== undefined ? { text: text(outcome.result) } : {}),
    ...(outcome.error !== undefined ? errorChain(outcome.error) : {}),
  });
  cases.inline = await outcomeOf('echo', { text: 'hi' });
  cases.task = await outcomeOf('sleep_ms', { ms: 300 });
  cases.question = await outcomeOf('deploy_release', { version: '1.2.3' });
  (cases.question.client as Record<string, unknown>).questionsSeen = questions;
  cases.cancel = await outcomeOf('sleep_ms', { ms: 3_600_000 }, 2 * intervalMs);
  await host.close();
  return cases;
}

const sides = { ours: await ours(), peer: await peer() };
// What the server saw for each task.
const ids = Object.values(sides).flatMap((cases) =>
  Object.values(cases).flatMap((c) => (c.taskId ? [{ taskId: c.taskId, key: '' }] : [])),
);
const { tasks } = await server.collect(ids);
const seen = new Map(
  tasks.map((t) => [
    t.taskId,
    { serverStatus: t.serverStatus, updates: t.updates, cancels: t.cancels, gets: t.gets.length },
  ]),
);
await server.close();

/** Whether a case ended as it should, from the client's report and the server's record together. */
function verdict(name: string, c: Case, server: ReturnType<typeof seen.get>): boolean {
  const client = c.client as { status?: string; text?: string; message?: string; questionsSeen?: number };
  const cancelled =
    client.status === 'cancelled' ||
    (client.status === 'rejected' && /TaskCancelledError/.test(client.message ?? ''));
  switch (name) {
    case 'inline':
      return client.status === 'completed' && client.text === 'hi' && c.taskId === undefined;
    case 'task':
      return (
        client.status === 'completed' &&
        client.text === 'slept 300 ms' &&
        server?.serverStatus === 'completed'
      );
    case 'question':
      return (
        client.status === 'completed' &&
        client.text === 'deployed 1.2.3' &&
        client.questionsSeen === 1 &&
        server?.updates === 1
      );
    default:
      return cancelled && server?.cancels === 1 && server.serverStatus === 'cancelled';
  }
}
const table = Object.fromEntries(
  Object.entries(sides).map(([side, cases]) => [
    side,
    Object.fromEntries(
      Object.entries(cases).map(([name, c]) => {
        const onServer = c.taskId ? seen.get(c.taskId) : undefined;
        return [name, { ok: verdict(name, c, onServer), ...c, server: onServer ?? 'inline (no task)' }];
      }),
    ),
  ]),
);
report({ phase: 'correctness', intervalMs, ...table });
