/**
 * stdio transport for MCP 2026-07-28 (Node only): the server is a child process; each JSON-RPC message is one line
 * of UTF-8 JSON on its stdin (requests, notifications) or stdout (responses, notifications); stderr is only logs.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio)
 *
 * Routing of what the server writes:
 * - a response settles the pending request with the same id (string and number ids are distinct); a response for
 *   an id not in flight (late, or already cancelled) is ignored;
 * - `notifications/progress` goes to the request whose `_meta.progressToken` equals its `progressToken`;
 * - a notification whose `_meta["io.modelcontextprotocol/subscriptionId"]` names a request in flight goes to that
 *   request (listen streams); a server `notifications/cancelled` naming one ends it with `StreamEndedError`;
 * - any other notification (e.g. `notifications/message`) is delivered once: to the oldest request in flight, or
 *   with none in flight to the `onNotification` option;
 * - server-to-client JSON-RPC requests are dropped (2026-07-28 embeds them as `inputRequests`) and reported to
 *   `onWarning`, like every other message that is dropped.
 *
 * @module
 */
// Split by concept, no behaviour change: options, child process, stdout lines and notification routing are in stdio-*.ts
import {
  ClientClosedError,
  InvalidResponseError,
  RequestTimeoutError,
  ResponseTooLargeError,
  type ServerExitedError,
  StreamEndedError,
} from '../errors.js';
import { linkAbort } from '../internal/abort.js';
import type { JsonRpcNotification, JsonRpcRequest, RequestId } from '../protocol/jsonrpc.js';
import { classifyMessage, settleResponse } from './messages.js';
import { excerpt } from './read-body.js';
import { endChild, spawnChild, type Child } from './stdio-child.js';
import { StdioChannel } from './stdio-channel.js';
import { LineSplitter, parseLine } from './stdio-lines.js';
import { routeNotification, type Pending } from './stdio-routing.js';
import {
  checkStdioOptions,
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_MAX_LINE_BYTES,
  MAX_SKIPPED_LINES,
  type StdioTransportOptions,
} from './stdio-options.js';
import {
  checkServerKey,
  type StdioTarget,
  type Transport,
  type TransportRequestOptions,
} from './transport.js';

export { DEFAULT_CLOSE_GRACE_MS, DEFAULT_MAX_LINE_BYTES, MAX_SKIPPED_LINES } from './stdio-options.js';
export type { StdioTransportOptions } from './stdio-options.js';

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A {@link Transport} to an MCP server started as a child process, speaking newline-delimited JSON-RPC.
 * The server starts on the first call (or on {@link StdioTransport.start}); `close()` ends it politely.
 *
 * @example
 * import { TaskClient } from 'mcp-tasks-client';
 * import { StdioTransport } from 'mcp-tasks-client/stdio';
 * const client = new TaskClient({ transport: new StdioTransport({ command: 'npx', args: ['mcp-tasks-reference-server', '--stdio'] }) });
 * const result = await client.callTool('echo', { text: 'hi' });
 * await client.close();
 */
export class StdioTransport implements Transport {
  readonly serverKey: string;
  readonly #options: StdioTransportOptions;
  readonly #commandLine: string;
  readonly #pending = new Map<RequestId, Pending>();
  #child: Child | undefined;
  #lastExit: ServerExitedError | undefined;
  #closing: Promise<void> | undefined;
  #skipped = 0; // stdout lines in a row that were not JSON
  readonly #lines = new LineSplitter(
    () => this.#options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    (line) => this.#onLine(line),
    (max) => this.#tooLarge(max),
  );

  /** @throws TypeError naming the first invalid option and the value it got. */
  constructor(options: StdioTransportOptions) {
    checkStdioOptions(options);
    this.#options = options;
    this.#commandLine = [options.command, ...(options.args ?? [])].join(' ');
    this.serverKey = checkServerKey('StdioTransport', options.serverKey) ?? `stdio:${this.#commandLine}`;
  }

  /**
   * The command line as data, for reaching a 2025-11-25 server: the era is probed with `server/discover` first;
   * if it is legacy, this transport's own child is closed and the legacy session starts another through
   * `openChannel` (same command line, environment, `closeGraceMs` and `maxLineBytes`).
   */
  get target(): StdioTarget {
    const { command, args, env, inheritEnv, cwd, onStderr, onWarning } = this.#options;
    const openChannel = (): StdioChannel =>
      new StdioChannel({
        command,
        args,
        env,
        inheritEnv,
        cwd,
        onStderr,
        onWarning,
        closeGraceMs: this.#options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS,
        maxLineBytes: this.#options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      });
    return { kind: 'stdio', command, args, env, inheritEnv, cwd, onStderr, openChannel };
  }

  /** The server's process id while it runs. */
  get pid(): number | undefined {
    return this.#child?.process.pid;
  }

  /**
   * Starts the server now instead of on the first call.
   *
   * @throws {@link ServerExitedError} when it cannot be spawned (e.g. the command does not exist).
   * @throws `ClientClosedError` after `close()`.
   */
  async start(): Promise<void> {
    await this.#ensureChild().spawned;
  }

  async request(
    message: JsonRpcRequest,
    options: TransportRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const { id, method } = message;
    if (options.signal?.aborted) throw options.signal.reason;
    if (this.#pending.has(id))
      throw new TypeError(`StdioTransport: request id ${JSON.stringify(id)} is already in flight`);
    const child = this.#ensureChild();
    const link = linkAbort(
      options.signal,
      options.timeoutMs,
      () => new RequestTimeoutError(method, options.timeoutMs ?? 0),
    );
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const onAbort = (): void => {
        if (this.#pending.get(id) !== pending) return;
        this.#pending.delete(id);
        this.#sendCancelled(id, link.signal.reason);
        pending.reject(link.signal.reason);
      };
      const done = (): void => {
        link.signal.removeEventListener('abort', onAbort);
        link.dispose();
      };
      const meta =
        isObject(message.params) && isObject(message.params._meta) ? message.params._meta : undefined;
      const pending: Pending = {
        id,
        method,
        progressToken: meta?.progressToken,
        onNotification: options.onNotification,
        resolve: (result) => (done(), resolve(result)),
        reject: (error) => (done(), reject(error)),
      };
      this.#pending.set(id, pending);
      link.signal.addEventListener('abort', onAbort, { once: true });
      // A write error means the pipe broke: the child's exit fails the call with ServerExitedError.
      this.#write(child, message).catch((error: unknown) =>
        this.#warn(`${method}: could not write to the server: ${String(error)}`),
      );
    });
  }

  async notify(message: JsonRpcNotification, options: TransportRequestOptions = {}): Promise<void> {
    if (options.signal?.aborted) throw options.signal.reason;
    const child = this.#ensureChild();
    await child.spawned;
    await this.#write(child, message);
  }

  /**
   * Rejects pending calls with `ClientClosedError`, then ends the server: closes its stdin, waits
   * `closeGraceMs`, sends SIGTERM, waits again, sends SIGKILL. Resolves once the process has exited.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#failAll(() => new ClientClosedError());
    const child = this.#child;
    if (child === undefined) return;
    await endChild(child, this.#options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS);
  }

  #ensureChild(): Child {
    if (this.#closing) throw new ClientClosedError();
    if (this.#child && !this.#child.gone) return this.#child;
    if (this.#lastExit && this.#options.restart === false) throw this.#lastExit;
    this.#child = this.#spawn();
    return this.#child;
  }

  #spawn(): Child {
    this.#lines.reset();
    return spawnChild(this.#options, this.#commandLine, {
      onStdout: (chunk) => this.#lines.push(chunk),
      onStderr: (text) => this.#callback(() => this.#options.onStderr?.(text)),
      onGone: (child, error) => this.#gone(child, error),
    });
  }

  #gone(child: Child, error: ServerExitedError): void {
    if (child.gone) return;
    child.gone = true;
    if (this.#child !== child) return;
    this.#lastExit = error;
    this.#failAll(() => error);
  }

  #write(child: Child, message: JsonRpcRequest | JsonRpcNotification): Promise<void> {
    // JSON.stringify escapes control characters, so the line has no embedded newline.
    const line = `${JSON.stringify(message)}\n`;
    return new Promise((resolve, reject) => {
      if (child.gone || !child.process.stdin.writable) return reject(new Error('stdin is closed'));
      child.process.stdin.write(line, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** notifications/cancelled {requestId, reason}; best effort. */
  #sendCancelled(requestId: RequestId, reason: unknown): void {
    const child = this.#child;
    if (child === undefined || child.gone) return;
    const text = reason instanceof Error ? reason.message : String(reason ?? 'aborted');
    const params = { requestId, reason: text };
    this.#write(child, { jsonrpc: '2.0', method: 'notifications/cancelled', params }).catch(() => undefined);
  }

  #tooLarge(max: number): void {
    this.#warn(`stdout line exceeded ${max} bytes; dropped`);
    this.#failAll((p) => new ResponseTooLargeError(p.method, max));
  }

  #onLine(raw: string): void {
    const parsed = parseLine(raw);
    if (parsed.kind === 'blank') return;
    if (parsed.kind === 'text') {
      const { line, error } = parsed;
      // Not a message, so no request's answer: reported and skipped (bounded: MAX_SKIPPED_LINES in a row fail the requests in flight as lost).
      const shown = excerpt(line, 200);
      this.#warn(`stdout line is not JSON; skipped: ${shown}`);
      if (++this.#skipped < MAX_SKIPPED_LINES) return;
      const why = (p: Pending): InvalidResponseError =>
        new InvalidResponseError(
          p.method,
          `the server wrote ${this.#skipped} lines in a row that are not JSON; last: ${shown}`,
          undefined,
          { cause: error },
        );
      return this.#failAll((p) => new StreamEndedError(p.method, { cause: why(p) }));
    }
    this.#skipped = 0;
    const value = parsed.value;
    const message = classifyMessage(value);
    switch (message.kind) {
      case 'result':
      case 'error': {
        const pending =
          message.id === null || message.id === undefined ? undefined : this.#pending.get(message.id);
        if (pending === undefined)
          return this.#warn(
            `response for id ${JSON.stringify(message.id ?? null)} matches no request in flight; ignored`,
          );
        this.#pending.delete(pending.id);
        try {
          pending.resolve(settleResponse(message, pending.id, pending.method));
        } catch (error) {
          pending.reject(error);
        }
        return;
      }
      case 'notification':
        return routeNotification(message.notification, this.#pending, {
          warn: (d) => this.#warn(d),
          callback: (f) => this.#callback(f),
          onNotification: this.#options.onNotification,
        });
      case 'request':
        return this.#warn(
          `dropped server request ${message.method}: 2026-07-28 servers ask through inputRequests`,
        );
      case 'invalid': {
        const id = isObject(value) ? value.id : undefined;
        const pending = typeof id === 'string' || typeof id === 'number' ? this.#pending.get(id) : undefined;
        if (pending === undefined)
          return this.#warn(`dropped invalid message (${message.detail}): ${excerpt(parsed.line, 200)}`);
        this.#pending.delete(pending.id);
        pending.reject(new InvalidResponseError(pending.method, message.detail));
      }
    }
  }

  #failAll(makeError: (pending: Pending) => unknown): void {
    const all = [...this.#pending.values()];
    this.#pending.clear();
    for (const pending of all) pending.reject(makeError(pending));
  }

  #warn(detail: string): void {
    this.#callback(() => this.#options.onWarning?.(`stdio:${this.#commandLine}: ${detail}`));
  }

  /** Runs a caller's callback; its exceptions must not break the reader. */
  #callback(fn: () => void): void {
    try {
      fn();
    } catch {
      // ignored: a listener's bug is not a transport failure
    }
  }
}
