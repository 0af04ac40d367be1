/**
 * Abort and time helpers built on setTimeout and AbortController (not AbortSignal.timeout, which fake timers do not
 * advance). Every listener is removed when its work ends.
 *
 * @module
 * @internal
 */
import { MAX_TIMER_MS, timerDelay } from './duration.js';

/**
 * Resolves after `ms` milliseconds; rejects with `signal.reason` untouched if the signal aborts first. A delay past
 * {@link MAX_TIMER_MS} (a server's `Retry-After` can ask for one) is waited out in timer-sized steps, never cut to
 * the 1 ms a single overflowing `setTimeout` would fire after; `Infinity` waits for the signal. However many delays
 * wait on one signal at once, it carries one listener of ours ({@link whenAborted}).
 */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = signal
      ? whenAborted(signal, (reason) => {
          clearTimeout(timer);
          reject(reason);
        })
      : undefined;
    const wait = (left: number): void => {
      if (left === Number.POSITIVE_INFINITY) return; // only the signal ends it
      const step = timerDelay(left) ?? MAX_TIMER_MS;
      timer = setTimeout(() => {
        if (left - step > 0) return wait(left - step);
        stop?.();
        resolve();
      }, step);
    };
    wait(Number.isNaN(ms) ? 0 : Math.max(0, ms));
  });
}

/** What follows a caller's signal: a link, or one waiter ({@link whenAborted}). */
interface Follower {
  abort(reason: unknown): void;
}

/** The followers of one caller's signal, behind the one listener on it. */
interface Followers {
  readonly caller: AbortSignal;
  readonly links: Set<Follower>;
  readonly onAbort: () => void;
}

/** Per caller's signal, the links that follow it now (the entry goes when the last one is disposed). */
const followersOf = new WeakMap<AbortSignal, Followers>();

function follow(caller: AbortSignal, link: Follower): Followers {
  let followers = followersOf.get(caller);
  if (followers === undefined) {
    const links = new Set<Follower>();
    const onAbort = (): void => {
      followersOf.delete(caller);
      for (const each of links) each.abort(caller.reason); // a link disposed meanwhile has left the set
    };
    followers = { caller, links, onAbort };
    followersOf.set(caller, followers);
    caller.addEventListener('abort', onAbort, { once: true });
  }
  followers.links.add(link);
  return followers;
}

function unfollow(followers: Followers, link: Follower): void {
  followers.links.delete(link);
  if (followers.links.size > 0 || followersOf.get(followers.caller) !== followers) return;
  followersOf.delete(followers.caller);
  followers.caller.removeEventListener('abort', followers.onAbort);
}

/**
 * Calls `onAbort(reason)` once when `caller` aborts, until the returned function is called. However many waits share
 * `caller`, it carries one listener of ours (the same one as the links that follow it), so Node never warns past ten.
 * `caller` must not be aborted yet.
 */
export function whenAborted(caller: AbortSignal, onAbort: (reason: unknown) => void): () => void {
  const follower: Follower = { abort: onAbort };
  const followers = follow(caller, follower);
  return () => unfollow(followers, follower);
}

/**
 * Our signals that other links may follow or hold point back to their link ({@link LinkedAbort.holdable}) through
 * this key: a link made from such a signal subscribes to that link directly, with no listener on the signal and no
 * entry in {@link followersOf}. (On Node 20 each of those costs microseconds per request: an `AbortSignal` is slow to
 * make and slow to add a listener or a `WeakMap` entry to.)
 */
const LINK = Symbol('mcp-tasks-client.link');
type LinkedSignal = AbortSignal & { [LINK]?: LinkedAbort };

/**
 * One request's abort, as a standard `AbortSignal`: the caller's signal, an optional time budget and an explicit
 * {@link LinkedAbort.abort} (a transport's or a client's `close()`) all end it, and the first reason wins.
 *
 * However many links follow one caller's signal at once, that signal carries one listener of ours, and none once
 * every link is disposed: a long-lived signal (a process-wide shutdown signal, say) shared by any number of
 * requests, one after the other or all at once, keeps nothing alive and never reaches Node's
 * `MaxListenersExceededWarning` (past ten listeners on one `AbortSignal`). Not `AbortSignal.any`: on Node 20–22 it
 * keeps every combined signal alive as long as a long-lived input (https://github.com/nodejs/node/issues/55351),
 * and adds a listener per call; not `AbortSignal.timeout`: its reason is a `DOMException` rather than our typed
 * error, and fake timers do not advance it.
 *
 * A holdable link (a client's call) can also hold its aborts back for a while ({@link hold}): a creation request
 * the caller aborted is read for a grace period before its request is aborted, all on the call's one link.
 */
export class LinkedAbort {
  readonly #controller = new AbortController();
  /** The link of ours this one follows directly, or the foreign signal's followers it is one of. */
  #upstream: LinkedAbort | undefined;
  #following: Followers | undefined;
  /** Links following this one directly (made from its signal once it is {@link holdable}). */
  #followers: Set<LinkedAbort> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timedOut = false;
  /** Made for one request at a time ({@link lendable}), and whether one holds it now ({@link lend}). */
  #lendable = false;
  #lent = false;
  /** While held ({@link hold}): decides when a pending abort lands. */
  #onPending: ((reason: unknown) => void) | undefined;
  #pending: { readonly reason: unknown } | undefined;

  /**
   * @param caller - aborts this one with its reason (at once when already aborted).
   * @param timeoutMs - after this many ms (when finite and within a timer's range) it aborts with `onTimeout()`.
   */
  constructor(caller: AbortSignal | undefined, timeoutMs?: number, onTimeout?: () => unknown) {
    const upstream = (caller as LinkedSignal | undefined)?.[LINK];
    if (caller?.aborted) this.#controller.abort(caller.reason);
    else if (upstream !== undefined) {
      this.#upstream = upstream;
      (upstream.#followers ??= new Set()).add(this);
    } else if (caller) this.#following = follow(caller, this);
    this.#arm(timeoutMs, onTimeout);
  }

  /** Starts the time budget: after `timeoutMs` (finite, within a timer's range) it aborts with `onTimeout()`. */
  #arm(timeoutMs: number | undefined, onTimeout: (() => unknown) | undefined): void {
    const delayMs = timerDelay(timeoutMs); // Infinity or beyond a timer's range: no timer (never a 1 ms overflow)
    if (delayMs !== undefined && !this.#controller.signal.aborted)
      this.#timer = setTimeout(() => {
        if (this.#controller.signal.aborted) return;
        this.#timedOut = true;
        this.#end(onTimeout?.());
      }, delayMs);
  }

  /**
   * Marks this link as made for one request at a time (a client's `request()`): the transport that sends it can
   * then run that request's time budget on this link ({@link lend}) rather than make a link of its own.
   */
  lendable(): this {
    this.#lendable = true;
    return this;
  }

  /**
   * Lends this link to one request: its time budget (`timeoutMs`, then an abort with `onTimeout()`) runs on this
   * link until {@link endLoan}. Only a {@link lendable} link without a time budget of its own, neither aborted, held
   * nor lent already, is lent; otherwise `false`, and the request makes a link of its own.
   */
  lend(timeoutMs: number | undefined, onTimeout: () => unknown): boolean {
    if (!this.#lendable || this.#lent || this.#timer !== undefined || this.held || this.signal.aborted)
      return false;
    this.#lent = true;
    this.#arm(timeoutMs, onTimeout);
    return true;
  }

  /** Ends a {@link lend}: stops the request's time budget; the link goes on following its caller. */
  endLoan(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#lent = false;
  }

  /** The signal to hand on (to `fetch`, undici, a transport). */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True when the time budget (not the caller, not {@link abort}) caused the abort. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /**
   * Aborts with `reason`; ignored once aborted (the first reason wins). While {@link hold | held}, the abort only
   * becomes {@link pending} (the first one; later ones are ignored) and the holder decides when it lands.
   */
  abort(reason: unknown): void {
    if (this.#onPending === undefined || this.#controller.signal.aborted) return this.#end(reason);
    if (this.#pending !== undefined) return;
    this.#pending = { reason };
    this.#onPending(reason);
  }

  /**
   * Makes this link findable from its signal: whoever is handed only the signal can hold its aborts (see
   * {@link holdableLink}), and links made from the signal follow this one directly. A client's call makes its link
   * holdable, so the call's creation request can be read for a grace period after an abort without a second link
   * per request.
   */
  holdable(): this {
    (this.#controller.signal as LinkedSignal)[LINK] = this;
    return this;
  }

  /**
   * Holds aborts back until {@link release}: meanwhile an abort (the caller's signal, a time budget's, or
   * {@link abort}) leaves the signal as it is; the first becomes {@link pending}, `onPending(reason)` runs at once,
   * and the abort lands when the holder calls {@link land} (at once, or after a grace period).
   */
  hold(onPending: (reason: unknown) => void): void {
    this.#onPending = onPending;
  }

  /** True while held ({@link hold} until {@link release}). */
  get held(): boolean {
    return this.#onPending !== undefined;
  }

  /** The abort waiting while held, or `undefined` (none came, or not held). */
  get pending(): { readonly reason: unknown } | undefined {
    return this.#pending;
  }

  /** The abort held back on this link or on a link it follows directly ({@link pending}), or `undefined`. */
  get requested(): { readonly reason: unknown } | undefined {
    return this.#pending ?? this.#upstream?.requested;
  }

  /** Aborts the signal now with `reason`, held or not (ignored once aborted). */
  land(reason: unknown): void {
    this.#end(reason);
  }

  /** Ends the hold; an abort still pending lands now with its reason. */
  release(): void {
    const pending = this.#pending;
    this.#onPending = undefined;
    this.#pending = undefined;
    if (pending !== undefined) this.#end(pending.reason);
  }

  /** Stops the timer and stops following the caller's signal; call it when the work ends. */
  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#following) unfollow(this.#following, this);
    this.#following = undefined;
    if (this.#upstream) this.#upstream.#followers?.delete(this);
    this.#upstream = undefined;
  }

  /** Aborts the signal (once: the first reason wins), then the links following this one, with the same reason. */
  #end(reason: unknown): void {
    const signal = this.#controller.signal;
    if (signal.aborted) return;
    this.#controller.abort(reason);
    if (this.#followers === undefined) return;
    for (const each of [...this.#followers]) each.abort(signal.reason); // a follower disposed meanwhile has left
  }
}

/** The holdable link behind `signal` when it is neither aborted nor held now; `undefined` otherwise. */
export function holdableLink(signal: AbortSignal): LinkedAbort | undefined {
  const link = (signal as LinkedSignal)[LINK];
  return link === undefined || signal.aborted || link.held ? undefined : link;
}

/**
 * The abort a call asked for: its signal's reason once aborted, or the abort its holdable link, or a link that link
 * follows, holds back ({@link LinkedAbort.hold}); `undefined` when none. A request's own link made from the call's
 * signal (the HTTP transport's) answers too, once {@link LinkedAbort.holdable}.
 */
export function abortRequested(
  signal: AbortSignal | null | undefined,
): { readonly reason: unknown } | undefined {
  if (signal === undefined || signal === null) return undefined;
  if (signal.aborted) return { reason: signal.reason };
  return (signal as LinkedSignal)[LINK]?.requested;
}

/** A {@link LinkedAbort} of `signal` and a time budget: on timeout it aborts with `onTimeout()` as reason. */
export function linkAbort(
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  onTimeout: () => unknown,
): LinkedAbort {
  return new LinkedAbort(signal, timeoutMs, onTimeout);
}

/** Signals of requests the HTTP transport has not written yet (see {@link markUnwritten}). */
const unwritten = new WeakSet<AbortSignal>();

/**
 * Marks (`pending` true) or unmarks the request that `signal` aborts as not written yet: the HTTP transport does so
 * while the POST's headers are pending (`getHeaders()`). Whoever owns that signal and would otherwise wait for a
 * reply after an abort (a creation's abort grace) learns from {@link isUnwritten} that nothing reached the server,
 * so the abort can end the request at once. The owner sends one request with the signal at a time.
 */
export function markUnwritten(signal: AbortSignal | undefined, pending: boolean): void {
  if (signal === undefined) return;
  if (pending) unwritten.add(signal);
  else unwritten.delete(signal);
}

/** True while the request `signal` aborts is marked not written (see {@link markUnwritten}). */
export function isUnwritten(signal: AbortSignal): boolean {
  return unwritten.has(signal);
}

/**
 * Lets any number of listeners wait on `signal` without Node's `MaxListenersExceededWarning` (Node warns past ten
 * listeners on one `AbortSignal`): the engine's close signal is listened to by every task that delivers an answer
 * or a cancel, so a client following more than ten such tasks is normal, not a leak. Uses Node's
 * `events.setMaxListeners` through `process.getBuiltinModule` (Node ≥ 20.16), so the main entry imports no `node:`
 * module; elsewhere (browsers, Deno, Bun, edge runtimes) there is no such warning and this does nothing.
 */
export function allowManyListeners(signal: AbortSignal): void {
  type Events = { setMaxListeners?: (n: number, ...targets: EventTarget[]) => void };
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const events = proc?.getBuiltinModule?.('node:events') as Events | undefined;
  events?.setMaxListeners?.(0, signal);
}
