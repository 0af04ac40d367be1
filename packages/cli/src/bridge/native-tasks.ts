/**
 * The bridge's own 2025-11-25 tasks, for hosts that send a task-augmented `tools/call`. That version has the
 * receiver answer at once with a `CreateTaskResult` (its own `taskId`, `ttl`, `pollInterval`), before the upstream
 * has said anything, so these records are the bridge's: the SDK serves `tasks/get`, `tasks/result`, `tasks/list`
 * and `tasks/cancel` from them. Each record follows one bridged call: its status and `statusMessage` are the
 * upstream's as they come, `input_required` while the host is asked a question, and the upstream's result at the
 * end. A host's `tasks/cancel` marks the record `cancelled` (the version requires that answer) and tells the bridge,
 * which cancels the upstream task (unless `--on-abort detach`) but keeps following it to record how it really ended.
 *
 * Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
 *
 * @module
 */
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { Result, Task } from '@modelcontextprotocol/sdk/types.js';

/** Statuses a 2025-11-25 task never leaves. */
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Host-facing task records; `onHostCancel` hears of every host `tasks/cancel`. */
export class BridgeTaskStore extends InMemoryTaskStore {
  readonly #cancelled = new Set<string>();
  readonly #onHostCancel: (taskId: string) => void;

  constructor(onHostCancel: (taskId: string) => void) {
    super();
    this.#onHostCancel = onHostCancel;
  }

  /**
   * Status updates: the SDK calls this with `cancelled` for the host's `tasks/cancel`; the bridge's own updates of
   * a record that already ended are dropped (the record keeps what the host was told).
   */
  override async updateTaskStatus(
    taskId: string,
    status: Task['status'],
    statusMessage?: string,
    sessionId?: string,
  ): Promise<void> {
    const current = await super.getTask(taskId, sessionId);
    if (!current || TERMINAL.has(current.status)) return;
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status === 'cancelled') {
      this.#cancelled.add(taskId);
      this.#onHostCancel(taskId);
    }
  }

  /** Stores the outcome unless the host cancelled the record first (then it stays `cancelled`). */
  async settle(taskId: string, status: 'completed' | 'failed', result: Result): Promise<boolean> {
    const current = await super.getTask(taskId);
    if (!current || TERMINAL.has(current.status)) return false;
    await super.storeTaskResult(taskId, status, result);
    return true;
  }

  /** True when the host cancelled this record. */
  hostCancelled(taskId: string): boolean {
    return this.#cancelled.has(taskId);
  }
}
