/**
 * What a {@link TaskHandle} needs from the engine that owns it: the era's task operations, the shared poll
 * scheduler and update sender, the client's policies, and where its events go. Keeps the tasks layer free of HTTP.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md)
 *
 * @module
 */
import type { InputResponses } from '../protocol/input.js';
import type { DetailedTask } from '../protocol/tasks.js';
import type { DeliveryRetry } from './delivery.js';
import type { InputHandlers, InputRequiredEvent } from './input-broker.js';
import type { PollIntervalPolicy } from './poll-interval.js';
import type { PollScheduler } from './scheduler.js';
import type { UpdateSender } from './update-sender.js';

/** The `tasks/*` operations of one era (2026-07-28 requests, or the 2025-11-25 SDK session). */
export interface TaskOps {
  /**
   * `tasks/get`: the raw result (a `DetailedTask`). `writeCheck` (from the engine's poll gate) runs right before the
   * request is written (HTTP: once it has a connection) and throws to fail it unsent.
   */
  getTask(taskId: string, writeCheck?: () => void): Promise<Record<string, unknown>>;
  /** `tasks/update` with `inputResponses`. */
  updateTask(taskId: string, inputResponses: InputResponses): Promise<void>;
  /** `tasks/cancel`. */
  cancelTask(taskId: string): Promise<void>;
}

/**
 * The engine's one poll gate: asked before every `tasks/get` of any era. Returns nothing to let the poll go; a
 * promise that rejects to refuse it (nothing is sent), or resolves with a check to run right before the request is
 * written. A fleet worker fences each poll on its lease through it.
 * @internal
 */
export type PollGate = (taskId: string) => Promise<(() => void) | undefined> | undefined;

/** Emitted once when a task still waiting for input has less than the margin of its TTL left. */
export interface ExpiringEvent {
  taskId: string;
  /** The latest `DetailedTask` (status `input_required`). */
  task: DetailedTask;
  /** When the server may forget the task, epoch ms (client clock). */
  expiresAt: number;
  /** Milliseconds left when the event fired. */
  remainingMs: number;
}

/** The engine's side of a handle. */
export interface TaskDriver extends TaskOps {
  readonly serverKey: string;
  readonly scheduler: PollScheduler;
  readonly policy: PollIntervalPolicy;
  readonly handlers: InputHandlers | undefined;
  readonly maxPollRetries: number;
  /** Number of -32602 answers tolerated right after creation before "not-yet-visible". */
  readonly notYetVisibleRetries: number;
  /** Fraction of the TTL left at which a task waiting for input emits `expiring`. */
  readonly expiringMarginRatio: number;
  /** Retries of `tasks/cancel`. */
  readonly deliveryRetry: DeliveryRetry;
  /** Batches and bounds `tasks/update` for this server. */
  readonly updates: UpdateSender;
  /** Aborts when the client closes (stops retries). */
  readonly signal: AbortSignal;
  /** True when questions arrive outside `tasks/get` (a 2025-11-25 server's elicitation requests). */
  readonly questionsOutOfBand?: boolean;
  now(): number;
  /** Forwards an input event to the client's listeners. */
  emitInput(event: InputRequiredEvent): void;
  /** Forwards a warning to the client's listeners. */
  emitWarning(message: string): void;
  /** Forwards an `expiring` event to the client's listeners. */
  emitExpiring(event: ExpiringEvent): void;
}
