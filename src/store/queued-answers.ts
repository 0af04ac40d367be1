/**
 * Answers queued through a shared task store: a process that does not follow a task (a UI such as `mcp-tasks
 * inbox`) leaves the answer in the store, and the one process that follows the task (the lease holder) takes it and
 * sends it with `tasks/update`, so an answer is sent once, by the follower. The first answer queued for a key wins.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-update-requests)
 *
 * @module
 */
import type { InputResponse } from '../protocol/input.js';

/** One answer waiting for the follower of its task. */
export interface QueuedAnswer {
  key: string;
  response: InputResponse;
  /** Who answered, kept in the record's `answers` once the server acknowledged it. */
  answeredBy?: string;
  /** When it was queued, epoch ms. */
  queuedAt: number;
}

/** Answers waiting in a store for the process that follows their task. */
export interface QueuedAnswers {
  /**
   * Leaves an answer for the follower of the task.
   * @returns true when it was the first answer queued for this key, false when one was already waiting.
   */
  queue(server: string, taskId: string, answer: QueuedAnswer): Promise<boolean>;
  /** Takes (removes and returns) the answers waiting for these keys of the task; each answer is taken once. */
  take(server: string, taskId: string, keys: readonly string[]): Promise<QueuedAnswer[]>;
}
