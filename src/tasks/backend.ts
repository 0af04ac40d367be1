/**
 * One backend per protocol era behind one interface: the 2026-07-28 backend owns the request pipeline, MRTR rounds
 * and creation retry; the 2025-11-25 backend owns the official SDK's session. The task engine and the client facade
 * talk only to this interface. (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning)
 *
 * @module
 */
import type { DiscoverResult, Progress, Tool } from '../protocol/results.js';
import type { InputRequiredEvent } from './input-broker.js';
import type { TaskOps } from './task-handle.js';
import type { TaskHandle } from './task-handle.js';

import type { Era } from './config.js';

export type { Era };

/** Per-request options every backend honours. */
export interface BackendRequestOptions {
  /** Aborts the request; rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** This request's time budget in ms. */
  timeoutMs?: number;
  /** Opts into progress notifications. */
  onProgress?: (progress: Progress) => void;
  /** Extra transport headers (HTTP). */
  headers?: Record<string, string>;
  /** Extra `_meta` entries. */
  meta?: Record<string, unknown>;
}

/** Options of {@link EraBackend.start}. */
export interface StartOptions extends BackendRequestOptions {
  /** The caller's idempotency key, when given (decides whether a lost creation may be re-sent). */
  idempotencyKey?: string;
  /** `'forbid'`: this call does not declare the Tasks extension, so it cannot become a task. @default 'allow' */
  task?: 'allow' | 'forbid';
}

/**
 * What a call started: its final result, or the raw `CreateTaskResult` of a new task. `abortReason` is set when the
 * caller's signal aborted while the creation request was in flight and its response was still read: the engine
 * must then cancel or record the task and reject with that reason.
 */
export type StartResult =
  | { resultType: 'complete'; result: Record<string, unknown>; abortReason?: undefined; aborted?: false }
  | { resultType: 'task'; created: Record<string, unknown>; aborted: boolean; abortReason?: unknown };

/** What an era backend reports to its client: the questions it met (the `inputRequired` event) and warnings. */
export interface EraHost {
  emitInput(event: InputRequiredEvent): void;
  /** How many `inputRequired` listeners the client has (none: a question is refused, not left waiting). */
  listenerCount(): number;
  /** Reports what the caller should know but no call rejects with (the client's `warning` event). */
  warning(message: string): void;
}

/** One era's way of reaching the server. */
export interface EraBackend {
  readonly era: Era;
  /** The protocol version in use. */
  readonly protocolVersion: string;
  /** `tasks/get`, `tasks/update`, `tasks/cancel` in this era. */
  readonly ops: TaskOps;
  /** True when questions arrive outside `tasks/get` (legacy elicitation requests). */
  readonly questionsOutOfBand: boolean;
  /** Sends a task-capable request (`tools/call`, `resources/read`, `prompts/get`) and runs its MRTR rounds. */
  start(method: string, params: Record<string, unknown>, options: StartOptions): Promise<StartResult>;
  /** Any request; the raw `result`. */
  request(
    method: string,
    params: Record<string, unknown>,
    options: BackendRequestOptions,
  ): Promise<Record<string, unknown>>;
  /** `tools/list`, all pages, invalid tools dropped. */
  listTools(options: BackendRequestOptions): Promise<Tool[]>;
  /** `server/discover` (or its legacy equivalent). */
  discover(options: BackendRequestOptions): Promise<DiscoverResult>;
  /** Called for each handle of this backend (legacy: routes the server's questions to it). */
  track(handle: TaskHandle<unknown>): void;
  /** Ends the backend's session, if any. */
  close(): Promise<void>;
}
