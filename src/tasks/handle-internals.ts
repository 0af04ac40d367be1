/**
 * The state of a task handle that its parts (cancel and update delivery, the `expiring` timer, caller failures)
 * read and write.
 *
 * @module
 * @internal
 */
import type { ListenerSink } from '../internal/safe-emitter.js';
import type { DetailedTask } from '../protocol/tasks.js';
import type { InputScope } from './input-broker.js';
import type { TaskDriver } from './task-driver.js';

/** What these parts see of the handle itself. */
export interface HandleView {
  readonly taskId: string;
  readonly method: string;
  readonly done: boolean;
  emit(event: string, ...args: unknown[]): boolean;
  cancel(): Promise<void>;
  stopFollowing(error: unknown): void;
}

/** The handle state these parts read and write. */
export interface HandleInternals {
  readonly handle: HandleView;
  readonly driver: TaskDriver;
  cancelRequested: boolean;
  cancel?: Promise<void>;
  cancelTimer?: ReturnType<typeof setTimeout>;
  scope?: InputScope;
  expiryTimer?: ReturnType<typeof setTimeout>;
  expiringSent?: boolean;
  rejections?: Map<string, number>;
  /** What a caller failure does to this task: the call's `onAbort` (`'cancel'` when absent). */
  onAbort?: 'cancel' | 'detach';
  /** The error this handle is being aborted with after a caller failure (see `caller-failure.ts`). */
  callerAbort?: object;
  /** Where failures of caller code concerning this task go (the handle's listener sink). */
  sink: ListenerSink;
  /** Stops the retries of this task's `tasks/update` deliveries (see {@link stopUpdates}). */
  updates?: { controller: AbortController; unlisten: () => void };
  /** Stops the retries of `tasks/cancel` once the server reported the task's end (see `sendCancel`). */
  cancelRetries?: AbortController;
  task(): DetailedTask;
  /** Applies a state read outside the scheduler's polls. */
  apply(next: DetailedTask): void;
  fail(error: unknown): void;
  /** The classified error of a lost task (-32602). */
  lost(error: unknown): Error;
  pollNow(): void;
}
