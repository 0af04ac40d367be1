/**
 * One poll scheduler per client: a single timer over a min-heap of due times, a cap on concurrent `tasks/get` per
 * server, one `Retry-After` pause per server, at most one poll in flight per task, and jitter above each task's
 * floor so tasks created together do not poll in lockstep. When more polls are due than the cap serves, the most
 * overdue goes first (each server's queue of due polls is a min-heap on the due time), so no task starves: a task's
 * due time only moves forward when it is polled.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.mdx, polling)
 *
 * @module
 */
import { MinHeap, type HeapEntry } from '../internal/min-heap.js';

/** Default cap on concurrent `tasks/get` per server. */
export const DEFAULT_MAX_CONCURRENT_POLLS = 16;
/** Default jitter: up to this fraction of the interval is added above the floor (never subtracted). */
export const DEFAULT_JITTER_RATIO = 0.05;
/** Jitter never exceeds this many milliseconds. */
export const MAX_JITTER_MS = 1_000;
const MAX_TIMER_MS = 2_147_483_647;

/** Something the scheduler can poll: a task handle. */
export interface Pollable {
  /** Groups polls for the concurrency cap and `Retry-After` (HTTP: the endpoint). */
  readonly serverKey: string;
  /** Performs one poll. The pollable reschedules itself (or not) before the promise settles. */
  poll(): Promise<void>;
}

/** Options of {@link PollScheduler}. */
export interface PollSchedulerOptions {
  /** Cap on concurrent polls per server. @default DEFAULT_MAX_CONCURRENT_POLLS */
  maxConcurrentPolls?: number;
  /** Fraction of the interval added as random jitter, 0 to 1. @default DEFAULT_JITTER_RATIO */
  jitterRatio?: number;
  /** When false, no timers run: the host drives polling with {@link PollScheduler.tick}. @default true */
  autoPoll?: boolean;
  /** Clock, epoch milliseconds. @default Date.now */
  now?: () => number;
  /** Random source in [0, 1). @default Math.random */
  random?: () => number;
  /**
   * Called as each poll starts with its lag: how late it starts after its due time, in ms (≥ 0). For metrics; a
   * throwing callback is ignored.
   */
  onPollLag?: (lagMs: number, serverKey: string) => void;
}

interface Entry extends HeapEntry {
  readonly item: Pollable;
  /** Waiting for a free slot on its server. */
  ready: boolean;
  polling: boolean;
  /** Scheduled while its poll was in flight: enters the heap when that poll ends (one poll in flight per task). */
  deferred: boolean;
}

interface ServerState {
  inflight: number;
  pausedUntil: number;
  /** Due polls waiting for a slot, most overdue first. */
  readonly ready: MinHeap<Entry>;
}

/**
 * Decides when each task is next polled. Tasks are scheduled with {@link scheduleAfter} and are polled no sooner
 * than that.
 */
export class PollScheduler {
  readonly #heap = new MinHeap<Entry>();
  readonly #entries = new Map<Pollable, Entry>();
  readonly #servers = new Map<string, ServerState>();
  readonly #maxConcurrent: number;
  readonly #jitterRatio: number;
  readonly #autoPoll: boolean;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #onPollLag: ((lagMs: number, serverKey: string) => void) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #closed = false;

  /** @throws TypeError on a cap below 1 or a jitter ratio outside [0, 1]. */
  constructor(options: PollSchedulerOptions = {}) {
    this.#maxConcurrent = options.maxConcurrentPolls ?? DEFAULT_MAX_CONCURRENT_POLLS;
    this.#jitterRatio = options.jitterRatio ?? DEFAULT_JITTER_RATIO;
    if (!Number.isInteger(this.#maxConcurrent) || this.#maxConcurrent < 1) {
      throw new TypeError(`maxConcurrentPolls must be an integer ≥ 1, got ${options.maxConcurrentPolls}`);
    }
    if (!(this.#jitterRatio >= 0 && this.#jitterRatio <= 1)) {
      throw new TypeError(`jitterRatio must be within [0, 1], got ${options.jitterRatio}`);
    }
    this.#autoPoll = options.autoPoll ?? true;
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
    this.#onPollLag = options.onPollLag;
  }

  /** Number of tasks scheduled, waiting for a slot, or polling. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Schedules `item` to be polled `floorMs` milliseconds from now, plus jitter in
   * `[0, min(floorMs × jitterRatio, MAX_JITTER_MS))`. Replaces any earlier schedule of the item. Returns the due time.
   */
  scheduleAfter(item: Pollable, floorMs: number): number {
    const jitter = Math.min(floorMs * this.#jitterRatio, MAX_JITTER_MS) * this.#random();
    return this.scheduleAt(item, this.#now() + floorMs + jitter);
  }

  /**
   * Schedules `item` at `dueAt` (epoch ms), replacing any earlier schedule. While the item's poll is in flight the
   * new due time waits until that poll ends, so a task never has two polls in flight.
   */
  scheduleAt(item: Pollable, dueAt: number): number {
    if (this.#closed) return dueAt;
    let entry = this.#entries.get(item);
    if (!entry) {
      entry = { item, dueAt, heapIndex: -1, ready: false, polling: false, deferred: false };
      this.#entries.set(item, entry);
    } else {
      this.#heap.remove(entry);
      this.#unready(entry);
      entry.dueAt = dueAt;
    }
    if (entry.polling) {
      entry.deferred = true;
      return dueAt;
    }
    this.#heap.push(entry);
    this.#arm();
    return dueAt;
  }

  /** Stops polling `item` (a poll already in flight finishes, but is not rescheduled by the scheduler). */
  unschedule(item: Pollable): void {
    const entry = this.#entries.get(item);
    if (!entry) return;
    this.#heap.remove(entry);
    this.#unready(entry);
    entry.deferred = false;
    if (!entry.polling) this.#entries.delete(item);
  }

  /** Pauses every poll to `serverKey` until `untilMs` (epoch ms), as one `Retry-After` for the whole server. */
  pauseServer(serverKey: string, untilMs: number): void {
    const server = this.#server(serverKey);
    server.pausedUntil = Math.max(server.pausedUntil, untilMs);
    this.#arm();
  }

  /** When polls to `serverKey` may resume (epoch ms); 0 when not paused. */
  pausedUntil(serverKey: string): number {
    return this.#servers.get(serverKey)?.pausedUntil ?? 0;
  }

  /**
   * Due time (epoch ms) of the next poll, or `undefined` when none is scheduled. Items already due but queued
   * behind the concurrency cap or a server pause count too (at the later of their due time and the pause's end), so
   * a host driving {@link tick} never sleeps past them.
   */
  nextDueAt(): number | undefined {
    let at = this.#heap.peek()?.dueAt ?? Number.POSITIVE_INFINITY;
    for (const server of this.#servers.values()) {
      const first = server.ready.peek();
      if (first) at = Math.min(at, Math.max(first.dueAt, server.pausedUntil));
    }
    return at === Number.POSITIVE_INFINITY ? undefined : at;
  }

  /**
   * Polls everything due now (within the concurrency cap and pauses), waits for those polls, and returns the next
   * due time in epoch ms (or `undefined`). For hosts without a long-lived process (`autoPoll: false`).
   */
  async tick(): Promise<number | undefined> {
    const started = this.#run();
    await Promise.allSettled(started);
    return this.nextDueAt();
  }

  /** Stops all timers; nothing is polled afterwards. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#entries.clear();
    this.#servers.clear();
  }

  #server(key: string): ServerState {
    let server = this.#servers.get(key);
    if (!server) {
      server = { inflight: 0, pausedUntil: 0, ready: new MinHeap<Entry>() };
      this.#servers.set(key, server);
    }
    return server;
  }

  #unready(entry: Entry): void {
    if (!entry.ready) return;
    entry.ready = false;
    this.#servers.get(entry.item.serverKey)?.ready.remove(entry);
  }

  /** Moves due entries to their server's ready queue and starts as many polls as the caps allow. */
  #run(): Promise<void>[] {
    const now = this.#now();
    for (let top = this.#heap.peek(); top && top.dueAt <= now; top = this.#heap.peek()) {
      this.#heap.pop();
      top.ready = true;
      this.#server(top.item.serverKey).ready.push(top);
    }
    // An entry is in the main heap or in one ready heap, never both, so the two share its heap index.
    const started: Promise<void>[] = [];
    for (const [key, server] of this.#servers) {
      while (server.ready.size > 0 && server.inflight < this.#maxConcurrent && server.pausedUntil <= now) {
        const entry = server.ready.pop() as Entry;
        entry.ready = false;
        if (this.#onPollLag) this.#reportLag(now - entry.dueAt, key);
        started.push(this.#start(entry, server));
      }
      if (server.inflight === 0 && server.ready.size === 0 && server.pausedUntil <= now)
        this.#servers.delete(key);
    }
    this.#arm();
    return started;
  }

  #reportLag(lagMs: number, serverKey: string): void {
    try {
      this.#onPollLag?.(Math.max(0, lagMs), serverKey);
    } catch {
      // Metrics never stop polling.
    }
  }

  async #start(entry: Entry, server: ServerState): Promise<void> {
    entry.polling = true;
    server.inflight++;
    try {
      await entry.item.poll();
    } catch {
      // A pollable reports its own failures; the scheduler only keeps going.
    } finally {
      entry.polling = false;
      server.inflight--;
      if (entry.deferred && !this.#closed) {
        entry.deferred = false;
        this.#heap.push(entry);
      } else if (this.#entries.get(entry.item) === entry) {
        this.#entries.delete(entry.item);
      }
      if (this.#autoPoll && !this.#closed) this.#run();
    }
  }

  /** Arms the single timer for the earliest moment anything can run. */
  #arm(): void {
    if (!this.#autoPoll || this.#closed) return;
    let at = this.#heap.peek()?.dueAt ?? Number.POSITIVE_INFINITY;
    for (const server of this.#servers.values()) {
      if (server.ready.size > 0 && server.inflight < this.#maxConcurrent)
        at = Math.min(at, server.pausedUntil);
    }
    if (at === this.#timerAt && this.#timer !== undefined) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = at;
    if (at === Number.POSITIVE_INFINITY) return;
    const wait = Math.min(Math.max(0, at - this.#now()), MAX_TIMER_MS);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      this.#run();
    }, wait);
  }
}
