/**
 * The option and event shapes of {@link TaskClient}: per-call options, what `startTool` returns, and the client's
 * events. (https://modelcontextprotocol.io/specification/2026-07-28/basic/utilities/tasks ,
 * https://github.com/modelcontextprotocol/ext-tasks)
 *
 * @module
 */
import type { z } from 'zod';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import type { InputRequiredEvent } from '../tasks/input-broker.js';
import type { CallOptionsSchema } from '../tasks/config.js';
import type { ExpiringEvent } from '../tasks/task-handle.js';
import type { TaskHandle } from '../tasks/task-handle.js';

/** Options of `callTool`, `readResource`, `getPrompt` and `startTool`; each is described on `CallOptionsSchema`. */
export interface CallOptions<T = unknown> extends Omit<z.input<typeof CallOptionsSchema>, 'onTask'> {
  /**
   * Called once if the call became a task, before its first poll (after the client's `'task'` event). Must be a
   * function (else `TypeError`, nothing sent). The task is already followed: if this throws, or returns a promise
   * that rejects, the call is treated as aborted with the thrown error as reason (`onAbort` applies, `'cancel'` by
   * default) and rejects with it, carrying `taskId`. (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md)
   * @default undefined
   */
  onTask?: (handle: TaskHandle<T>) => void;
}

/** What `startTool` (and friends) returns: the final result, or the handle of a task. */
export type CallStart<T> =
  | { resultType: 'complete'; result: T }
  | { resultType: 'task'; task: TaskHandle<T> };

/**
 * Events of a {@link TaskClient}. Listeners run guarded: one that throws or returns a rejecting promise never breaks
 * the engine. Called for a task (`task`, and `inputRequired`, `expiring`, `serverViolation` about one), its failure
 * aborts that task like a throwing `onTask` (`onAbort` applies; the call rejects with the error, carrying `taskId`),
 * or is a `warning` once the task is terminal; for an MRTR round (`inputRequired` without `taskId`) the call rejects
 * with it; otherwise it is a `warning`. A failing `warning` listener is dropped: there is nowhere left to report.
 * See docs/guide.md § Your code never breaks the engine.
 */
export interface TaskClientEvents {
  /** A question from the server (an MRTR round or a task), once per key. Answer with `event.respond(...)`. */
  inputRequired: [event: InputRequiredEvent];
  /** A call became a task. */
  task: [handle: TaskHandle<unknown>];
  /** A task still waiting for input has less than a fifth of its TTL left (once per task). */
  expiring: [event: ExpiringEvent];
  /** A notification arrived that no call claimed (e.g. `notifications/message`). */
  notification: [notification: JsonRpcNotification];
  /** The server broke a rule and the client coped (e.g. a nested `task` wrapper, -32602 right after creation). */
  serverViolation: [detail: string];
  /** Something was dropped or could not be stored (an invalid tool, a late answer, a failed record write). */
  warning: [message: string];
}

/**
 * Params and options of one `tools/call`, with the caller's idempotency key placed where `placement` says (an
 * argument or a `_meta` key).
 */
export function toolCall<T>(
  placement: { meta: string } | { argument: string },
  name: string,
  args: Record<string, unknown> | undefined,
  options: CallOptions<T>,
) {
  const key = options.idempotencyKey;
  let callArgs = args;
  let callOptions = options;
  if (key !== undefined && 'argument' in placement) callArgs = { ...args, [placement.argument]: key };
  if (key !== undefined && 'meta' in placement)
    callOptions = { ...options, meta: { ...options.meta, [placement.meta]: key } };
  return { params: callArgs === undefined ? { name } : { name, arguments: callArgs }, options: callOptions };
}
