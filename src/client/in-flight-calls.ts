/**
 * The calls a client has under way before their outcome or task is known, so that `close()` never orphans work: it
 * aborts each one with its own {@link ClientClosedError}, which takes the same path as a caller's abort (a creation
 * request already sent is read for `abortGraceMs`; a task it names is cancelled or recorded per `onAbort`, and the
 * rejection carries its `taskId`), and waits, bounded, for them before the transport closes.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation)
 *
 * @module
 * @internal
 */
import { ClientClosedError } from '../errors.js';
import { LinkedAbort } from '../internal/abort.js';
import { ownAbortReason } from '../internal/race-abort.js';
import { MAX_TIMER_MS } from '../internal/duration.js';

const forgotten = (): void => undefined;

/** Tracks the calls in flight; refuses new ones once closed. */
export class InFlightCalls {
  /** Each call's abort and its promise (the op's own, not the one returned to the caller). */
  readonly #calls = new Map<LinkedAbort, Promise<unknown>>();
  #closed = false;

  /** True once {@link close} ran. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Runs `op` with a signal that aborts when `signal` does (same reason) or when {@link close} runs (a new
   * {@link ClientClosedError} for this call). The listener on `signal` is removed when the call settles.
   * `oneRequest`: `op` sends one request at a time (a client's `request()`), so the transport may time each on this
   * call's link rather than on one of its own ({@link LinkedAbort.lend}).
   *
   * @throws {@link ClientClosedError} when the client is already closed; otherwise whatever `op` throws.
   */
  run<R>(
    signal: AbortSignal | undefined,
    op: (signal: AbortSignal) => Promise<R>,
    oneRequest = false,
  ): Promise<R> {
    if (this.#closed) return Promise.reject(new ClientClosedError());
    const abort = new LinkedAbort(signal).holdable(); // a creation's abort grace holds it (abort-grace.ts)
    if (oneRequest) abort.lendable();
    const running = op(abort.signal);
    // Kept as it is (close() waits for it without its outcome); the caller gets it once this call is forgotten. One
    // reaction instead of `finally` plus a `catch` copy: fewer promises and ticks per call.
    this.#calls.set(abort, running);
    return running.then(
      (value) => {
        this.#forget(abort);
        return value;
      },
      (error: unknown) => {
        this.#forget(abort);
        throw error;
      },
    );
  }

  #forget(abort: LinkedAbort): void {
    abort.dispose();
    this.#calls.delete(abort);
  }

  /**
   * Refuses new calls, aborts every call in flight with its own {@link ClientClosedError}, and resolves once they
   * all settled, or after `boundMs` (ms) at the latest.
   */
  async close(boundMs: number): Promise<void> {
    this.#closed = true;
    const pending = [...this.#calls];
    if (pending.length === 0) return;
    for (const [abort] of pending) abort.abort(ownAbortReason(new ClientClosedError()));
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Capped at the longest timer delay: a longer one overflows and fires after 1 ms (TimeoutOverflowWarning).
    const bound = new Promise<void>(
      (resolve) => (timer = setTimeout(resolve, Math.min(boundMs, MAX_TIMER_MS))),
    );
    await Promise.race([
      Promise.all(pending.map(([, running]) => running.then(forgotten, forgotten))),
      bound,
    ]);
    clearTimeout(timer);
  }
}
