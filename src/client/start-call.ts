/**
 * Starting one call on an era backend with its caller code guarded: `onProgress` runs through the one guard
 * ({@link CallFailures}), so a throw or a rejecting promise never reaches the transport. A failure before the task
 * is handed out is an abort of the call like a throwing `onTask` (`onAbort` applies; the call rejects with it,
 * carrying `taskId`); a later one goes to the task's handle. When the call ends without a task (an inline result,
 * or the call failed), the failure is a `warning` event: the result stays the server's.
 *
 * @module
 * @internal
 */
import type { BackendRequestOptions, EraBackend } from '../tasks/backend.js';
import { parserFor } from '../tasks/result-parsers.js';
import { CallFailures } from '../tasks/tracker.js';
import type { TaskTracker } from '../tasks/tracker.js';
import type { CallOptions, CallStart } from './call-options.js';

/** Where a failure of caller code that concerns no task goes: a client `warning`. */
export type Warn = (message: string) => void;

/** `options` with its `onProgress` guarded: failures become a `warning` naming `method` (calls that start no task). */
export function guardProgress<O extends { onProgress?: BackendRequestOptions['onProgress'] }>(
  method: string,
  options: O,
  warn: Warn,
): O {
  if (options.onProgress === undefined) return options;
  const failures = new CallFailures();
  failures.routeTo(warnAbout(method, warn));
  return { ...options, onProgress: failures.guard(options.onProgress, 'onProgress') };
}

function warnAbout(method: string, warn: Warn): (error: unknown, event: string) => void {
  return (error, event) =>
    warn(`${method}: an '${event}' callback threw (the server's answer stands): ${String(error)}`);
}

/** Sends the call on `backend`; a task goes to the engine (recorded first, then followed). */
export async function startCall<T>(
  tracker: TaskTracker,
  backend: EraBackend,
  method: string,
  params: Record<string, unknown>,
  options: CallOptions<T> & { signal: AbortSignal },
  warn: Warn,
  check?: (result: Record<string, unknown>) => Record<string, unknown>,
): Promise<CallStart<T>> {
  // The method's parser, then the call's own check of the result (typed results), for an inline result and a task's.
  const parsed = parserFor(method);
  const parse = (check ? (raw) => check(parsed(raw)) : parsed) as (raw: Record<string, unknown>) => T;
  const failures = new CallFailures();
  let task = false;
  try {
    const started = await backend.start(method, params, {
      ...options,
      onProgress: failures.guard(options.onProgress, 'onProgress'),
    });
    if (started.resultType === 'complete')
      return {
        resultType: 'complete',
        result: parse(started.result),
      };
    task = true;
    const abort = started.aborted ? { reason: started.abortReason } : undefined;
    return {
      resultType: 'task',
      task: await tracker.create<T>(
        backend,
        method,
        params,
        started.created,
        { ...options, failures, parseResult: parse },
        abort,
      ),
    };
  } finally {
    if (!task) {
      const late = warnAbout(method, warn);
      const thrown = failures.take();
      if (thrown) late(thrown.error, 'onProgress');
      failures.routeTo(late);
    }
  }
}
