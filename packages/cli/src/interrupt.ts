/**
 * Ctrl-C, counted. The first press and the second mean different things (cancel the task, then stop waiting for it),
 * and the meaning depends on the phase of the command, so whoever is in charge sets {@link Interrupt.onPress}.
 *
 * @module
 */

/** Counts Ctrl-C presses (SIGINT, or Ctrl-C inside a prompt) and hands each to the current phase. */
export class Interrupt {
  #presses = 0;
  #listener: (() => void) | undefined;
  /** Called with the number of presses so far (1, 2, …). */
  onPress: (presses: number) => void = () => undefined;

  /** Number of presses so far. */
  get presses(): number {
    return this.#presses;
  }

  /** Records one press. */
  press(): void {
    this.#presses++;
    this.onPress(this.#presses);
  }

  /** Listens for SIGINT (instead of Node's default of exiting at once). */
  install(): void {
    if (this.#listener) return;
    this.#listener = () => this.press();
    process.on('SIGINT', this.#listener);
  }

  /** Stops listening for SIGINT. */
  uninstall(): void {
    if (this.#listener) process.off('SIGINT', this.#listener);
    this.#listener = undefined;
  }
}
