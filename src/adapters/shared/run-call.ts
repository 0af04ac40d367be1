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
import type { TaskHandle } from '../../tasks/task-handle.js';
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
 * @throws `context.signal.reason` when the framework aborts the call, also while the creating request is on its way:
 *   a task it created is cancelled first, or with `onAbort: 'detach'` left running and known by id (to the task
 *   tools, and to `onStatus` with its `taskId`).
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
      if (controller.signal.aborted) return; // the framework's abort came first: that is what stopped the call
      stopped = true;
      controller.abort(new InputStop('a question could not be answered'));
    },
  };
  const endStart = rt.router.beginStart(starting);
  // The task the server created, as soon as the client has it: also when the call then rejects (an abort while the
  // creating request was on its way), so that a task the adapter's `onAbort` leaves running is still known by id.
  let created: TaskHandle<CallToolResult> | undefined;
  let start: Awaited<ReturnType<TaskClient['startTool']>>;
  try {
    start = await rt.client.startTool(toolName, args, {
      signal: controller.signal,
      onAbort: rt.options.onAbort,
      onTask: (handle) => void (created = handle),
      onProgress: update && ((progress) => update({ progress })),
    });
  } catch (error) {
    const detached = created !== undefined && rt.options.onAbort === 'detach' && !created.done;
    if (stopped && detached && created) {
      // The router stopped the call (a question nobody could answer), not the framework: the task cannot go on.
      created.cancel().catch(() => undefined); // a failed cancel leaves it recorded (and reported, below, by id)
    } else if (detached && created) {
      // Left running per `onAbort: 'detach'`: known to the task tools and to `onStatus`, as after the creation.
      adopt(rt, created, toolName, starting.declined, context.toolCallId, update);
    }
    if (signal?.aborted) throw signal.reason;
    if (stopped)
      return {
        kind: 'error',
        error: new TaskToolError(
          'INPUT_REQUIRED',
          inputNeededText(toolName, starting.declined.join('; ')),
          created?.taskId,
          undefined,
          { cause: error },
        ),
      };
    return { kind: 'error', error: toolErrorFrom(toolName, error, created?.taskId) };
  } finally {
    endStart();
    controller.dispose();
  }
  const note =
    starting.declined.length > 0 ? inputNeededText(toolName, starting.declined.join('; ')) : undefined;
  if (start.resultType === 'complete') return outcomeOfResult(toolName, start.result, note);
  const handle = start.task;
  const { entry, forget } = adopt(rt, handle, toolName, starting.declined, context.toolCallId, update);
  return awaitOutcome(rt, entry, signal, rt.options.onAbort === 'cancel').finally(forget);
}

/**
 * Makes a task the call created known by id: tracked for the task tools, its questions routed, its status sent to
 * `update` (the first one at once, with its `taskId`) until `forget` is called or it settles.
 */
function adopt(
  rt: CallRuntime,
  handle: TaskHandle<CallToolResult>,
  toolName: string,
  declined: readonly string[],
  toolCallId: string | undefined,
  update: ReturnType<typeof updater>,
): { entry: TrackedTask; forget: () => void } {
  const entry = rt.registry.track(handle, toolName);
  entry.declined.push(...declined);
  rt.router.attach(entry, toolCallId);
  if (!update) return { entry, forget: () => undefined };
  const onStatus = (): void =>
    update({ taskId: handle.taskId, status: handle.task.status, statusMessage: handle.task.statusMessage });
  onStatus();
  handle.on('status', onStatus);
  const forget = (): void => void handle.off('status', onStatus);
  handle.whenSettled(forget);
  return { entry, forget };
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
