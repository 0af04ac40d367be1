/**
 * Crash and resume across processes. A child process creates tasks on two reference
 * servers (run here, on loopback) through a FileTaskStore, answers the first questions, and is killed with SIGKILL
 * mid-task. A second child builds new clients on the same store, calls resumeAll(), and gets every outcome:
 * started = finished + reported, nothing lost, and no question asked twice.
 *
 * Time: the servers run at timeScale 10 (tasks of 2–4 s). The "short" server's clock is moved 2 minutes ahead after
 * the kill (its tasks live 1 minute), and the resuming child runs its clock 2 minutes ahead too: the task's TTL passes
 * while nobody watches, without the test waiting for it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTaskStore } from '../../src/file-store.js';
import type { TaskRecord } from '../../src/index.js';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { tempDir, twoStepRelease } from './fixtures.js';

const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SKEW_MS = 120_000;

type Event = Record<string, any> & { event: string };

interface Child {
  process: ChildProcess;
  events: Event[];
  stderr: string[];
  /** Resolves with the first event matching `predicate` (rejects if the child exits first or after `timeoutMs`). */
  next(predicate: (e: Event) => boolean, timeoutMs: number): Promise<Event>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function runChild(args: string[]): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Event[] = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      events.push(JSON.parse(line) as Event);
    } catch {
      stderr.push(`stdout: ${line}`);
    }
    for (const wake of waiters) wake();
  });
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve({ code, signal });
      for (const wake of waiters) wake();
    });
  });
  let done = false;
  void exited.then(() => (done = true));
  return {
    process: child,
    events,
    stderr,
    exited,
    next(predicate, timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            finish(
              new Error(`child: timed out; events ${JSON.stringify(events)}; stderr ${stderr.join('')}`),
            ),
          timeoutMs,
        );
        const check = () => {
          const found = events.find(predicate);
          if (found) finish(undefined, found);
          else if (done || child.exitCode !== null || child.signalCode !== null)
            finish(new Error(`child exited; events ${JSON.stringify(events)}; stderr ${stderr.join('')}`));
        };
        const finish = (error?: Error, event?: Event) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (error) reject(error);
          else resolve(event!);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

let main: TaskServer;
let short: TaskServer;
let skew = 0;
const children: Child[] = [];

beforeAll(async () => {
  main = await createTaskServer({
    pollIntervalMs: 100,
    ttlMs: 600_000,
    timeScale: 10,
    inputTimeoutMs: 60_000,
    catalog: { tools: [twoStepRelease] },
  });
  short = await createTaskServer({
    pollIntervalMs: 100,
    ttlMs: 60_000,
    timeScale: 10,
    now: () => Date.now() + skew,
  });
});
afterAll(async () => {
  for (const c of children)
    if (c.process.exitCode === null && c.process.signalCode === null) c.process.kill('SIGKILL');
  await Promise.all([main?.close(), short?.close()]);
});

describe('crash and resume across processes', () => {
  it('SIGKILL mid-task, then resumeAll() in a new process: every task accounted for, no question asked twice', async () => {
    const dir = await tempDir('crash');
    try {
      // 1. First process: create, answer the first questions, get killed.
      const first = runChild(['start', dir.path, main.url, short.url]);
      children.push(first);
      await first.next((e) => e.event === 'ready', 20_000);
      const created = first.events.filter((e) => e.event === 'created');
      expect(created).toHaveLength(6);
      const idOf = (tool: string) => created.find((e) => e.tool === tool)!.taskId as string;
      const deploy = idOf('deploy_release');
      const twoStep = idOf('two_step_release');
      const expiring = created.find((e) => e.server === 'short')!.taskId as string;

      // The answers reached the server, and work is still under way: this is "mid-task".
      expect(main.stats.taskUpdates(deploy).map((u) => Object.keys(u.inputResponses))).toEqual([['confirm']]);
      expect(main.stats.taskUpdates(twoStep).map((u) => Object.keys(u.inputResponses))).toEqual([
        ['approve'],
      ]);
      const running = created.filter(
        (e) => e.server === 'main' && main.core.registry.get(e.taskId)?.run.terminal === false,
      );
      expect(running.length).toBeGreaterThanOrEqual(2);
      expect(main.core.registry.get(twoStep)?.run.terminal).toBe(false);

      first.process.kill('SIGKILL');
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

      // What the dead process left: one valid record per task, with the answered keys, no secrets.
      const invalid: string[] = [];
      const store = new FileTaskStore(dir.path, { onInvalid: (file) => invalid.push(file) });
      const left = await store.list();
      expect(invalid).toEqual([]);
      expect(left.map((r) => r.taskId).sort()).toEqual(created.map((e) => e.taskId).sort());
      expect(left.find((r) => r.taskId === deploy)?.answeredKeys).toEqual(['confirm']);
      expect(left.find((r) => r.taskId === twoStep)?.answeredKeys).toEqual(['approve']);
      for (const r of left) expect(r.idempotencyKey).toMatch(/^crash-test-\d$/);
      expect(JSON.stringify(left)).not.toContain('sk-live-SECRET');
      const finishedBeforeKill = left.filter((r) => r.outcome !== undefined).map((r) => r.taskId);

      // 2. Time passes on the short server: its task expires while nobody watches.
      skew = SKEW_MS;

      // 3. Second process: resumeAll() on the same store.
      const second = runChild(['resume', dir.path, main.url, short.url, String(SKEW_MS)]);
      children.push(second);
      await second.next((e) => e.event === 'done', 25_000);
      expect((await second.exited).code).toBe(0);

      const resumed = second.events.filter((e) => e.event === 'resumed').map((e) => e.taskId as string);
      const settled = second.events.filter((e) => e.event === 'settled');
      expect(second.events.filter((e) => e.event === 'invalid')).toEqual([]);

      // Nothing lost: every task started was either already finished or resumed, exactly once.
      expect([...finishedBeforeKill, ...resumed].sort()).toEqual(created.map((e) => e.taskId).sort());
      expect(settled.map((e) => e.taskId).sort()).toEqual([...resumed].sort());
      // started = finished + reported
      const finished = settled.filter((e) => e.ok);
      const reported = settled.filter((e) => !e.ok && ['TASK_EXPIRED', 'TASK_NOT_FOUND'].includes(e.code));
      expect(finishedBeforeKill.length + finished.length + reported.length).toBe(created.length);

      const outcome = (id: string) => settled.find((e) => e.taskId === id);
      expect(outcome(deploy)).toMatchObject({ ok: true, text: 'deployed 3.1.0' });
      expect(outcome(twoStep)).toMatchObject({ ok: true, text: 'released 4.0.0' });
      expect(outcome(expiring)).toMatchObject({ ok: false, code: 'TASK_EXPIRED' });
      for (const e of created.filter((c) => c.tool === 'reindex_corpus' && c.server === 'main')) {
        if (!finishedBeforeKill.includes(e.taskId))
          expect(outcome(e.taskId)?.text).toMatch(/^Indexed \d+ documents$/);
      }

      // No question asked twice: across both processes each (task, key) was asked once and answered once.
      const asked = [...first.events, ...second.events]
        .filter((e) => e.event === 'asked')
        .map((e) => `${e.taskId}/${e.key}`);
      expect([...asked].sort()).toEqual(
        [`${deploy}/confirm`, `${twoStep}/approve`, `${twoStep}/window`].sort(),
      );
      expect(second.events.filter((e) => e.event === 'asked').map((e) => e.key)).toEqual(['window']);
      expect(main.stats.taskUpdates(deploy)).toHaveLength(1);
      expect(main.stats.taskUpdates(twoStep).map((u) => Object.keys(u.inputResponses))).toEqual([
        ['approve'],
        ['window'],
      ]);
      // No task was created again.
      expect(main.core.tasksCreated).toBe(5);
      expect(short.core.tasksCreated).toBe(1);

      // The store now holds every outcome; the expired task is recorded as expired, not dropped.
      const after = await store.list();
      expect(after).toHaveLength(created.length);
      const byId = new Map<string, TaskRecord>(after.map((r) => [r.taskId, r]));
      expect(byId.get(expiring)?.outcome).toEqual({ status: 'expired' });
      expect(byId.get(deploy)?.outcome).toMatchObject({ status: 'completed' });
      expect(byId.get(twoStep)?.answeredKeys.sort()).toEqual(['approve', 'window']);
      for (const r of after) expect(r.outcome).toBeDefined();
    } finally {
      await dir.remove();
    }
  }, 60_000);
});
