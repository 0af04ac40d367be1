/**
 * Ctrl-C, counted, and the signals that end a command the same way. The first press and the second mean different
 * things (cancel the task, then stop waiting for it), and the meaning depends on the phase of the command, so
 * whoever is in charge sets {@link Interrupt.onPress}.
 *
 * SIGTERM (a `kill`, a service manager) and SIGHUP (the terminal closed) count as the first press: the task is
 * cancelled (or, with `--detach`, left running and recorded) and the record says what became of it. They cannot
 * wait for a person, so after `boundMs` they also press a second time (stop waiting). The process then exits with
 * the shell's convention for a signal: 128 + its number (SIGHUP 129, SIGTERM 143).
 *
 * @module
 */

/** The signals that end a command like a first Ctrl-C. */
export type TerminationSignal = 'SIGTERM' | 'SIGHUP';

/** The exit code after each signal: 128 + the signal's number, as a shell reports a process it ended. */
export const SIGNAL_EXIT_CODES = { SIGHUP: 129, SIGTERM: 143 } as const satisfies Record<
  TerminationSignal,
  number
>;

let received: TerminationSignal | undefined;

/** The signal this process received while a command ran, if any (the process then exits with its code). */
export function terminationSignal(): TerminationSignal | undefined {
  return received;
}

/** How the person (or the system) interrupted: shown at the start of the lines that follow. */
export type InterruptSource = 'ctrl-c' | 'sigterm' | 'sighup';

/** `Ctrl-C`, `SIGTERM`, `SIGHUP`. */
export function sourceName(source: InterruptSource): string {
  return source === 'ctrl-c' ? 'Ctrl-C' : source.toUpperCase();
}

/** Counts Ctrl-C presses (SIGINT, or Ctrl-C inside a prompt) and hands each to the current phase. */
export class Interrupt {
  #presses = 0;
  #listeners: Array<[NodeJS.Signals, () => void]> = [];
  #signal: TerminationSignal | undefined;
  #second: ReturnType<typeof setTimeout> | undefined;
  /** Called with the number of presses so far (1, 2, …). */
  onPress: (presses: number) => void = () => undefined;
  /**
   * Called at each press before {@link onPress}: a promise it returns (an open prompt closing and erasing its lines)
   * is awaited first, so the lines a press prints start below the prompt, never on its line.
   */
  beforePress: () => Promise<void> | undefined = () => undefined;

  /**
   * @param boundMs how long a signal's first press may take (a cancel's wait, an answer on its way) before the
   *   second press stops waiting, ms.
   */
  constructor(readonly boundMs: number) {}

  /** Number of presses so far. */
  get presses(): number {
    return this.#presses;
  }

  /** What interrupted: a signal, else Ctrl-C. */
  get source(): InterruptSource {
    return this.#signal === 'SIGTERM' ? 'sigterm' : this.#signal === 'SIGHUP' ? 'sighup' : 'ctrl-c';
  }

  /** Records one press (counted at once; handed to {@link onPress} once {@link beforePress} settled). */
  press(): void {
    this.#presses++;
    const presses = this.#presses;
    const before = this.beforePress();
    if (before === undefined) this.onPress(presses);
    else void before.then(() => this.onPress(presses));
  }

  /**
   * A signal that ends the command: the first press now (unless Ctrl-C already pressed), the second after
   * `boundMs`. A later signal changes nothing.
   */
  terminate(signal: TerminationSignal): void {
    if (this.#signal) return;
    this.#signal = signal;
    received = signal;
    if (this.#presses === 0) this.press();
    this.#second = setTimeout(() => {
      if (this.#presses < 2) this.press();
    }, this.boundMs);
  }

  /** Listens for SIGINT, SIGTERM and SIGHUP (instead of Node's default of exiting at once). */
  install(): void {
    if (this.#listeners.length > 0) return;
    this.#listeners = [
      ['SIGINT', () => this.press()],
      ['SIGTERM', () => this.terminate('SIGTERM')],
      ['SIGHUP', () => this.terminate('SIGHUP')],
    ];
    for (const [signal, listener] of this.#listeners) process.on(signal, listener);
  }

  /** Stops listening (a signal from now on ends the process at once, as by default). */
  uninstall(): void {
    for (const [signal, listener] of this.#listeners) process.off(signal, listener);
    this.#listeners = [];
    clearTimeout(this.#second);
  }
}
