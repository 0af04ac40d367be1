/**
 * `subscriptions/listen` on the reference server, for task status only: the stream is acknowledged first with the
 * subset of requested task ids the server knows, then each of those tasks' current state and every later status
 * change is pushed as `notifications/tasks` carrying the same DetailedTask a `tasks/get` would return at that moment
 * (the current state first, so a change between creation and subscription is never missed). Each message carries
 * the subscription id (the listen request's id) in `_meta`. The stream stays open until the client leaves or the
 * server closes (then a graceful `complete` result).
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-status-notifications,
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions)
 *
 * @module
 */
import {
  ErrorCode,
  META_KEYS,
  TASKS_EXTENSION_ID,
  isTerminalStatus,
  type JsonRpcNotification,
  type RequestId,
} from '../protocol/index.js';
import { JobError } from './job.js';
import type { TaskRecord, TaskRegistry } from './task-registry.js';

/** Most task ids one listen may ask for; more are refused as invalid params. */
export const MAX_LISTEN_TASK_IDS = 10_000;

interface Listener {
  readonly id: RequestId;
  readonly taskIds: Set<string>;
  readonly emit: (n: JsonRpcNotification) => void;
  readonly end: () => void;
}

/** The open listen streams of one server core. */
export class SubscriptionHub {
  readonly #registry: TaskRegistry;
  readonly #byTask = new Map<string, Set<Listener>>();
  readonly #all = new Set<Listener>();

  constructor(registry: TaskRegistry) {
    this.#registry = registry;
  }

  /** Number of open streams. */
  get size(): number {
    return this.#all.size;
  }

  /** Called by the registry on every change of a task: pushes it to the streams following it. */
  taskChanged(record: TaskRecord): void {
    const listeners = this.#byTask.get(record.taskId);
    if (!listeners) return;
    for (const listener of listeners) this.#push(listener, record);
    if (isTerminalStatus(record.run.status)) this.#byTask.delete(record.taskId);
  }

  #push(listener: Listener, record: TaskRecord): void {
    const { resultType: _r, ...task } = this.#registry.detailedTask(record);
    listener.emit({
      jsonrpc: '2.0',
      method: 'notifications/tasks',
      params: { ...task, _meta: { [META_KEYS.subscriptionId]: listener.id } },
    });
    if (isTerminalStatus(record.run.status)) listener.taskIds.delete(record.taskId);
  }

  /**
   * Serves one `subscriptions/listen`: acknowledges, then pushes until `signal` aborts (client left: resolves) or the
   * server closes (resolves with the graceful result).
   *
   * @throws JobError -32021 when task ids are asked for without the Tasks extension declared; -32602 on bad params.
   */
  listen(
    id: RequestId,
    params: Record<string, unknown>,
    tasksDeclared: boolean,
    emit: (n: JsonRpcNotification) => void,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const filter = params.notifications;
    if (filter !== undefined && (filter === null || typeof filter !== 'object' || Array.isArray(filter))) {
      throw new JobError(ErrorCode.InvalidParams, 'notifications must be an object');
    }
    const requested = (filter as { taskIds?: unknown } | undefined)?.taskIds;
    if (
      requested !== undefined &&
      (!Array.isArray(requested) ||
        requested.length > MAX_LISTEN_TASK_IDS ||
        !requested.every((t) => typeof t === 'string'))
    ) {
      throw new JobError(
        ErrorCode.InvalidParams,
        `notifications.taskIds must be an array of at most ${MAX_LISTEN_TASK_IDS} strings`,
      );
    }
    if (requested !== undefined && !tasksDeclared) {
      throw new JobError(ErrorCode.MissingRequiredClientCapability, 'Missing required client capability', {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } },
      });
    }
    const meta = { [META_KEYS.subscriptionId]: id };
    const known = ((requested ?? []) as string[]).filter((t) => this.#registry.get(t) !== undefined);
    return new Promise((resolve) => {
      const listener: Listener = {
        id,
        taskIds: new Set(known),
        emit,
        end: () => resolve({ resultType: 'complete', _meta: meta }),
      };
      const leave = (): void => {
        this.#all.delete(listener);
        for (const taskId of listener.taskIds) this.#byTask.get(taskId)?.delete(listener);
      };
      const acknowledged: Record<string, unknown> = {};
      if (requested !== undefined) acknowledged.taskIds = [...listener.taskIds];
      emit({
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { _meta: meta, notifications: acknowledged },
      });
      if (signal.aborted) return void resolve({ resultType: 'complete', _meta: meta });
      for (const taskId of known) {
        const record = this.#registry.get(taskId);
        if (record) this.#push(listener, record); // the current state; a terminal task is done with here
      }
      this.#all.add(listener);
      for (const taskId of listener.taskIds) {
        let set = this.#byTask.get(taskId);
        if (!set) this.#byTask.set(taskId, (set = new Set()));
        set.add(listener);
      }
      signal.addEventListener(
        'abort',
        () => {
          leave();
          resolve({ resultType: 'complete', _meta: meta });
        },
        { once: true },
      );
      (listener as { end: () => void }).end = () => {
        leave();
        resolve({ resultType: 'complete', _meta: meta });
      };
    });
  }

  /** Ends every stream gracefully (server shutdown). */
  close(): void {
    for (const listener of [...this.#all]) listener.end();
    this.#byTask.clear();
  }
}
