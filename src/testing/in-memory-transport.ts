/**
 * An in-process {@link Transport} to a {@link TaskServerCore}: no sockets, no HTTP, the same JSON-RPC messages.
 * For tests and benchmarks that need thousands of tasks without the cost of loopback HTTP.
 *
 * @module
 */
import { toJsonText } from '../internal/deep-json.js';
import { InvalidResponseError, McpError, RequestTimeoutError, StreamEndedError } from '../errors.js';
import type {
  JsonRpcErrorResponse,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResultResponse,
} from '../protocol/index.js';
import type { Transport, TransportRequestOptions } from '../transport/transport.js';
import type { TaskServerCore } from './server-core.js';

/** Options of {@link InMemoryTransport}. */
export interface InMemoryTransportOptions {
  /**
   * Copy every message through `JSON.stringify`/`JSON.parse` in both directions, as a wire would, so client and
   * server never share objects. @default true
   */
  cloneMessages?: boolean;
}

const serverKeys = new WeakMap<TaskServerCore, string>();
let nextKey = 1;

/** One key per core, so every transport to the same core shares the scheduler's per-server cap and pause. */
function keyFor(core: TaskServerCore): string {
  let key = serverKeys.get(core);
  if (key === undefined) {
    key = `memory://task-server-core/${nextKey++}`;
    serverKeys.set(core, key);
  }
  return key;
}

// Through text, as a wire would; `toJsonText` survives any nesting (JSON.parse does not recurse).
const clone = <T>(value: T): T => JSON.parse(toJsonText(value)) as T;

/**
 * A {@link Transport} that hands each message to `core.handle(message, undefined, …)`. Header checks are skipped (no
 * headers exist in process); everything else is what the HTTP front end would answer. A JSON-RPC error becomes an
 * `McpError` whose `httpStatus` is the status the core gives the HTTP front end (e.g. 500 for -32603), so failures
 * classify exactly as they do over Streamable HTTP. Each message is handed over on a later macrotask, as on a real
 * connection: a caller's burst of requests never runs to completion inside one turn of the event loop.
 *
 * @example
 * ```ts
 * const core = new TaskServerCore({ pollIntervalMs: 1_000 });
 * const client = new TaskClient({ transport: new InMemoryTransport(core) });
 * ```
 */
export class InMemoryTransport implements Transport {
  /** `memory://task-server-core/<n>`, one per core. */
  readonly serverKey: string;
  readonly #core: TaskServerCore;
  readonly #clone: boolean;
  readonly #inflight = new Set<AbortController>();
  #closed = false;

  constructor(core: TaskServerCore, options: InMemoryTransportOptions = {}) {
    this.#core = core;
    this.#clone = options.cloneMessages ?? true;
    this.serverKey = keyFor(core);
  }

  /**
   * Sends one request to the core and resolves with its `result`.
   *
   * @throws `McpError` for a JSON-RPC error response; `InvalidResponseError` when the core answers
   *   without a response or with another id; {@link RequestTimeoutError} past `timeoutMs`;
   *   {@link StreamEndedError} when the transport is closed; `signal.reason` on abort.
   */
  async request(
    message: JsonRpcRequest,
    options: TransportRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const { method } = message;
    const reply = await this.#exchange(method, message, options);
    const response = reply.response;
    if (response === undefined)
      throw new InvalidResponseError(method, `the server sent no response (status ${reply.status})`);
    if ('error' in response) {
      const { error } = response as JsonRpcErrorResponse;
      if (response.id !== null && response.id !== undefined && response.id !== message.id) {
        throw new InvalidResponseError(
          method,
          `error response id ${JSON.stringify(response.id)} does not match request id ${JSON.stringify(message.id)}`,
        );
      }
      throw new McpError(method, error, { httpStatus: reply.status });
    }
    if (response.id !== message.id) {
      throw new InvalidResponseError(
        method,
        `response id ${JSON.stringify(response.id)} does not match request id ${JSON.stringify(message.id)}`,
      );
    }
    return (response as JsonRpcResultResponse).result;
  }

  /** Delivers one notification (e.g. `notifications/cancelled`). */
  async notify(message: JsonRpcNotification, options: TransportRequestOptions = {}): Promise<void> {
    await this.#exchange(message.method, message, options);
  }

  /** Rejects pending requests with {@link StreamEndedError}; later requests fail the same way. The core stays up. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const controller of this.#inflight) controller.abort(new StreamEndedError('close'));
    this.#inflight.clear();
  }

  async #exchange(
    method: string,
    message: JsonRpcRequest | JsonRpcNotification,
    options: TransportRequestOptions,
  ) {
    if (this.#closed) throw new StreamEndedError(method);
    const { signal, timeoutMs } = options;
    if (signal?.aborted) throw signal.reason;
    // Like a closed HTTP request, an abort, a timeout or close() both rejects the caller and tells the core to stop.
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer =
      timeoutMs !== undefined && Number.isFinite(timeoutMs)
        ? setTimeout(() => controller.abort(new RequestTimeoutError(method, timeoutMs)), timeoutMs)
        : undefined;
    this.#inflight.add(controller);
    const sent = this.#clone ? clone(message) : message; // serialised when sent, as a POST body is
    let onStop: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      onStop = () => reject(controller.signal.reason);
      controller.signal.addEventListener('abort', onStop, { once: true });
    });
    stopped.catch(() => undefined);
    try {
      await Promise.race([new Promise<void>((resolve) => setImmediate(resolve)), stopped]);
      const onNotification = options.onNotification;
      const handled = this.#core.handle(sent, undefined, {
        signal: controller.signal,
        onNotification: onNotification && ((n) => onNotification(this.#clone ? clone(n) : n)),
      });
      const reply = await Promise.race([handled, stopped]);
      return this.#clone ? clone(reply) : reply;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (onStop) controller.signal.removeEventListener('abort', onStop);
      this.#inflight.delete(controller);
    }
  }
}
