/**
 * The line shown while the CLI waits for a server's answer before there is a task to follow (connecting, the tool
 * list, the call itself, re-attaching), so a silent server never means a blank screen. At a terminal it is a
 * spinner on stderr, shown at once and removed when the answer arrives; without one, a single stderr line is
 * written when no answer came within {@link QUIET_WAIT_MS}.
 *
 * @module
 */
import ora, { type Ora } from 'ora';
import { safeLine } from 'mcp-tasks-client';

/** Without a TTY: how long a silent server may take before the waiting line is written, ms. */
export const QUIET_WAIT_MS = 3_000;

/** `3 s`, `2m 05s`. */
function seconds(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

/** One waiting line at a time. */
export class WaitingLine {
  readonly #stream: NodeJS.WriteStream;
  readonly #timeoutMs: number;
  #spinner: Ora | undefined;
  #timer: NodeJS.Timeout | undefined;

  /**
   * @param stream where the line goes (stderr).
   * @param timeoutMs the per-request budget shown in the line (`--timeout`).
   */
  constructor(stream: NodeJS.WriteStream, timeoutMs: number) {
    this.#stream = stream;
    this.#timeoutMs = timeoutMs;
  }

  /** Shows that the CLI is waiting for `server` to answer `method`; replaces any line shown before. */
  start(server: string, method: string): void {
    this.stop();
    const startedAt = Date.now();
    const text = (): string =>
      `waiting for ${safeLine(server)} to answer ${method} (${seconds(Date.now() - startedAt)}; gives up after ${seconds(this.#timeoutMs)}, see --timeout; Ctrl-C to stop)`;
    if (this.#stream.isTTY === true && (this.#stream.columns ?? 0) > 0) {
      this.#spinner = ora({
        stream: this.#stream,
        isEnabled: true,
        discardStdin: false,
        hideCursor: false,
        text: text(),
      }).start();
      this.#timer = setInterval(() => {
        if (this.#spinner) this.#spinner.text = text();
      }, 1_000);
    } else {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#stream.write(`${text()}\n`);
      }, QUIET_WAIT_MS);
    }
    this.#timer.unref();
  }

  /** Removes the line (the answer arrived, or a prompt takes the terminal). */
  stop(): void {
    clearInterval(this.#timer);
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#spinner?.stop();
    this.#spinner = undefined;
  }
}
