/**
 * A {@link JsonRpcChannel} over a server child process (Node only): newline-delimited JSON-RPC on its stdin and
 * stdout, stderr only logs. Used by the 2025-11-25 session, whose server sends requests of its own on stdout and gets
 * the answers on stdin. The process is ended politely: stdin closed, `closeGraceMs`, SIGTERM, `closeGraceMs`, SIGKILL.
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio)
 *
 * @module
 * @internal
 */
import { spawn } from 'node:child_process';
import { ServerExitedError } from '../errors.js';
import { childEnv } from '../internal/child-env.js';
import type { ChannelMessage, JsonRpcChannel } from './channel.js';
import { excerpt } from './read-body.js';
import { EXIT_DRAIN_MS, exitsWithin, STDERR_TAIL_CHARS, type Child } from './stdio-child.js';
import { LineSplitter } from './stdio-lines.js';
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
    if (this.#child) return this.#child.spawned;
    const o = this.#options;
    const proc = spawn(o.command, [...(o.args ?? [])], {
      cwd: o.cwd,
      env: childEnv(o),
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    let onSpawn!: () => void;
    let onSpawnError!: (error: unknown) => void;
    let onExit!: () => void;
    const child: Child = {
      process: proc,
      spawned: new Promise<void>((resolve, reject) => ((onSpawn = resolve), (onSpawnError = reject))),
      exited: new Promise<void>((resolve) => (onExit = resolve)),
      stderrTail: '',
      gone: false,
    };
    child.spawned.catch(() => undefined);
    this.#child = child;
    proc.stdin.on('error', () => undefined); // EPIPE: reported through the exit
    proc.stdout.on('data', (chunk: Buffer) => this.#lines.push(chunk));
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (text: string) => {
      child.stderrTail = (child.stderrTail + text).slice(-STDERR_TAIL_CHARS);
      this.#callback(() => o.onStderr?.(text));
    });
    proc.once('spawn', onSpawn);
    proc.once('exit', onExit);
    proc.on('error', (error) => {
      if (proc.pid !== undefined) return; // a failed kill(); the process lives on
      const failure = new ServerExitedError(this.#commandLine, null, null, '', { cause: error });
      onSpawnError(failure);
      onExit();
      this.#gone(child, failure);
    });
    // 'close' once stdout is drained; 'exit' plus a short drain in case a grandchild holds stdout open.
    const exitedWith = (code: number | null, signal: NodeJS.Signals | null): void =>
      this.#gone(child, new ServerExitedError(this.#commandLine, code, signal, child.stderrTail));
    proc.once('close', exitedWith);
    proc.once('exit', (code, signal) => setTimeout(() => exitedWith(code, signal), EXIT_DRAIN_MS).unref());
    return child.spawned;
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
    if (child !== undefined && !child.gone) {
      child.process.stdin.end();
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        if (await exitsWithin(child.exited, this.#options.closeGraceMs)) break;
        child.process.kill(signal);
      }
      await child.exited;
    }
    if (child === undefined) this.#callback(() => this.onclose?.());
  }

  #gone(child: Child, error: ServerExitedError): void {
    if (child.gone) return;
    child.gone = true;
    if (!this.#closing) this.#callback(() => this.onerror?.(error));
    this.#callback(() => this.onclose?.());
  }

  #onLine(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return this.#warn(`stdout line is not JSON; skipped: ${excerpt(line, 200)}`);
    }
    if (!isObject(value))
      return this.#warn(`stdout line is not a JSON-RPC object; skipped: ${excerpt(line, 200)}`);
    this.#callback(() => this.onmessage?.(value));
  }

  #warn(detail: string): void {
    this.#callback(() => this.#options.onWarning?.(`stdio:${this.#commandLine}: ${detail}`));
  }

  /** Runs a listener; its exceptions must not break the reader. */
  #callback(fn: () => void): void {
    try {
      fn();
    } catch {
      // a listener's bug is not a transport failure
    }
  }
}
