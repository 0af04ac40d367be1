/**
 * Following one task to its end, as `call` and `watch` do: a status line per change (and the live line on a TTY),
 * the record kept up to date, questions answered, Ctrl-C once to cancel and twice to stop waiting, and the
 * outcome turned into an exit code.
 *
 * @module
 */
import {
  isMcpClientError,
  safeLine,
  type CallToolResult,
  type InputRequest,
  type TaskHandle,
} from 'mcp-tasks-client';
import {
  AnswerNotDeliveredError,
  ExitCode,
  InterruptedError,
  UnanswerableError,
  type ExitCodeValue,
} from './exit-codes.js';
import { exampleValue, readFields } from './input/schema-fields.js';
import { afterStop, cancelSentence, type CancelState } from './cancel-state.js';
import { explainError } from './explain-error.js';
import { comeBack } from './resume-hint.js';
import type { Session } from './session.js';

/** Default time to wait for the final status after Ctrl-C, ms. */
export const DEFAULT_CANCEL_WAIT_MS = 3_000;

/** Options of {@link followTask}. */
export interface FollowOptions {
  /** ms to keep polling after Ctrl-C for the server's final status. @default DEFAULT_CANCEL_WAIT_MS */
  cancelWaitMs?: number;
}

type Outcome =
  | { kind: 'result'; result: CallToolResult }
  | { kind: 'error'; error: unknown }
  | { kind: 'stopped'; error: Error }
  | { kind: 'left' };

/** Whether an error that ended following is the task's end as the server told it (the client records it). */
function isTaskEnd(error: unknown): boolean {
  return ['TASK_FAILED', 'TASK_CANCELLED', 'TASK_EXPIRED', 'TASK_NOT_FOUND'].some((code) =>
    isMcpClientError(error, code as 'TASK_FAILED'),
  );
}

/**
 * The answer to a `sampling/createMessage` question shown in the example answers file: a `CreateMessageResult` as the
 * answers file takes it (`role`, `content`, `model`, and the optional `stopReason`).
 * https://modelcontextprotocol.io/specification/2025-11-25/client/sampling
 */
const SAMPLING_EXAMPLE = {
  role: 'assistant',
  content: { type: 'text', text: 'The reply the server asked for' },
  model: 'example-model',
  stopReason: 'endTurn',
};

/**
 * An answers file that would answer `request`, for the hint after an unanswerable question: every required field of
 * a form (all fields when none is required). With `byField` the file answers by form field name, which also matches
 * the next run's question (2025-11-25 servers number their questions per connection).
 */
function exampleAnswers(key: string, request: InputRequest | undefined, byField: boolean): string {
  if (request?.method === 'elicitation/create' && request.params.mode !== 'url') {
    const fields = readFields(request.params.requestedSchema);
    const shown = fields.some((f) => f.required) ? fields.filter((f) => f.required) : fields;
    const content = Object.fromEntries(shown.map((f) => [f.name, exampleValue(f)]));
    return JSON.stringify(byField && shown.length > 0 ? content : { [key]: { action: 'accept', content } });
  }
  if (request?.method === 'sampling/createMessage')
    return `${JSON.stringify({ [key]: SAMPLING_EXAMPLE })} (or answer it with --sampling-command <cmd>)`;
  return JSON.stringify({ [key]: { action: 'accept' } });
}

/**
 * The end of the hint after a question this run could not answer, the same for a task's question and for one asked
 * before the call was answered: `where answers.json is, for example:` and a file that would answer it. A
 * 2025-11-25 server's questions are answered by form field name (it numbers its questions per connection).
 */
export function answersFileExample(
  error: UnanswerableError,
  request: InputRequest | undefined,
  era: string | undefined,
): string {
  return `where answers.json is, for example:\n  ${exampleAnswers(error.key, request ?? error.request, era === 'legacy')}`;
}

/**
 * Follows `handle` until it ends, this run cannot answer a question, or the person leaves it running.
 *
 * @returns the exit code for a completed task (0, or 1 for `isError`).
 * @throws the task's error (failed, cancelled, expired, unknown), {@link UnanswerableError}, {@link InterruptedError}
 *   or a transport error; each maps to its exit code.
 */
export async function followTask(
  session: Session,
  handle: TaskHandle<CallToolResult>,
  options: FollowOptions = {},
): Promise<ExitCodeValue> {
  const { output, interrupt, answerer } = session;
  const cancelWaitMs = options.cancelWaitMs ?? DEFAULT_CANCEL_WAIT_MS;
  const taskId = handle.taskId;
  const ctx = { target: session.target, era: session.client.era };
  let nextPollAt = Date.now() + handle.pollIntervalMs;

  handle.on('status', (task) => {
    output.emit({
      event: 'status',
      taskId,
      status: task.status,
      statusMessage: task.statusMessage,
      elapsedMs: Date.now() - output.startedAt,
    });
  });
  // Once the second Ctrl-C printed the last word, the session's close (aborting a poll or the cancel in flight) adds nothing.
  let leaving = false;
  handle.on(
    'error',
    (error) =>
      leaving ||
      output.emit({
        event: 'poll-error',
        taskId,
        // In words, as for a failed call: "connection refused by host:port: …", not "fetch failed".
        message: explainError(error, session.target),
        ...retryAfter(error),
      }),
  );
  void (async () => {
    while (!handle.done) {
      try {
        await handle.refresh();
      } catch {
        return;
      }
      nextPollAt = Date.now() + handle.pollIntervalMs;
    }
  })();
  output.startLive(() => ({
    taskId,
    status: handle.status,
    statusMessage: handle.task.statusMessage,
    startedAt: output.startedAt,
    nextPollAt,
  }));

  // What became of this run's tasks/cancel, so every message says exactly that (an ack is intent only).
  let cancel: CancelState = 'not-sent';
  let cancelWhy: string | undefined;
  const left = new Promise<Outcome>((resolve) => {
    interrupt.onPress = (presses) => {
      if (presses >= 2) {
        resolve({ kind: 'left' });
        return;
      }
      output.emit({
        event: 'cancel',
        taskId,
        stage: 'requested',
        via: interrupt.source,
        waitMs: cancelWaitMs,
      });
      cancel = 'pending';
      handle.cancel({ waitMs: cancelWaitMs }).then(
        () => {
          cancel = 'acknowledged';
          if (!handle.done)
            output.emit({ event: 'cancel', taskId, stage: 'acknowledged', via: interrupt.source });
        },
        (error: unknown) => {
          if (leaving) return;
          cancel = 'not-delivered';
          cancelWhy = codeOf(error);
          output.warn(`warning: tasks/cancel failed: ${(error as Error).message}`);
        },
      );
    };
  });
  const stopped = answerer
    ? answerer.stopped.then((error): Outcome => ({ kind: 'stopped', error }))
    : new Promise<Outcome>(() => undefined);
  const outcome = await Promise.race<Outcome>([
    handle.result().then(
      (result): Outcome => ({ kind: 'result', result }),
      (error: unknown): Outcome => ({ kind: 'error', error }),
    ),
    stopped,
    left,
  ]);
  output.stopLive();

  switch (outcome.kind) {
    case 'result': {
      const exitCode = outcome.result.isError === true ? ExitCode.ToolError : ExitCode.Completed;
      output.emit({ event: 'result', taskId, exitCode, result: outcome.result });
      return exitCode;
    }
    case 'error': {
      // Not an outcome (the server died, the network went away, a cancel or answer not delivered): the task may
      // still be running there. The client's store already holds what the server last said.
      if (isMcpClientError(outcome.error, 'CANCEL_NOT_CONFIRMED')) {
        output.emit({
          event: 'hint',
          message: `Task ${taskId} was still ${handle.status} after ${cancelWaitMs} ms; ${cancelSentence(cancel, cancelWhy)}. ${afterStop(ctx, taskId, cancel)}`,
        });
      } else if (isMcpClientError(outcome.error, 'INVALID_RESPONSE') && handle.status === 'completed') {
        // The server's word was "completed": nothing is running and nothing was lost, only its result is unreadable.
        output.emit({
          event: 'hint',
          message: `The server reported task ${safeLine(taskId)} completed, but its result could not be read (${safeLine((outcome.error as Error).message)}). Nothing more was sent about it; see what the server keeps with:\n${comeBack(ctx, taskId, 'status')}`,
        });
      } else if (!isTaskEnd(outcome.error)) {
        // A 2025-11-25 task belongs to this connection, which ends with this process: cancel it rather than orphan it.
        if (ctx.era === 'legacy' && cancel === 'not-sent')
          [cancel, cancelWhy] = await cancelOrphan(session, handle);
        output.emit({
          event: 'hint',
          message: `Lost contact while following task ${taskId} (last status: ${handle.status}); ${cancelSentence(cancel, cancelWhy)}. ${afterStop(ctx, taskId, cancel)}`,
        });
      }
      throw outcome.error;
    }
    case 'stopped': {
      if (outcome.error instanceof UnanswerableError) {
        const request =
          outcome.error.request ??
          (handle.task.status === 'input_required'
            ? handle.task.inputRequests[outcome.error.key]
            : undefined);
        const example = answersFileExample(outcome.error, request, ctx.era);
        // A 2025-11-25 task belongs to this connection, which ends with this process: nobody could answer it later.
        const cancelled =
          ctx.era === 'legacy' ? `${cancelSentence(...(await cancelOrphan(session, handle)))}.` : '';
        output.emit({
          event: 'hint',
          message:
            ctx.era === 'legacy'
              ? `Task ${taskId} is waiting for input. ${comeBack(ctx, taskId, 'watch')} ${cancelled} Run the call again with --answers answers.json, ${example}`
              : `Task ${taskId} is still waiting for input. Answer it later with:\n${comeBack(ctx, taskId, 'watch', '--answers answers.json')}\n${example}`,
        });
        throw outcome.error;
      }
      // A prompt's own failure, not the server's.
      if (!isMcpClientError(outcome.error)) throw outcome.error;
      // An answer this run could not deliver (the server refused its tasks/update, or it never arrived).
      const cancelled: [CancelState, string?] =
        ctx.era === 'legacy' ? await cancelOrphan(session, handle) : ['not-sent'];
      const stopped = new AnswerNotDeliveredError(
        taskId,
        `the answer to task ${safeLine(taskId)} could not be delivered (${safeLine(outcome.error.message)}); last status: ${handle.status}; ${cancelSentence(...cancelled)}`,
        TASK_CANCEL_KIND[cancelled[0]],
        { cause: outcome.error },
      );
      output.emit({
        event: 'hint',
        message: `Task ${safeLine(taskId)}: ${cancelSentence(...cancelled)}. See it with:\n${comeBack(ctx, taskId, 'status')}\n${afterStop(ctx, taskId, cancelled[0])}`,
      });
      throw stopped;
    }
    case 'left':
      leaving = true;
      // The first press already asked for cancellation: the server may be ending the task; we only stop watching.
      output.emit({
        event: 'cancel',
        taskId,
        stage: 'left-running',
        via: interrupt.source,
        cancelRequested: handle.cancelRequested,
        cancel,
      });
      output.emit({
        event: 'hint',
        message: `Stopped following task ${taskId}; ${cancelSentence(cancel, cancelWhy)}. ${afterStop(ctx, taskId, cancel)}`,
      });
      throw new InterruptedError(
        `interrupted; stopped following task ${taskId}; ${cancelSentence(cancel, cancelWhy)}`,
      );
  }
}

/** This run's cancel as the `taskCancel` of the `--json` error event (the names `TaskCancelOutcome` uses). */
const TASK_CANCEL_KIND: Record<CancelState, string> = {
  acknowledged: 'cancel-requested',
  pending: 'cancel-not-confirmed',
  'not-delivered': 'cancel-not-delivered',
  'not-sent': 'not-sent',
};

/** Asks a 2025-11-25 server to cancel a task this run leaves behind (nobody could answer or follow it later). */
async function cancelOrphan(
  session: Session,
  handle: TaskHandle<CallToolResult>,
): Promise<[CancelState, string?]> {
  try {
    // A handle that stopped following (lost contact) sends nothing on cancel(): ask the server directly then.
    if (handle.done) await session.client.request('tasks/cancel', { taskId: handle.taskId });
    else await handle.cancel();
    return ['acknowledged'];
  } catch (error) {
    return ['not-delivered', codeOf(error)];
  }
}

/** The server's `Retry-After` on a failed poll, and the earliest next poll it means. */
function retryAfter(error: unknown): { retryAfterMs?: number; nextPollAt?: string } {
  const ms = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) return {};
  const at = Date.now() + ms;
  return { retryAfterMs: ms, nextPollAt: at <= 8.64e15 ? new Date(at).toISOString() : 'the end of time' };
}

/** The error's stable code, for a message. */
function codeOf(error: unknown): string {
  return isMcpClientError(error) ? String(error.code) : 'unknown error';
}
