/**
 * Push merged with polling, for one server: `subscriptions/listen` streams asking for `notifications/tasks` about the
 * tasks being followed. When tasks no stream asks for are added, a new stream is opened (debounced) for those ids
 * only; open streams are kept, so the server sends each task's current state about once, not once per re-open.
 * One stream is opening at a time: tasks added while one waits for its acknowledgement are asked for once it is
 * acknowledged. At most {@link DEFAULT_MAX_PUSH_STREAMS} streams are open: at the cap, the new stream also asks for
 * the ids of the smallest streams (see `./stream-plan.ts`), which are closed once it is acknowledged (make before
 * break). A stream none of whose tasks is followed any more is closed; a dropped one is re-opened with backoff.
 * Each `notifications/tasks` is handed to the host exactly as a `tasks/get` result would be; tasks the server
 * acknowledged switch to a slow safety poll, and every other task keeps polling at its floor.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-status-notifications,
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions)
 *
 * @module
 */
import { HttpError, McpError } from '../../errors.js';
import { ErrorCode } from '../../protocol/constants.js';
import type { JsonRpcNotification } from '../../protocol/jsonrpc.js';
import { parseDetailedTask, type DetailedTask } from '../../protocol/tasks.js';
import { DEFAULT_MAX_PUSH_STREAMS, planTakeOver } from './stream-plan.js';

export { DEFAULT_MAX_PUSH_STREAMS } from './stream-plan.js';

/** Acknowledged tasks are still polled, at this multiple of their interval, so a silently dead stream loses nothing. */
export const DEFAULT_SAFETY_POLL_MULTIPLE = 10;
/** Changes to the followed set within this window open at most one new stream. */
export const DEFAULT_PUSH_DEBOUNCE_MS = 50;
/** At most this many task ids asked for (all streams together); the rest keep polling at their floor. */
export const DEFAULT_MAX_PUSH_TASK_IDS = 1_000;
/** Backoff before re-opening a dropped stream: doubles from the first to the last value. */
export const PUSH_BACKOFF_MS: readonly [number, number] = [500, 30_000];

/** How a followed task is observed: `push` (acknowledged: safety poll only) or `poll` (at its floor). */
export type PushCadence = 'push' | 'poll';

/** What the channel needs from the client; the tracker of followed tasks implements it. */
export interface PushTarget {
  /** The ids of the tasks on this server still being followed (not terminal). */
  followedTaskIds(): readonly string[];
  /** Applies a pushed task exactly like a `tasks/get` result (ordering, input dedupe, terminal stays final). */
  apply(task: DetailedTask): void;
  /** Switches a task between its safety poll (`push`) and its floor (`poll`). */
  setCadence(taskId: string, cadence: PushCadence): void;
  /** A push failure the client survives (bad notification, dropped stream); never thrown. */
  onError(error: unknown): void;
}

/**
 * Opens one `subscriptions/listen` stream for `taskIds`: each notification on it goes to `onNotification`; settles
 * when the stream ends (resolves on the server's graceful close, rejects on a drop or error), or when `signal`
 * aborts.
 */
export type ListenFn = (
  taskIds: readonly string[],
  onNotification: (notification: JsonRpcNotification) => void,
  signal: AbortSignal,
) => Promise<unknown>;

/** Options of {@link PushChannel}. */
export interface PushChannelOptions {
  /** @default DEFAULT_PUSH_DEBOUNCE_MS */
  debounceMs?: number;
  /** @default DEFAULT_MAX_PUSH_TASK_IDS */
  maxTaskIds?: number;
  /** At most this many streams open at once (≥ 1). @default DEFAULT_MAX_PUSH_STREAMS */
  maxStreams?: number;
  /** Random source in [0, 1) for backoff jitter. @default Math.random */
  random?: () => number;
}

/** The server does not offer task push: no such method, a capability it wants, or an HTTP status saying so. */
function refusesListen(error: unknown): boolean {
  if (error instanceof McpError)
    return (
      error.code === ErrorCode.MethodNotFound || error.code === ErrorCode.MissingRequiredClientCapability
    );
  return error instanceof HttpError && [400, 404, 405, 501].includes(error.status);
}

/** One `subscriptions/listen`: the ids it asked for, those the server acknowledged, and the streams it takes over. */
interface Stream {
  readonly controller: AbortController;
  readonly requested: ReadonlySet<string>;
  acked: ReadonlySet<string> | undefined;
  readonly replaces: readonly Stream[];
}

/** The streams of one server: opened as tasks are added, closed when their tasks are done, re-opened after a drop. */
export class PushChannel {
  readonly #target: PushTarget;
  readonly #listen: ListenFn;
  readonly #debounceMs: number;
  readonly #maxTaskIds: number;
  readonly #maxStreams: number;
  readonly #random: () => number;
  /** Every open stream, the opening one included. */
  #streams: Stream[] = [];
  /** The stream waiting for its acknowledgement; `#waiting`: the followed set changed meanwhile. */
  #opening: Stream | undefined;
  #waiting = false;
  /** Ids the server pushes for, on any stream. */
  #acked = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #failures = 0;
  #unsupported = false;
  #closed = false;

  constructor(target: PushTarget, listen: ListenFn, options: PushChannelOptions = {}) {
    this.#target = target;
    this.#listen = listen;
    this.#debounceMs = options.debounceMs ?? DEFAULT_PUSH_DEBOUNCE_MS;
    this.#maxTaskIds = options.maxTaskIds ?? DEFAULT_MAX_PUSH_TASK_IDS;
    this.#maxStreams = Math.max(1, options.maxStreams ?? DEFAULT_MAX_PUSH_STREAMS);
    this.#random = options.random ?? Math.random;
  }

  /** False once the server refused `subscriptions/listen` (every task then polls at its floor). */
  get supported(): boolean {
    return !this.#unsupported;
  }

  /** Ids the server currently pushes for. */
  get acknowledged(): ReadonlySet<string> {
    return this.#acked;
  }

  /** Streams open now (the opening one included). */
  get streamCount(): number {
    return this.#streams.length;
  }

  /** The followed set changed (a task started, ended or was dropped): after the debounce, opens a stream for the
   * followed tasks no stream asks for, closes streams none of whose tasks is followed. */
  changed(): void {
    if (this.#closed || this.#unsupported || this.#timer !== undefined) return;
    this.#arm(this.#debounceMs);
  }

  /** Closes every stream and stops re-opening them. Acknowledged tasks go back to their floor. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#stop();
  }

  #arm(delayMs: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#open();
    }, delayMs);
  }

  /** Ends every stream; every acknowledged task returns to polling at its floor. */
  #stop(): void {
    for (const stream of this.#streams) stream.controller.abort();
    this.#streams = [];
    this.#opening = undefined;
    this.#waiting = false;
    const acked = [...this.#acked];
    this.#acked = new Set();
    for (const id of acked) this.#target.setCadence(id, 'poll');
  }

  /** Ends one stream; its acknowledged ids that no other stream covers return to their floor. */
  #drop(stream: Stream): void {
    const at = this.#streams.indexOf(stream);
    if (at < 0) return;
    this.#streams.splice(at, 1);
    if (this.#opening === stream) this.#opening = undefined;
    stream.controller.abort();
    for (const id of stream.acked ?? []) {
      if (this.#streams.some((other) => other.acked?.has(id))) continue;
      this.#acked.delete(id);
      this.#target.setCadence(id, 'poll');
    }
  }

  /**
   * Closes streams none of whose tasks is followed (the server pushes nothing more for a terminal task), then opens
   * one stream for the followed ids no stream asks for, unless one is still opening (then this waits for its
   * acknowledgement). At the stream cap the new one also takes over the ids of the streams `planTakeOver` picks.
   */
  #open(): void {
    if (this.#closed || this.#unsupported) return;
    const wanted = this.#target.followedTaskIds().slice(0, this.#maxTaskIds);
    if (wanted.length === 0) return this.#stop();
    const followed = new Set(wanted);
    const busy = new Set(this.#opening ? [this.#opening, ...this.#opening.replaces] : []);
    for (const stream of [...this.#streams]) {
      if (!busy.has(stream) && ![...stream.requested].some((id) => followed.has(id))) this.#drop(stream);
    }
    const fresh = wanted.filter((id) => !this.#streams.some((stream) => stream.requested.has(id)));
    if (fresh.length === 0) return;
    if (this.#opening) {
      this.#waiting = true;
      return;
    }
    const open = [...this.#streams];
    const live = (stream: Stream) => [...stream.requested].filter((id) => followed.has(id));
    const replaces = planTakeOver(
      open.map((stream) => live(stream).length),
      fresh.length,
      this.#maxStreams,
    ).map((i) => open[i] as Stream);
    const stream: Stream = {
      controller: new AbortController(),
      requested: new Set([...fresh, ...replaces.flatMap(live)]),
      acked: undefined,
      replaces,
    };
    this.#streams.push(stream);
    this.#opening = stream;
    this.#waiting = false;
    this.#listen(
      [...stream.requested],
      (n) => this.#onNotification(stream, n),
      stream.controller.signal,
    ).then(
      () => this.#ended(stream, undefined),
      (error: unknown) => this.#ended(stream, error),
    );
  }

  #onNotification(stream: Stream, notification: JsonRpcNotification): void {
    if (!this.#streams.includes(stream)) return; // a stream we already left
    const params = (notification.params ?? {}) as Record<string, unknown>;
    if (notification.method === 'notifications/subscriptions/acknowledged') {
      if (stream !== this.#opening) return;
      const agreed = (params.notifications as { taskIds?: unknown } | undefined)?.taskIds;
      const ids = Array.isArray(agreed)
        ? agreed.filter((id): id is string => typeof id === 'string' && stream.requested.has(id))
        : [];
      stream.acked = new Set(ids);
      this.#opening = undefined;
      this.#failures = 0;
      for (const id of ids) this.#acked.add(id);
      for (const replaced of stream.replaces) this.#drop(replaced);
      for (const id of stream.requested) this.#target.setCadence(id, stream.acked.has(id) ? 'push' : 'poll');
      // Tasks added while this stream was opening waited at least one debounce already: asked for at once.
      if (this.#waiting && this.#timer === undefined) this.#arm(0);
      this.#waiting = false;
      return;
    }
    if (notification.method !== 'notifications/tasks') return;
    const { _meta: _ignored, ...fields } = params;
    let task: DetailedTask;
    try {
      task = parseDetailedTask(fields);
    } catch (error) {
      this.#target.onError(error);
      return;
    }
    if (stream.requested.has(task.taskId)) this.#target.apply(task);
  }

  #ended(stream: Stream, error: unknown): void {
    if (this.#closed || !this.#streams.includes(stream)) return; // replaced or closed on purpose
    this.#drop(stream);
    if (refusesListen(error)) {
      this.#unsupported = true; // the server does not push: polling alone, at the floor
      this.#stop();
      return;
    }
    if (error !== undefined) this.#target.onError(error);
    const [first, last] = PUSH_BACKOFF_MS;
    const delay = Math.min(last, first * 2 ** this.#failures) * (1 + 0.2 * this.#random());
    this.#failures++;
    this.#arm(delay);
  }
}
