/**
 * One adapted tool call: start it through `TaskClient.startTool` (inline, MRTR rounds or a task all look the same),
 * route questions, forward status, wait at most `maxWaitMs`, and map what happened to a {@link ToolOutcome}.
 *
 * Spec: https://github.com/modelcontextprotocol/ext-tasks (task lifecycle, `tasks/cancel`).
 *
 * @module
 */
import type { TaskClient } from '../../client/task-client.js';
import type { CallToolResult } from '../../protocol/results.js';
import type { InputRouter, StartingCall } from './input-router.js';
import type { ResolvedTaskToolsOptions, TaskToolUpdate } from './options.js';
import {
  inputNeededText,
  outcomeOfResult,
  pendingOf,
  TaskToolError,
  toolErrorFrom,
  type ToolOutcome,
} from './outcome.js';
import type { TaskRegistry, TrackedTask } from './task-registry.js';
import { LinkedAbort } from '../../internal/abort.js';
import { waitForTask } from './wait.js';

/** What the framework gives one call. */
export interface CallContext {
  /** The framework's abort signal for this call. */
  signal?: AbortSignal;
  /** The framework's id of this tool call. */
  toolCallId?: string;
  /** The framework's streaming hook for status and progress (besides `onStatus`). */
  onUpdate?: (update: TaskToolUpdate) => void;
}

/** What a call needs from its tool set. */
export interface CallRuntime {
  readonly client: TaskClient;
  readonly options: ResolvedTaskToolsOptions;
  readonly registry: TaskRegistry;
  readonly router: InputRouter;
}

/** The reason the router aborts a start it had to stop (a question nobody could answer). */
class InputStop extends Error {}

function updater(
  rt: CallRuntime,
  toolName: string,
  context: CallContext,
): ((update: Omit<TaskToolUpdate, 'toolName' | 'toolCallId'>) => void) | undefined {
  const hooks = [rt.options.onStatus, context.onUpdate].filter(
    (h): h is (u: TaskToolUpdate) => void => h !== undefined,
  );
  if (hooks.length === 0) return undefined;
  return (update) => {
    for (const hook of hooks) {
      try {
        hook({ toolName, toolCallId: context.toolCallId, ...update });
      } catch {
        // a UI hook's failure must not fail the call
      }
    }
  };
}

/**
 * Runs `toolName` with `args`.
 *
 * @returns the outcome (results, pending hand-offs and failures are all values).
 * @throws `context.signal.reason` when the framework aborts the call (a task it created is cancelled first, unless
 *   `onAbort: 'detach'`).
 */
export async function runToolCall(
  rt: CallRuntime,
  toolName: string,
  args: Record<string, unknown> | undefined,
  context: CallContext,
): Promise<ToolOutcome> {
  const { signal } = context;
  if (signal?.aborted) throw signal.reason;
  const update = updater(rt, toolName, context);
  // A link of the framework's signal (one listener on it however many calls share it: Node warns past ten).
  const controller = new LinkedAbort(signal);
  let stopped = false;
  const starting: StartingCall = {
    toolName,
    toolCallId: context.toolCallId,
    declined: [],
    stop: () => {
      stopped = true;
      controller.abort(new InputStop('a question could not be answered'));
    },
  };
  const endStart = rt.router.beginStart(starting);
  let start: Awaited<ReturnType<TaskClient['startTool']>>;
  try {
    start = await rt.client.startTool(toolName, args, {
      signal: controller.signal,
      onProgress: update && ((progress) => update({ progress })),
    });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (stopped)
      return {
        kind: 'error',
        error: new TaskToolError(
          'INPUT_REQUIRED',
          inputNeededText(toolName, starting.declined.join('; ')),
          undefined,
          undefined,
          { cause: error },
        ),
      };
    return { kind: 'error', error: toolErrorFrom(toolName, error) };
  } finally {
    endStart();
    controller.dispose();
  }
  const note =
    starting.declined.length > 0 ? inputNeededText(toolName, starting.declined.join('; ')) : undefined;
  if (start.resultType === 'complete') return outcomeOfResult(toolName, start.result, note);
  const entry = rt.registry.track(start.task, toolName);
  entry.declined.push(...starting.declined);
  rt.router.attach(entry, context.toolCallId);
  if (update) {
    const handle = start.task;
    const onStatus = (): void =>
      update({ taskId: handle.taskId, status: handle.task.status, statusMessage: handle.task.statusMessage });
    onStatus();
    handle.on('status', onStatus);
    const forget = (): void => void handle.off('status', onStatus);
    handle.whenSettled(forget);
    return awaitOutcome(rt, entry, signal, rt.options.onAbort === 'cancel').finally(forget);
  }
  return awaitOutcome(rt, entry, signal, rt.options.onAbort === 'cancel');
}

/**
 * Waits for a tracked task for at most `maxWaitMs`: its outcome, or a "pending" result.
 *
 * @throws `signal.reason` on abort (after `tasks/cancel` when `cancelOnAbort`).
 */
export async function awaitOutcome(
  rt: CallRuntime,
  entry: TrackedTask,
  signal: AbortSignal | undefined,
  cancelOnAbort: boolean,
): Promise<ToolOutcome> {
  let end;
  try {
    end = await waitForTask(entry.handle, rt.options.maxWaitMs, signal);
  } catch (reason) {
    if (cancelOnAbort) await entry.handle.cancel().catch(() => undefined); // a failed cancel leaves the task known by id
    throw reason;
  }
  if ('timedOut' in end)
    return { kind: 'pending', pending: pendingOf(entry.toolName, entry.handle, rt.options.prefix) };
  return outcomeOfTask(entry, end.settled);
}

/** Maps a settled task to an outcome, with the declined questions noted. */
export function outcomeOfTask(
  entry: TrackedTask,
  settled: { ok: true; value: CallToolResult } | { ok: false; error: unknown },
): ToolOutcome {
  const { toolName, handle } = entry;
  const note =
    entry.declined.length > 0 ? inputNeededText(toolName || undefined, entry.declined.join('; ')) : undefined;
  if (settled.ok) return outcomeOfResult(toolName, settled.value, note, handle.taskId);
  if (entry.inputStopped && note)
    return {
      kind: 'error',
      error: new TaskToolError('INPUT_REQUIRED', note, handle.taskId, undefined, { cause: settled.error }),
    };
  return { kind: 'error', error: toolErrorFrom(toolName, settled.error, handle.taskId) };
}
