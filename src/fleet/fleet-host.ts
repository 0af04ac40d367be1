/**
 * What the fleet engine needs from a client and a store: a narrow seam, so the engine drives tasks through the
 * client's public API (`task()`, `startTool()`, the `task` event) and the store's lease operations only.
 *
 * @module
 */
import type { InputResponses } from '../protocol/input.js';
import type { DetailedTask } from '../protocol/tasks.js';
import type { TaskRecord } from '../store/task-record.js';
import type { TaskStore } from '../store/task-store.js';
import type { InputRequest, InputResponse } from '../protocol/input.js';
import type { InputRequiredEvent } from '../tasks/input-broker.js';
import type { PollGate } from '../tasks/task-handle.js';

/** The part of a task handle the fleet uses (a `TaskHandle` fits). */
export interface FleetTask {
  readonly taskId: string;
  readonly method: string;
  readonly done: boolean;
  readonly pollIntervalMs: number;
  /** Local start of the task's TTL (epoch ms). */
  readonly localCreatedAt: number;
  readonly task: DetailedTask;
  /** Keys answered so far. */
  readonly answeredKeys: ReadonlySet<string>;
  result(): Promise<unknown>;
  refresh(): Promise<DetailedTask>;
  respond(inputResponses: InputResponses): Promise<string[]>;
  /** Stops following without asking the server anything; `result()` rejects with `error`. */
  stopFollowing(error: unknown): void;
  on(event: 'inputRequired', listener: (event: InputRequiredEvent) => void): unknown;
  on(event: 'answered', listener: (key: string) => void): unknown;
  on(event: 'status', listener: (task: DetailedTask) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
}

/** A lease as the fleet sees it (the Redis store's `Lease`). */
export interface FleetLease {
  readonly id: string;
  readonly server: string;
  readonly taskId: string;
  readonly fence: number;
  deadline: number;
  sendBy?: number;
}

/** A claimed task (the Redis store's `ClaimedTask`). */
export interface FleetClaim {
  lease: FleetLease;
  record: TaskRecord;
  previousOwner?: string;
  lateMs?: number;
}

/** The shared store of a fleet: a {@link TaskStore} with leases, questions and idempotency keys (`RedisTaskStore`). */
export interface FleetStore extends TaskStore {
  readonly leaseMs: number;
  workerId: string;
  claim(limit: number, held: number, liveMs: number): Promise<FleetClaim[]>;
  renew(lease: FleetLease, dueInMs: number): Promise<boolean>;
  fencePoll(lease: FleetLease, intervalMs: number): Promise<boolean>;
  release(lease: FleetLease): Promise<void>;
  leaseOf(server: string, taskId: string): FleetLease | undefined;
  forget(lease: FleetLease): void;
  readonly channel: {
    recordQuestion(server: string, taskId: string, key: string, request: InputRequest): Promise<boolean>;
    recordAnswer(server: string, taskId: string, key: string, response: InputResponse): Promise<boolean>;
    question(server: string, taskId: string, key: string): Promise<InputRequest | undefined>;
    answer(server: string, taskId: string, key: string): Promise<InputResponse | undefined>;
    subscribe(
      onEvent: (event: {
        type: 'question' | 'answer' | 'outcome';
        id: string;
        taskId: string;
        server: string;
        key?: string;
      }) => void,
      onError: (error: unknown) => void,
      options?: { onReady?: () => void },
    ): { stop(): Promise<void> };
    /** Open questions recorded before this process read the stream. */
    openQuestions(): Promise<
      Array<{ id: string; taskId: string; server: string; key: string; request: InputRequest }>
    >;
  };
  readonly idempotency: {
    claim(
      server: string,
      key: string,
      owner: string,
      pendingMs: number,
    ): Promise<
      { state: 'claimed'; pending: string } | { state: 'pending' } | { state: 'task'; taskId: string }
    >;
    bind(server: string, key: string, pending: string, taskId: string, ttlMs: number): Promise<boolean>;
    abandon(server: string, key: string, pending: string): Promise<void>;
  };
}

/** Options of attaching to a claimed task. */
export interface FleetAttachOptions {
  method: string;
  localCreatedAt: number;
  ttlMs: number | null;
  answeredKeys: string[];
}

/** What a creation through the client gave. */
export type FleetCreation =
  | { resultType: 'complete'; result: unknown }
  | { resultType: 'task'; task: FleetTask };

/** The client side of the fleet engine. */
export interface FleetHost {
  /** Identity of the server the client talks to (records are keyed by it). */
  readonly serverKey: string;
  readonly store: FleetStore;
  readonly workerId: string;
  now(): number;
  /** Puts `gate` before every `tasks/get` of the client's engine (one gate: the last worker started sets it). */
  gatePolls(gate: PollGate): void;
  /** Attaches to a task (one `tasks/get` now, then polling), as `client.task(taskId, options)`. */
  attach(taskId: string, options: FleetAttachOptions): Promise<FleetTask>;
  /** Starts a tool call with an idempotency key, as `client.startTool(name, args, { idempotencyKey })`. */
  startTool(
    name: string,
    args: Record<string, unknown> | undefined,
    idempotencyKey: string,
  ): Promise<FleetCreation>;
  /** Calls `listener` for every task the client creates (the client's `task` event); returns the unsubscribe. */
  onTask(listener: (task: FleetTask) => void): () => void;
}

/** True when `store` has the lease operations of a fleet store. */
export function isFleetStore(store: unknown): store is FleetStore {
  const s = store as Partial<FleetStore> | null | undefined;
  return (
    typeof s?.claim === 'function' &&
    typeof s.renew === 'function' &&
    typeof s.fencePoll === 'function' &&
    typeof s.leaseOf === 'function' &&
    s.channel !== undefined
  );
}
