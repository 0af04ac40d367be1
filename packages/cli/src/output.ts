/**
 * Where the CLI's output goes: JSON lines (`--json`), or plain lines with a live line on top when stdout is a TTY.
 * Status lines, answers and the result go to stdout; errors, hints and the progress of inline calls go to stderr. Everything written passes
 * through {@link safeText} (text) or {@link safeJson} (JSON lines), so no control character from a server reaches
 * the terminal or a pipe.
 *
 * @module
 */
import type { CliEvent } from './events.js';
import { renderEvent } from './events.js';
import { toJsonText } from 'mcp-tasks-client';
import { LiveLine, type LiveState } from './live-line.js';
import { safeJson, safeLine, safeText } from 'mcp-tasks-client';
import type { WaitingLine } from './waiting-line.js';

/** Options of {@link Output}. */
export interface OutputOptions {
  /** One JSON object per line instead of text. @default false */
  json?: boolean;
  /** @default process.stdout */
  stdout?: NodeJS.WriteStream;
  /** @default process.stderr */
  stderr?: NodeJS.WriteStream;
  /** Epoch ms the command started. @default Date.now() */
  startedAt?: number;
  /**
   * What the person typed that is echoed back (a task id): shown on one line wherever it appears, its newlines and
   * tabs escaped too (`mcp-tasks status $'id\nforged line'` prints `id\x0aforged line`). @default []
   */
  typed?: readonly string[];
}

// Progress of an inline call goes to stderr: stdout then holds exactly the result, as scripts read it.
const TO_STDERR = new Set<CliEvent['event']>(['error', 'hint', 'unanswerable', 'poll-error', 'progress']);

/**
 * `text` without the whitespace at the end of each of its lines. Line by line with `trimEnd` (linear), not a
 * `/\s+$/gm` replace, which backtracks quadratically over a long run of spaces that does not end a line.
 */
function trimLineEnds(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

/** The CLI's one way to write. */
export class Output {
  readonly json: boolean;
  readonly startedAt: number;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  #live: LiveLine | undefined;
  readonly #typed: readonly string[];
  /** The line shown while waiting for a server's answer; removed by any other output or a prompt. */
  waiting: WaitingLine | undefined;

  constructor(options: OutputOptions = {}) {
    this.json = options.json ?? false;
    this.stdout = options.stdout ?? process.stdout;
    this.stderr = options.stderr ?? process.stderr;
    this.startedAt = options.startedAt ?? Date.now();
    this.#typed = (options.typed ?? []).filter((value) => safeLine(value) !== safeText(value));
  }

  /**
   * Text made safe to print: typed values on one line, then every other unsafe character escaped, then each line's
   * trailing whitespace dropped (invisible on a terminal, noise in a diff or a log; an indented result's empty line
   * would otherwise end in its indent). Human text only: a `--json` line keeps every character of its strings.
   */
  #safe(text: string): string {
    for (const value of this.#typed) text = text.split(value).join(safeLine(value));
    return trimLineEnds(safeText(text));
  }

  /** True when a live line may be shown: text output to a TTY that knows its width (a pty of 0 columns does not). */
  get canShowLive(): boolean {
    return !this.json && this.stdout.isTTY === true && (this.stdout.columns ?? 0) > 0;
  }

  /** Writes one event: a JSON line, or its text form. */
  emit(event: CliEvent): void {
    if (this.json) {
      this.#write(this.stdout, safeJson(toJsonText(event)));
      return;
    }
    const text = renderEvent(event, Date.now() - this.startedAt);
    if (text !== undefined)
      this.#write(TO_STDERR.has(event.event) ? this.stderr : this.stdout, this.#safe(text));
  }

  /** Writes human-only text to stdout (skipped with `--json`). */
  text(text: string): void {
    if (!this.json) this.#write(this.stdout, this.#safe(text));
  }

  /** Writes a warning to stderr, in every mode. */
  warn(text: string): void {
    this.#write(this.stderr, this.#safe(text));
  }

  /** Shows the live line (TTY text output only) with the state `state()` returns. */
  startLive(state: () => LiveState): void {
    if (!this.canShowLive || this.#live) return;
    this.#live = new LiveLine(this.stdout, state);
    this.#live.start();
  }

  /** Hides the live line while something else (a prompt) owns the terminal. */
  pauseLive(): void {
    this.waiting?.stop();
    this.#live?.stop();
  }

  /** Shows the live line again after {@link pauseLive}. */
  resumeLive(): void {
    this.#live?.start();
  }

  /** Removes the live line for good. */
  stopLive(): void {
    this.waiting?.stop();
    this.#live?.stop();
    this.#live = undefined;
  }

  #write(stream: NodeJS.WriteStream, text: string): void {
    this.waiting?.stop();
    if (this.#live?.running && stream === this.stdout) this.#live.print(stream, text);
    else if (this.#live?.running) {
      this.#live.stop();
      stream.write(`${text}\n`);
      this.#live.start();
    } else stream.write(`${text}\n`);
  }
}
