/**
 * The one guard around caller code: every listener of a `TaskHandle` or `TaskClient` event and every callback option
 * runs through {@link callGuarded}, which catches a synchronous throw and a returned rejecting thenable alike and
 * hands the failure to a sink, never back to the engine. Caller code never breaks the engine.
 *
 * Which sink: the one given to {@link withListenerSink} for the code it runs (the engine names the task or round the
 * emission concerns), else the sink of the emitter whose `emit` is running outermost (a client listener called
 * while a handle emits reports to the handle), else the emitter's own.
 *
 * @module
 */

// No internal-marker tag in the module comment above: it belongs to the import below, which `stripInternal` would
// then drop from the declarations, leaving `extends EventEmitter<E>` pointing nowhere.
import { EventEmitter } from 'eventemitter3';

/** Where a caller failure goes: `event` is the event whose listener failed (or the callback option's name). */
export type ListenerSink = (error: unknown, event: string) => void;

/** A sink, or an emitter whose `listenerFailed` is the sink (no closure kept per emitter). */
type SinkTarget = ListenerSink | { listenerFailed(error: unknown, event: string): void };

let current: SinkTarget | undefined;

/** Runs `fn` with `sink` receiving the failures of every listener and guarded callback it calls synchronously. */
export function withListenerSink<R>(sink: ListenerSink, fn: () => R): R {
  const previous = current;
  current = sink;
  try {
    return fn();
  } finally {
    current = previous;
  }
}

function report(sink: SinkTarget, error: unknown, event: string): void {
  try {
    if (typeof sink === 'function') sink(error, event);
    else sink.listenerFailed(error, event);
  } catch {
    // A sink reports; if even that fails there is nowhere left to report to.
  }
}

/**
 * Calls `fn(...args)`; a throw, or a returned thenable that rejects, goes to `sink` (without one, to the active sink),
 * with `event`. Returns nothing: caller code never gives the engine a value or an exception.
 */
export function callGuarded(
  fn: (...args: never[]) => unknown,
  self: unknown,
  args: readonly unknown[],
  event: string,
  sink: ListenerSink | undefined,
): void {
  const to = sink ?? current ?? ignore;
  let returned: unknown;
  try {
    returned = (fn as (...a: unknown[]) => unknown).apply(self, args as unknown[]);
  } catch (error) {
    report(to, error, event);
    return;
  }
  if (returned === null || (typeof returned !== 'object' && typeof returned !== 'function')) return;
  try {
    const then = (returned as { then?: unknown }).then;
    if (typeof then === 'function')
      then.call(returned, undefined, (error: unknown) => report(to, error, event));
  } catch (error) {
    report(to, error, event);
  }
}

function ignore(): void {}

type Listener = (...args: never[]) => unknown;
type ValidEventTypes = EventEmitter.ValidEventTypes;
type Names<E extends ValidEventTypes> = EventEmitter.EventNames<E>;
type ListenerOf<E extends ValidEventTypes, T extends Names<E>> = EventEmitter.EventListener<E, T>;
type ArgsOf<E extends ValidEventTypes, T extends Names<E>> = EventEmitter.EventArgs<E, T>;
const ORIGINAL = Symbol('original listener');

/**
 * An eventemitter3 `EventEmitter` whose listeners run guarded: each is wrapped at registration (`on`, `addListener`,
 * `once`), and `off` / `removeListener` / `listeners` / `listenerCount` see the caller's own function. An emit with no
 * listener costs what eventemitter3's does, plus one variable swap.
 */
export class SafeEmitter<E extends ValidEventTypes> extends EventEmitter<E> {
  #wrappers: WeakMap<Listener, Map<string | symbol, Listener>> | undefined;

  /**
   * @internal Where a failure of this emitter's listeners goes when no outer sink is active (`event`: the event).
   * The default drops it; subclasses report it.
   */
  protected listenerFailed(_error: unknown, _event: string): void {}

  override emit<T extends Names<E>>(event: T, ...args: ArgsOf<E, T>): boolean {
    const previous = current;
    current = previous ?? (this as unknown as SinkTarget); // listenerFailed is protected: reached only from here
    try {
      return super.emit(event, ...args);
    } finally {
      current = previous;
    }
  }

  /**
   * Runs `fn` (an emission about this emitter on another one, e.g. a client event about a task) with this emitter
   * receiving the failures of the listeners it calls, unless an outer sink is active: as if this emitter emitted.
   */
  protected reportingHere<R>(fn: () => R): R {
    const previous = current;
    current = previous ?? (this as unknown as SinkTarget);
    try {
      return fn();
    } finally {
      current = previous;
    }
  }

  override on<T extends Names<E>>(event: T, fn: ListenerOf<E, T>, context?: unknown): this {
    return super.on(event, this.#wrap(event, fn as Listener) as ListenerOf<E, T>, context);
  }

  /** Adds a listener for `event`, run guarded like every listener here (an alias of `on`). */
  override addListener<T extends Names<E>>(event: T, fn: ListenerOf<E, T>, context?: unknown): this {
    return super.addListener(event, this.#wrap(event, fn as Listener) as ListenerOf<E, T>, context);
  }

  override once<T extends Names<E>>(event: T, fn: ListenerOf<E, T>, context?: unknown): this {
    return super.once(event, this.#wrap(event, fn as Listener) as ListenerOf<E, T>, context);
  }

  override removeListener<T extends Names<E>>(
    event: T,
    fn?: ListenerOf<E, T>,
    context?: unknown,
    once?: boolean,
  ): this {
    return super.removeListener(
      event,
      this.#wrapped(event, fn as Listener | undefined) as ListenerOf<E, T> | undefined,
      context,
      once,
    );
  }

  /** Removes a listener of `event` (an alias of `removeListener`). */
  override off<T extends Names<E>>(event: T, fn?: ListenerOf<E, T>, context?: unknown, once?: boolean): this {
    return super.off(
      event,
      this.#wrapped(event, fn as Listener | undefined) as ListenerOf<E, T> | undefined,
      context,
      once,
    );
  }

  override listeners<T extends Names<E>>(event: T): Array<ListenerOf<E, T>> {
    return super
      .listeners(event)
      .map((l) => ((l as unknown as Record<symbol, unknown>)[ORIGINAL] ?? l) as ListenerOf<E, T>);
  }

  #wrapped(event: string | symbol, fn: Listener | undefined): Listener | undefined {
    return fn === undefined ? undefined : (this.#wrappers?.get(fn)?.get(event) ?? fn);
  }

  #wrap(event: string | symbol, fn: Listener): Listener {
    if (typeof fn !== 'function') return fn; // eventemitter3 throws its own TypeError
    this.#wrappers ??= new WeakMap();
    let byEvent = this.#wrappers.get(fn);
    const known = byEvent?.get(event);
    if (known) return known;
    const name = String(event);
    // Called only from emit(), which has set the active sink (an outer one, or this emitter's).
    const guarded = function (this: unknown, ...args: unknown[]): void {
      callGuarded(fn, this, args, name, undefined);
    };
    Object.defineProperty(guarded, ORIGINAL, { value: fn });
    if (!byEvent) this.#wrappers.set(fn, (byEvent = new Map()));
    byEvent.set(event, guarded);
    return guarded;
  }
}

/** A thrown non-object, which could not carry a `taskId`, wrapped in an `Error` with it as `cause`. */
export function failureCarrier(error: unknown, what = 'a task callback'): object {
  return error !== null && typeof error === 'object'
    ? error
    : new Error(`${what} threw ${String(error)}`, { cause: error });
}
