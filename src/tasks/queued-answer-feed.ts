/**
 * The follower's side of answers queued through the store: while a followed task has open questions, the answers
 * another process queued for them (see `QueuedAnswers`) are taken and sent through the task's input scope, once
 * per key, with who answered.
 *
 * @module
 * @internal
 */
import type { QueuedAnswers } from '../store/queued-answers.js';
import type { InputRequiredEvent } from './input-broker.js';
import type { TaskHandle } from './task-handle.js';

/** How often a task with open questions looks for queued answers, ms. */
export const QUEUED_ANSWER_CHECK_MS = 500;

/** Feeds queued answers to `handle`'s open questions until it settles. */
export function feedQueuedAnswers(
  queue: QueuedAnswers,
  handle: TaskHandle<unknown>,
  server: string,
  onError: (error: unknown) => void,
): void {
  const open = new Map<string, InputRequiredEvent>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let checking = false;
  const stop = (): void => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };
  const check = async (): Promise<void> => {
    for (const [key, event] of open) if (event.answered) open.delete(key);
    if (open.size === 0 || handle.done) return stop();
    if (checking) return;
    checking = true;
    try {
      for (const answer of await queue.take(server, handle.taskId, [...open.keys()])) {
        const event = open.get(answer.key);
        if (!event) continue;
        await event.respond(
          answer.response,
          answer.answeredBy !== undefined ? { answeredBy: answer.answeredBy } : {},
        );
      }
    } finally {
      checking = false;
    }
  };
  const run = (): void => void check().catch(onError);
  handle.on('inputRequired', (event) => {
    open.set(event.key, event);
    timer ??= setInterval(run, QUEUED_ANSWER_CHECK_MS);
    run();
  });
  handle.whenSettled(stop);
}
