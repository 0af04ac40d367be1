/**
 * The fault contract: given one incoming request and a way to get the reference server's honest reply, answer
 * something else. Helpers build faults that rewrite the JSON-RPC `result` or `error`, or replace the reply outright.
 *
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestId } from '../../../src/protocol/index.js';
import { jsonReply, type WireReply } from './wire-reply.js';

/** One request as a fault sees it. */
export interface FaultRequest {
  /** JSON-RPC method. */
  method: string;
  /** JSON-RPC id; `undefined` for a notification. */
  id: RequestId | undefined;
  /** `params` (an empty object when absent). */
  params: Record<string, unknown>;
  /** The tool this request concerns: `params.name` of `tools/call`, or the tool that created `params.taskId`. */
  tool: string | undefined;
  /** `params.taskId` of a `tasks/*` request. */
  taskId: string | undefined;
  /** How many earlier requests this fault's rule answered (0 for the first). */
  count: number;
  /** How many earlier requests of this method this rule answered for the same task (or tool, without a task). */
  countForTarget: number;
  /** HTTP request headers (lower-case names). */
  headers: IncomingHttpHeaders;
}

/** The reference server's honest reply to the request. */
export type NextReply = () => Promise<WireReply>;

/** A misbehaviour. `reply` may call `next()` for the honest reply and rewrite it, or answer on its own. */
export interface Fault {
  /** A short name, shown in logs and in `docs/reliability.md`. */
  readonly name: string;
  reply(request: FaultRequest, next: NextReply): Promise<WireReply> | WireReply;
}

/** The JSON-RPC `result` object of a reply, when it has one. */
export function resultOf(reply: WireReply): Record<string, unknown> | undefined {
  if (reply.kind !== 'json') return undefined;
  const body = reply.body as { result?: unknown } | null;
  const result = body?.result;
  return result !== null && typeof result === 'object' && !Array.isArray(result)
    ? (result as Record<string, unknown>)
    : undefined;
}

/** True for a task-shaped result: a `CreateTaskResult` or a `tasks/get` result. */
export function isTaskResult(result: Record<string, unknown> | undefined): result is Record<string, unknown> {
  return result !== undefined && typeof result.taskId === 'string' && typeof result.status === 'string';
}

/**
 * A fault that rewrites the honest `result` (only replies that have one): `rewrite` returns the new result, or
 * `undefined` to keep it.
 */
export function rewriteResult(
  name: string,
  rewrite: (result: Record<string, unknown>, request: FaultRequest) => Record<string, unknown> | undefined,
): Fault {
  return {
    name,
    async reply(request, next) {
      const honest = await next();
      const result = resultOf(honest);
      if (result === undefined || honest.kind !== 'json') return honest;
      const changed = rewrite(structuredClone(result), request);
      return changed === undefined
        ? honest
        : { ...honest, body: { ...(honest.body as object), result: changed } };
    },
  };
}

/** Like {@link rewriteResult}, for task-shaped results only (creation results and `tasks/get` replies). */
export function rewriteTask(
  name: string,
  rewrite: (task: Record<string, unknown>, request: FaultRequest) => Record<string, unknown> | undefined,
): Fault {
  return rewriteResult(name, (result, request) =>
    isTaskResult(result) ? rewrite(result, request) : undefined,
  );
}

/** A JSON-RPC error reply for the request (HTTP status as the reference server would use). */
export function rpcErrorReply(
  request: FaultRequest,
  code: number,
  message: string,
  status = 400,
  data?: unknown,
): WireReply {
  return jsonReply(
    {
      jsonrpc: '2.0',
      id: request.id ?? null,
      error: { code, message, ...(data === undefined ? {} : { data }) },
    },
    status,
  );
}

/** A JSON-RPC result reply for the request. */
export function rpcResultReply(request: FaultRequest, result: Record<string, unknown>): WireReply {
  return jsonReply({ jsonrpc: '2.0', id: request.id ?? null, result });
}

/** Several faults as one: the first rewrites what the second answers, and so on down to the honest reply. */
export function chain(...faults: Fault[]): Fault {
  return {
    name: faults.map((f) => f.name).join(' + '),
    reply(request, next) {
      const run = (i: number): Promise<WireReply> =>
        i >= faults.length ? next() : Promise.resolve(faults[i]!.reply(request, () => run(i + 1)));
      return run(0);
    },
  };
}
