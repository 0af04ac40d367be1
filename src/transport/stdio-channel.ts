/**
 * A {@link JsonRpcChannel} over a server child process (Node only): newline-delimited JSON-RPC on its stdin and
 * stdout, stderr only logs. Used by the 2025-11-25 session, whose server sends requests of its own on stdout and gets
 * the answers on stdin. The process is ended politely: stdin closed, `closeGraceMs`, SIGTERM, `closeGraceMs`, SIGKILL.
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio)
 *
 * @module
 * @internal
 */
import { ServerExitedError } from '../errors.js';
import { callGuarded } from '../internal/safe-emitter.js';
import type { ChannelMessage, JsonRpcChannel } from './channel.js';
import { excerpt } from './read-body.js';
import { endChild, spawnChild, type Child } from './stdio-child.js';
import { LineSplitter, parseLine } from './stdio-lines.js';
import type { StdioTarget } from './transport.js';

/** How the channel's process is started and ended. */
export interface StdioChannelOptions extends Omit<StdioTarget, 'kind' | 'openChannel'> {
  /** Wait after closing stdin (and again after SIGTERM) before the next step, ms. */
  closeGraceMs: number;
  /** Longest accepted stdout line, bytes; a longer one is dropped and reported. */
  maxLineBytes: number;
  /** Reports a dropped line (not JSON, too long). */
  onWarning?: (detail: string) => void;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** See the module. */
export class StdioChannel implements JsonRpcChannel {
  onmessage?: (message: ChannelMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #options: StdioChannelOptions;
  readonly #commandLine: string;
  #child: Child | undefined;
  #closing: Promise<void> | undefined;
  readonly #lines: LineSplitter;

  constructor(options: StdioChannelOptions) {
    this.#options = options;
    this.#commandLine = [options.command, ...(options.args ?? [])].join(' ');
    this.#lines = new LineSplitter(
      () => options.maxLineBytes,
      (line) => this.#onLine(line),
      (max) => this.#warn(`stdout line exceeded ${max} bytes; dropped`),
    );
  }

  /** The server's process id while it runs. */
  get pid(): number | undefined {
    return this.#child?.process.pid;
  }

  /**
   * Starts the process.
   *
   * @throws {@link ServerExitedError} when it cannot be spawned.
   */
  async start(): Promise<void> {
    this.#child ??= spawnChild(this.#options, this.#commandLine, {
      onStdout: (chunk) => this.#lines.push(chunk),
      onStderr: (text) => this.#callback(() => this.#options.onStderr?.(text)),
      onGone: (child, error) => this.#gone(child, error),
    });
    return this.#child.spawned;
  }

  /**
   * Writes one message as one line.
   *
   * @throws {@link ServerExitedError} when the process is gone; the write error when the pipe broke.
   */
  send(message: ChannelMessage): Promise<void> {
    const child = this.#child;
    // JSON.stringify escapes control characters, so the line has no embedded newline.
    const line = `${JSON.stringify(message)}\n`;
    return new Promise((resolve, reject) => {
      if (child === undefined || child.gone || !child.process.stdin.writable)
        return reject(new ServerExitedError(this.#commandLine, null, null, child?.stderrTail ?? ''));
      child.process.stdin.write(line, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Ends the process (stdin closed, then SIGTERM, then SIGKILL); resolves once it exited. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const child = this.#child;
    if (child !== undefined) await endChild(child, this.#options.closeGraceMs);
    else this.#callback(() => this.onclose?.());
  }

  #gone(child: Child, error: ServerExitedError): void {
    if (child.gone) return;
    child.gone = true;
    if (!this.#closing) this.#callback(() => this.onerror?.(error));
    this.#callback(() => this.onclose?.());
  }

  #onLine(raw: string): void {
    const parsed = parseLine(raw);
    if (parsed.kind === 'blank') return;
    if (parsed.kind === 'text')
      return this.#warn(`stdout line is not JSON; skipped: ${excerpt(parsed.line, 200)}`);
    const value = parsed.value;
    if (!isObject(value))
      return this.#warn(`stdout line is not a JSON-RPC object; skipped: ${excerpt(parsed.line, 200)}`);
    this.#callback(() => this.onmessage?.(value));
  }

  #warn(detail: string): void {
    this.#callback(() => this.#options.onWarning?.(`stdio:${this.#commandLine}: ${detail}`));
  }

  /** Runs a listener guarded: its exceptions must not break the reader. */
  #callback(fn: () => void): void {
    callGuarded(fn, undefined, [], 'stdio channel', undefined);
  }
}
