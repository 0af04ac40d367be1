/**
 * Processes that join a fleet after a question was asked (a worker taking the task over from a killed one, a UI
 * started later) still show it, once per key, and the answer given there is sent once by the lease holder. Real
 * redis-server, the reference server over loopback HTTP, the asking worker in its own process (kill -9).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallToolResult } from '../../src/index.js';
import type { FleetClaimEvent } from '../../src/fleet/fleet-runner.js';
import type { FleetQuestion } from '../../src/fleet/fleet-questions.js';
import { fleetEnv, until, type FleetEnv } from './fleet-fixtures.js';

const WORKER = fileURLToPath(new URL('./asking-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LEASE = 1_500;
let env: FleetEnv | undefined;
let kill: (() => Promise<void>) | undefined;

afterEach(async () => {
  await kill?.();
  kill = undefined;
  await env?.close();
  env = undefined;
});

/** Starts the asking worker and resolves with its task id once its fleet showed the question. */
async function askThenKill9(e: FleetEnv): Promise<string> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', WORKER, e.redis.url, e.prefix, e.server.url, 'w10', String(LEASE)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  const events: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  createInterface({ input: child.stdout }).on('line', (line) =>
    events.push(JSON.parse(line) as Record<string, unknown>),
  );
  await until(
    () => events.some((x) => x.event === 'question') || child.exitCode !== null,
    'the question on w10',
    90_000,
  );
  const question = events.find((x) => x.event === 'question');
  if (!question) throw new Error(`w10 exited: ${stderr}`);
  expect(question.key).toBe('confirm');
  child.kill('SIGKILL');
  await exited;
  return question.taskId as string;
}

describe('fleet questions asked before a process joined', () => {
  it('a takeover worker and a UI started after the question show it once each; the answer is sent once', {
    timeout: 120_000,
  }, async () => {
    env = await fleetEnv({ leaseMs: LEASE, server: { pollIntervalMs: 100 } });
    const taskId = await askThenKill9(env);

    const ui = await env.worker('ui');
    const uiFleet = ui.client.runFleet({ claim: false });
    const uiSeen: string[] = [];
    const answered: boolean[] = [];
    uiFleet.on('inputRequired', (q) => {
      uiSeen.push(`${q.taskId}/${q.key}`);
      expect(q.request.method).toBe('elicitation/create');
    });

    const w11 = await env.worker('w11');
    const w11Fleet = w11.client.runFleet({ claimIntervalMs: 50 });
    const claims: FleetClaimEvent[] = [];
    const w11Seen: string[] = [];
    w11Fleet.on('claimed', (c) => claims.push(c));
    w11Fleet.on('inputRequired', (q) => w11Seen.push(`${q.taskId}/${q.key}`));

    await until(
      () => uiSeen.length > 0 && w11Seen.length > 0 && claims.some((c) => c.taskId === taskId),
      'both show the question and w11 holds the task',
      30_000,
    );
    expect(claims.find((c) => c.taskId === taskId)?.previousOwner).toBe('w10');
    const ask = await new Promise<FleetQuestion>((resolve) => {
      // A second listener joins late: the question is not shown again (once per key per process).
      const late = ui.client.runFleet({ claim: false });
      late.on('inputRequired', (q) => void late.stop().then(() => resolve(q)));
    });
    answered.push(await ask.respond({ action: 'accept', content: { confirm: true } }));
    answered.push(await ask.respond({ action: 'decline' }));

    const result = await ui.client.resultOf<CallToolResult>(taskId, { checkIntervalMs: 50 });
    expect(result.content).toEqual([{ type: 'text', text: 'deployed 7.0.0' }]);
    expect(answered).toEqual([true, false]);
    expect(uiSeen).toEqual([`${taskId}/confirm`]);
    expect(w11Seen).toEqual([`${taskId}/confirm`]);
    const updates = env.server.stats.taskUpdates(taskId);
    expect(updates).toHaveLength(1);
    expect(updates[0]?.inputResponses).toEqual({ confirm: { action: 'accept', content: { confirm: true } } });
    // The task ended: nothing of it is open any more, so no process joining now shows it.
    expect(await ui.store.channel.openQuestions()).toEqual([]);
    await Promise.all([uiFleet.stop(), w11Fleet.stop()]);
  });
});
