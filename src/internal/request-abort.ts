/**
 * One request's abort: the caller's signal, the request's time budget and `close()` all end it, with the first
 * reason. It is a plain flag with listeners rather than an `AbortController`, because building an `AbortSignal`
 * costs Node 20 about as much CPU as a whole loopback POST through undici; a real `AbortSignal` is built only when
 * something asks for one ({@link RequestAbort.signal}, e.g. `fetch`). undici's dispatcher API accepts this object as
 * its `signal` (it needs `aborted`, `reason` and `addEventListener`/`removeEventListener`).
 *
 * @module
 * @internal
 */
import { timerDelay } from './duration.js';

/** The read side of an abort: what a reader of the reply checks. */
export interface AbortState {
  readonly aborted: boolean;
  readonly reason: unknown;
}

/** An EventTarget-shaped abort flag (only the `abort` event), as undici's `signal` option accepts. */
export interface AbortLike extends AbortState {
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Calls a listener like an EventTarget does: an exception is reported (uncaught, later) and the others still run. */
function callListener(listener: () => void): void {
  try {
    listener();
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}

/** A one-shot abort with the caller's signal and a timeout linked in; `dispose()` unlinks both. */
export class RequestAbort implements AbortLike {
  aborted = false;
  reason: unknown = undefined;
  /**
   * True while the request this abort belongs to waits for something before it is written (the HTTP transport's
   * `getHeaders()`): nothing has reached the server, so an abort then stops it at once and nothing can be lost.
   */
  notWritten = false;
  #listeners: Array<() => void> | undefined;
  #controller: AbortController | undefined;
  readonly #caller: AbortLike | undefined;
  readonly #onCallerAbort: (() => void) | undefined;
  readonly #timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * @param caller - aborts this request with its reason (at once when already aborted).
   * @param timeoutMs - after this many ms (when finite) the request aborts with `onTimeout()` as reason.
   */
  constructor(caller?: AbortLike, timeoutMs?: number, onTimeout?: () => unknown) {
    this.#caller = caller;
    if (caller?.aborted) this.abort(caller.reason);
    else if (caller) {
      this.#onCallerAbort = () => this.abort(caller.reason);
      caller.addEventListener('abort', this.#onCallerAbort, { once: true });
    }
    const delayMs = timerDelay(timeoutMs); // Infinity or beyond a timer's range: no timer, never a 1 ms overflow
    if (delayMs !== undefined) this.#timer = setTimeout(() => this.abort(onTimeout?.()), delayMs);
  }

  /** Aborts with `reason` (the first abort wins; later ones are ignored). */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) for (const listener of listeners) callListener(listener);
  }

  addEventListener(_type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    if (!this.aborted) (this.#listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.#listeners?.indexOf(listener) ?? -1;
    if (index >= 0) this.#listeners?.splice(index, 1);
  }

  /** A real `AbortSignal` that follows this abort, built on first use. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /** Stops the timer and the caller's listener. */
  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#onCallerAbort) this.#caller?.removeEventListener('abort', this.#onCallerAbort);
  }
}

/** A real `AbortSignal` for `abort`: itself, or the one a {@link RequestAbort} builds on first use. */
export function signalOf(abort: AbortSignal | RequestAbort | undefined): AbortSignal | undefined {
  return abort instanceof RequestAbort ? abort.signal : abort;
}

/**
 * The key under which transport options carry a call's {@link RequestAbort} next to `signal` (a getter that builds
 * the `AbortSignal` only when read): the HTTP transport links to it directly, any other transport reads `signal`.
 */
export const CALL_ABORT: unique symbol = Symbol('mcp-tasks-client.callAbort');

/** Options that may carry a {@link CALL_ABORT}. */
export interface CallAbortCarrier {
  readonly [CALL_ABORT]?: RequestAbort;
}

/** One shared getter for every lazy `signal`: no closure and no accessor pair per object (see {@link withLazySignal}). */
const LAZY_SIGNAL: PropertyDescriptor = {
  get(this: CallAbortCarrier): AbortSignal | undefined {
    return this[CALL_ABORT]?.signal;
  },
  enumerable: true,
  configurable: true,
};

/**
 * `target` (which carries `abort` under {@link CALL_ABORT}) with an own, enumerable `signal` getter that returns
 * `abort.signal`, so the `AbortSignal` is built only when something reads it; a copy of `target` (spread) reads it
 * then. The same as a `get signal()` in an object literal, which V8 builds per object (a closure, an accessor pair
 * and a slow object literal, about 2 µs).
 */
export function withLazySignal<T extends { readonly [CALL_ABORT]: RequestAbort }>(
  target: T,
): T & { readonly signal: AbortSignal } {
  return Object.defineProperty(target, 'signal', LAZY_SIGNAL) as T & { readonly signal: AbortSignal };
}

/**
 * `value` as it is, or, when it is a promise, one that rejects with `abort.reason` as soon as `abort` fires (the
 * promise itself is left to settle unobserved). For a step before the request is written that the caller does not
 * control, e.g. a `getHeaders()` that never resolves.
 */
export function raceRequestAbort<T>(value: T | Promise<T>, abort: RequestAbort): T | Promise<T> {
  if (!(value instanceof Promise)) return value;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abort.reason);
    if (abort.aborted) onAbort();
    else abort.addEventListener('abort', onAbort);
    value.then(
      (v) => {
        abort.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        abort.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
