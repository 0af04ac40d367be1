/**
 * Answers queued through the store reach the server once, sent by the process that follows the task: the engine
 * takes the answer queued for an open question and sends it (`tasks/update`) with who answered; the file queue lets
 * the first answer for a key win across processes and hands each answer out once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryTaskStore } from '../../src/index.js';
import type { QueuedAnswer, QueuedAnswers } from '../../src/file-store.js';
import { FileQueuedAnswers } from '../../src/store/file-queued-answers.js';
import { QUEUED_ANSWER_CHECK_MS } from '../../src/tasks/queued-answer-feed.js';
import { completed, created, queue } from '../helpers/unit-fixtures.js';
import { askingTask, setup, startTask, T0 } from '../helpers/engine-setup.js';

const asking = askingTask;

/** A memory queue with the file queue's rules (first answer per key wins, each answer taken once). */
class MemoryQueue implements QueuedAnswers {
  readonly waiting = new Map<string, QueuedAnswer>();
  async queue(_server: string, taskId: string, answer: QueuedAnswer): Promise<boolean> {
    const id = `${taskId}\n${answer.key}`;
    if (this.waiting.has(id)) return false;
    this.waiting.set(id, answer);
    return true;
  }
  async take(_server: string, taskId: string, keys: readonly string[]): Promise<QueuedAnswer[]> {
    const out: QueuedAnswer[] = [];
    for (const key of keys) {
      const found = this.waiting.get(`${taskId}\n${key}`);
      if (found) out.push(found);
      this.waiting.delete(`${taskId}\n${key}`);
    }
    return out;
  }
}

describe('answers queued through the store', () => {
  beforeEach(() =>
    vi.useFakeTimers({
      now: T0,
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
    }),
  );
  afterEach(() => vi.useRealTimers());

  it('the follower sends a queued answer once, recording who answered', async () => {
    const answers = new MemoryQueue();
    const store = Object.assign(new MemoryTaskStore(), { queuedAnswers: answers });
    const get = queue([asking, asking, asking, completed()]);
    const { client, transport } = setup(
      (m) => (m === 'tools/call' ? created() : m === 'tasks/update' ? {} : get()),
      { store, capabilities: { elicitation: { form: {} } } },
    );
    client.on('inputRequired', () => undefined); // this process asks nobody: the answer comes through the store
    await startTask(client);
    await vi.advanceTimersByTimeAsync(1_000); // the question is seen
    const first = await answers.queue('s', 't1', {
      key: 'confirm',
      response: { action: 'accept', content: { ok: true } },
      answeredBy: 'browser-1',
      queuedAt: T0,
    });
    const second = await answers.queue('s', 't1', {
      key: 'confirm',
      response: { action: 'decline' },
      queuedAt: T0,
    });
    expect([first, second]).toEqual([true, false]);
    await vi.advanceTimersByTimeAsync(QUEUED_ANSWER_CHECK_MS);
    await vi.advanceTimersByTimeAsync(3_000);
    const updates = transport.of('tasks/update');
    expect(updates.map((u) => (u.message.params as { inputResponses?: unknown }).inputResponses)).toEqual([
      { confirm: { action: 'accept', content: { ok: true } } },
    ]);
    const record = await store.get('t1');
    expect(record?.answers).toEqual([
      { key: 'confirm', action: 'accept', answeredBy: 'browser-1', answeredAt: expect.any(Number) },
    ]);
    expect(answers.waiting.size).toBe(0);
  });
});

describe('FileQueuedAnswers', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'queued-answers-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('the first answer for a key wins; each answer is taken once, only for the keys asked', async () => {
    const a = new FileQueuedAnswers(dir);
    const b = new FileQueuedAnswers(dir); // another process sharing the directory
    const answer = (action: 'accept' | 'decline', by: string): QueuedAnswer => ({
      key: 'confirm',
      response: action === 'accept' ? { action, content: { ok: true } } : { action },
      answeredBy: by,
      queuedAt: 1,
    });
    expect(
      await Promise.all([
        a.queue('s', 't1', answer('accept', 'x')),
        b.queue('s', 't1', answer('decline', 'y')),
      ]),
    ).toEqual(expect.arrayContaining([true, false]));
    expect(await a.take('s', 't1', ['other'])).toEqual([]);
    const [takenA, takenB] = await Promise.all([
      a.take('s', 't1', ['confirm']),
      b.take('s', 't1', ['confirm']),
    ]);
    expect([...takenA, ...takenB]).toHaveLength(1);
    expect(await a.take('s', 't1', ['confirm'])).toEqual([]);
    expect(await a.take('s', 't2', ['confirm'])).toEqual([]);
  });
});
