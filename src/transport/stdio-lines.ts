/**
 * Cutting the server's stdout into lines, one JSON-RPC message each, without ever holding more than `max` bytes of
 * one line: a longer line is dropped whole (reported once) and reading goes on at the next newline.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio)
 *
 * @module
 * @internal
 */

/** Splits chunks into lines (without the newline). */
export class LineSplitter {
  #parts: Buffer[] = [];
  #partBytes = 0;
  #skippingLine = false;
  readonly #max: () => number;
  readonly #onLine: (line: string) => void;
  readonly #onTooLarge: (max: number) => void;

  /**
   * @param max - the largest line, in bytes (read on each chunk).
   * @param onLine - each complete line, decoded as UTF-8.
   * @param onTooLarge - called once for each line longer than `max` (that line is dropped).
   */
  constructor(max: () => number, onLine: (line: string) => void, onTooLarge: (max: number) => void) {
    this.#max = max;
    this.#onLine = onLine;
    this.#onTooLarge = onTooLarge;
  }

  /** Forgets a partial line (a new process starts). */
  reset(): void {
    this.#parts = [];
    this.#partBytes = 0;
    this.#skippingLine = false;
  }

  /** Reads one chunk of stdout. */
  push(chunk: Buffer): void {
    const max = this.#max();
    let start = 0;
    for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, end);
      start = end + 1;
      const bytes = this.#partBytes + piece.length;
      const line = this.#parts.length === 0 ? piece : Buffer.concat([...this.#parts, piece]);
      const skipped = this.#skippingLine;
      this.#parts = [];
      this.#partBytes = 0;
      this.#skippingLine = false;
      if (skipped) continue;
      if (bytes > max) this.#onTooLarge(max);
      else this.#onLine(line.toString('utf8'));
    }
    if (start >= chunk.length || this.#skippingLine) return;
    const rest = chunk.subarray(start);
    this.#partBytes += rest.length;
    if (this.#partBytes > max) {
      this.#parts = [];
      this.#partBytes = 0;
      this.#skippingLine = true;
      this.#onTooLarge(max);
    } else {
      this.#parts.push(rest);
    }
  }
}

/** One stdout line read as a message: blank, JSON (a message, maybe malformed), or text that is not JSON. */
export type ParsedLine =
  | { kind: 'blank' }
  | { kind: 'json'; value: unknown; line: string }
  | { kind: 'text'; line: string; error: unknown };

/** Reads one line (without its newline; a trailing CR is dropped too). */
export function parseLine(raw: string): ParsedLine {
  const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (line.trim() === '') return { kind: 'blank' };
  try {
    return { kind: 'json', value: JSON.parse(line), line };
  } catch (error) {
    return { kind: 'text', line, error };
  }
}
