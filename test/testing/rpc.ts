/**
 * Test helper for the reference server: one JSON-RPC request over real HTTP on loopback, with conformant headers and
 * `_meta` unless a test overrides them.
 */
import { PROTOCOL_VERSION, TASKS_EXTENSION_ID } from '../../src/protocol/index.js';

/** Options of {@link rpc}. */
export interface RpcOptions {
  /** Declare the tasks extension (default true). */
  tasks?: boolean;
  /** Client capabilities besides `extensions` (default `{elicitation: {}}`). */
  capabilities?: Record<string, unknown>;
  /** Extra `_meta` entries; `null` removes `_meta` entirely. */
  meta?: Record<string, unknown> | null;
  /** Header overrides; a value of `undefined` removes that header. */
  headers?: Record<string, string | undefined>;
  id?: number | string;
  signal?: AbortSignal;
}

/** What {@link rpc} returns. */
export interface RpcReply {
  status: number;
  contentType: string;
  /** The JSON-RPC response (for SSE: the last event with an id). */
  body: { id?: unknown; result?: Record<string, any>; error?: { code: number; message: string; data?: any } };
  /** SSE events in order (empty for JSON replies). */
  events: Array<Record<string, any>>;
}

let nextId = 1;

/** Sends `method` with `params` to `url`. */
export async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: RpcOptions = {},
): Promise<RpcReply> {
  const capabilities = { elicitation: {}, ...(options.capabilities ?? {}) } as Record<string, unknown>;
  if (options.tasks !== false) capabilities.extensions = { [TASKS_EXTENSION_ID]: {} };
  const meta =
    options.meta === null
      ? undefined
      : {
          'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
          ...(options.meta ?? {}),
        };
  const name = (params.name ?? params.uri ?? params.taskId) as string | undefined;
  const headers: Record<string, string | undefined> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': PROTOCOL_VERSION,
    'Mcp-Method': method,
    ...(name !== undefined ? { 'Mcp-Name': name } : {}),
    ...(options.headers ?? {}),
  };
  const sent = Object.fromEntries(
    Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const res = await fetch(url, {
    method: 'POST',
    headers: sent,
    signal: options.signal,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.id ?? nextId++,
      method,
      params: meta === undefined ? params : { ...params, _meta: meta },
    }),
  });
  const contentType = res.headers.get('content-type') ?? '';
  const text = await res.text();
  if (contentType.includes('text/event-stream')) {
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)) as Record<string, any>);
    return { status: res.status, contentType, body: events.filter((e) => 'id' in e).at(-1) ?? {}, events };
  }
  return { status: res.status, contentType, body: text === '' ? {} : JSON.parse(text), events: [] };
}

/** Polls `tasks/get` every `intervalMs` until `until(task)` holds or `timeoutMs` passes; returns the last task. */
export async function pollTask(
  url: string,
  taskId: string,
  until: (task: Record<string, any>) => boolean = (t) =>
    ['completed', 'failed', 'cancelled'].includes(t.status),
  { intervalMs = 10, timeoutMs = 5_000 } = {},
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await rpc(url, 'tasks/get', { taskId });
    if (reply.body.result === undefined) throw new Error(`tasks/get failed: ${JSON.stringify(reply.body)}`);
    if (until(reply.body.result) || Date.now() > deadline) return reply.body.result;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
