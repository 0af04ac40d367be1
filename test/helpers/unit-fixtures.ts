/**
 * Shared fixtures for the unit tests: wire shapes of tasks and results, a transport that honours abort signals like a
 * real one, a recording fake `fetch`, and a few fake-timer helpers. No real network, no wall clock.
 */
import { vi } from 'vitest';
import type { JsonRpcRequest } from '../../src/protocol/jsonrpc.js';
import type { TransportRequestOptions } from '../../src/transport/transport.js';
import { ScriptedTransport, type Handler, type Reply } from './scripted-transport.js';

/** Lets every pending microtask and zero-delay timer run without moving the fake clock. */
export async function flush(): Promise<void> {
  await vi.advanceTimersByTimeAsync(0);
}

/** The task fields both shapes below share. */
const TASK = {
  taskId: 't1',
  status: 'working',
  createdAt: '2026-08-01T09:00:00Z',
  lastUpdatedAt: '2026-08-01T09:00:00Z',
  ttlMs: 600_000,
  pollIntervalMs: 1_000,
};

/** A flat `CreateTaskResult` (5.4). */
export function created(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { resultType: 'task', ...TASK, ...overrides };
}

/** A `tasks/get` result (`resultType: complete` + DetailedTask, 5.8). */
export function detailed(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { resultType: 'complete', ...TASK, ...overrides };
}

/** Settles `p` into a box that can be inspected at any time, without unhandled rejections. */
export function outcome<T>(p: Promise<T>): { value?: T; error?: unknown; settled: boolean } {
  const box: { value?: T; error?: unknown; settled: boolean } = { settled: false };
  p.then(
    (value) => Object.assign(box, { value, settled: true }),
    (error: unknown) => Object.assign(box, { error, settled: true }),
  );
  return box;
}

/** A `CallToolResult` with one text block. */
export function toolResult(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { content: [{ type: 'text', text }], ...extra };
}

/** A completed `tasks/get` result carrying `result`. */
export function completed(
  result: Record<string, unknown> = toolResult('done'),
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return detailed({ status: 'completed', result, ...overrides });
}

/** An embedded form-mode `elicitation/create` request (no `mode`, 4.6). */
export function elicit(message: string): Record<string, unknown> {
  return {
    method: 'elicitation/create',
    params: {
      message,
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    },
  };
}

/** A JSON-RPC error reply for {@link ScriptedTransport}. */
export function rpcError(code: number, message = 'error', data?: unknown): Reply {
  return data === undefined ? { error: { code, message } } : { error: { code, message, data } };
}

/** Replies to `method` from a queue; the last reply repeats once the queue is empty. */
export function queue(replies: Reply[]): () => Reply {
  let i = 0;
  return () => {
    const reply = replies[Math.min(i, replies.length - 1)];
    i++;
    if (reply === undefined) throw new Error('queue: no replies');
    return reply;
  };
}

/**
 * A {@link ScriptedTransport} that, like a real transport, rejects with `signal.reason` as soon as the request's
 * signal aborts, even while the handler is still pending.
 */
export class AbortableTransport extends ScriptedTransport {
  constructor(handler: Handler) {
    super(handler);
  }

  override request(
    message: JsonRpcRequest,
    options: TransportRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const { signal } = options;
    const inner = super.request(message, options);
    if (!signal) return inner;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      inner.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }
}

/** A promise with its resolvers exposed. */
export function deferred<T>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** One call seen by {@link FakeFetch}. */
export interface FetchCall {
  url: string;
  headers: Headers;
  body: JsonRpcRequest;
  signal: AbortSignal | undefined;
}

/** Decides the response to one POST. */
export type FetchResponder = (call: FetchCall, index: number) => Response | Promise<Response>;

/** A recording `fetch` that never touches the network. */
export function fakeFetch(responder: FetchResponder): { fetch: typeof fetch; calls: FetchCall[] } {
  const calls: FetchCall[] = [];
  const fn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const call: FetchCall = {
      url: String(input),
      headers: new Headers(init?.headers),
      body: JSON.parse(String(init?.body)) as JsonRpcRequest,
      signal: init?.signal ?? undefined,
    };
    calls.push(call);
    return responder(call, calls.length - 1);
  };
  return { fetch: fn as typeof fetch, calls };
}

/** A JSON response carrying one JSON-RPC message. */
export function jsonResponse(message: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return new Response(JSON.stringify(message), { status: 200, ...init, headers });
}

/** An SSE response whose body is exactly `text`, delivered in the given chunks (or one chunk). */
export function sseResponse(chunks: string | string[], init: ResponseInit = {}): Response {
  const parts = typeof chunks === 'string' ? [chunks] : chunks;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
  const headers = new Headers(init.headers);
  if (!headers.has('content-type')) headers.set('content-type', 'text/event-stream');
  return new Response(body, { status: 200, ...init, headers });
}

/** The `data:` line of one SSE event carrying `message`. */
export function sseEvent(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}
