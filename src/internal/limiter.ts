/**
 * A counting semaphore: at most `limit` jobs run at once, the rest wait in arrival order.
 *
 * @module
 * @internal
 */
export class Limiter {
  readonly #limit: number;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Runs `job` once a slot is free; the slot is released when it settles. */
  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#running++;
    try {
      return await job();
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }
}
