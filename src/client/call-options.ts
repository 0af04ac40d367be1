/**
 * The option and event shapes of {@link TaskClient}: per-call options, what `startTool` returns, and the client's
 * events. (https://modelcontextprotocol.io/specification/2026-07-28/basic/utilities/tasks ,
 * https://github.com/modelcontextprotocol/ext-tasks)
 *
 * @module
 */
import { durationError, type DurationRule } from '../internal/duration.js';
import { keysOf, unknownOptionError } from '../internal/option-keys.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import type { InputRequiredEvent } from '../tasks/input-broker.js';
import { onTaskOptionError } from '../tasks/task-callbacks.js';
import type { ExpiringEvent } from '../tasks/task-driver.js';
import type { TaskHandle } from '../tasks/task-handle.js';
import type { AttachFacts } from '../tasks/tracker.js';
import type { RequestOptions } from '../modern/request-pipeline.js';

/** Options of `callTool`, `readResource`, `getPrompt` and `startTool`. */
export interface CallOptions<T = unknown> extends RequestOptions {
  /**
   * Budget for the whole call, ms: every round, the task's wait and its polls. On expiry the call fails with
   * `RequestTimeoutError` (and the task is cancelled unless `onAbort: 'detach'`). Must be greater than 0;
   * `Infinity` or anything above 2^31 − 1 ms means no total budget (the same as leaving it out).
   */
  maxTotalTimeoutMs?: number;
  /**
   * Called once if the call became a task, before its first poll (after the client's `'task'` event). Must be a
   * function (else `TypeError`, nothing sent). The task is already followed: if this throws, or returns a promise
   * that rejects, the call is treated as aborted with the thrown error as reason (`onAbort` applies, `'cancel'` by
   * default) and rejects with it, carrying `taskId`. (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md)
   */
  onTask?: (handle: TaskHandle<T>) => void;
  /** A poll interval in ms that may raise the server's `pollIntervalMs` (never lower it). */
  pollIntervalMs?: number;
  /**
   * What an aborted `signal` (or `maxTotalTimeoutMs`) does to a task the call created, also when the abort came
   * while the creation response was on its way, and to a task named by a malformed creation result: `'cancel'`
   * delivers one `tasks/cancel` (the caller holds no handle); `'detach'` leaves it running and recorded.
   * The call rejects with the abort reason, which then carries the `taskId`, after at most `abortGraceMs` (a
   * `tasks/cancel` not delivered by then goes on in the background; its final failure is a `warning` event). When the call's wait for its task
   * ends without the server's word it rejects with that error carrying `taskId`: after transient poll failures
   * past `maxPollRetries` the task is never cancelled (it stays recorded, resumable; a `warning` names it without
   * a store); after an invalid `tasks/get` answer this policy applies (`'cancel'`: one `tasks/cancel`, a failed
   * delivery is a `warning` event). A server-reported end is never cancelled. @default 'cancel'
   */
  onAbort?: 'cancel' | 'detach';
  /**
   * A caller-chosen key that makes re-sending this call safe: a creation request that got no response is re-sent
   * (new JSON-RPC id, same key) and a server honouring the key returns the same task. Sent where
   * `idempotencyKeyIn` says. Without it, a lost creation is re-sent only for tools annotated idempotent or
   * read-only; otherwise the call fails with `OutcomeUnknownError`.
   */
  idempotencyKey?: string;
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
  /** A task still waiting for input has less than `expiringMarginRatio` of its TTL left (once per task). */
  expiring: [event: ExpiringEvent];
  /** A notification arrived that no call claimed (e.g. `notifications/message`). */
  notification: [notification: JsonRpcNotification];
  /** The server broke a rule and the client coped (e.g. a nested `task` wrapper, -32602 right after creation). */
  serverViolation: [detail: string];
  /** Something was dropped or could not be stored (an invalid tool, a late answer, a failed record write). */
  warning: [message: string];
}

/** Options of {@link TaskClient.task}. */
export interface AttachOptions extends AttachFacts {
  signal?: AbortSignal;
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

/** The keys of {@link RequestOptions} (`discover`, `listTools`, `request`). */
export const REQUEST_OPTION_KEYS = keysOf<RequestOptions>()({
  signal: true,
  timeoutMs: true,
  onProgress: true,
  headers: true,
  meta: true,
});
/** The keys of {@link CallOptions} (`callTool`, `readResource`, `getPrompt`, `startTool`). */
export const CALL_OPTION_KEYS = keysOf<CallOptions>()({
  ...(Object.fromEntries(REQUEST_OPTION_KEYS.map((k) => [k, true])) as Record<keyof RequestOptions, true>),
  maxTotalTimeoutMs: true,
  onTask: true,
  pollIntervalMs: true,
  onAbort: true,
  idempotencyKey: true,
});
/** The keys of {@link AttachOptions} (`task`). */
export const ATTACH_OPTION_KEYS = keysOf<AttachOptions>()({
  signal: true,
  method: true,
  localCreatedAt: true,
  ttlMs: true,
  answeredKeys: true,
  pollIntervalMs: true,
});

/** The per-call duration options and their rule (see docs/guide.md § Durations). */
const CALL_DURATIONS: Array<[keyof CallOptions, DurationRule]> = [
  ['timeoutMs', {}],
  ['maxTotalTimeoutMs', { unlimited: true }],
  ['pollIntervalMs', {}],
];

/**
 * The `TypeError` for per-call options that a call must refuse before sending anything, naming the method and the
 * option: a key not in `known` (a misspelt option, with the closest known one), an `onTask` that is not a
 * function, an `onAbort` other than `'cancel'` or `'detach'`, or a duration option breaking the rule (NaN, not a number, 0 or negative, or beyond 2^31 − 1 ms where
 * "no limit" means nothing); `undefined` when all are fine.
 */
export function callOptionsError(
  where: string,
  options: CallOptions<unknown> | RequestOptions | AttachOptions | undefined,
  known: readonly string[] = CALL_OPTION_KEYS,
): TypeError | undefined {
  const unknown =
    unknownOptionError(where, options, known) ??
    onTaskOptionError(where, (options as CallOptions | undefined)?.onTask);
  if (unknown) return unknown;
  const onAbort = (options as CallOptions | undefined)?.onAbort as unknown;
  if (onAbort !== undefined && onAbort !== 'cancel' && onAbort !== 'detach') {
    return new TypeError(
      `${where}: option "onAbort" must be 'cancel' or 'detach'; got ${typeof onAbort === 'string' ? JSON.stringify(onAbort.slice(0, 40)) : onAbort === null ? 'null' : typeof onAbort}`,
    );
  }
  for (const [name, rule] of CALL_DURATIONS) {
    const error = durationError(where, name, (options as Record<string, unknown> | undefined)?.[name], rule);
    if (error) return error;
  }
  return undefined;
}
