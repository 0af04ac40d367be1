/**
 * The AI SDK's streaming hook for tools: an `execute` that returns an async iterable gives the AI SDK one
 * preliminary tool result per yield (`tool-result` parts with `preliminary: true` in `streamText` and UI message
 * streams) and takes the last one as the final result the model reads. Here each status or progress update is
 * yielded as a {@link TaskToolProgress}, then the final output.
 *
 * Spec: https://github.com/modelcontextprotocol/ext-tasks (`status`, `statusMessage`).
 *
 * @module
 */
import type { CallContext } from '../shared/run-call.js';
import type { TaskToolUpdate } from '../shared/options.js';
import type { ToolOutcome } from '../shared/outcome.js';

/** A preliminary result: one status or progress update of a running call. Never the final result. */
export interface TaskToolProgress {
  /** Always `"running"`: the call has not ended. */
  status: 'running';
  update: TaskToolUpdate;
}

/**
 * Runs `run` and yields its updates, then `finish(outcome)` (which may throw, ending the stream with the error).
 *
 * @throws what `run` or `finish` throws (the AI SDK turns it into a tool error; an abort reason stays as it is).
 */
export async function* withPreliminaryResults<T>(
  run: (context: CallContext) => Promise<ToolOutcome>,
  context: CallContext,
  finish: (outcome: ToolOutcome) => T,
): AsyncGenerator<TaskToolProgress | T> {
  const queue: TaskToolUpdate[] = [];
  let wake: (() => void) | undefined;
  let ended: { outcome: ToolOutcome } | { error: unknown } | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  run({ ...context, onUpdate: (update) => (queue.push(update), notify()) }).then(
    (outcome) => ((ended = { outcome }), notify()),
    (error: unknown) => ((ended = { error }), notify()),
  );
  for (;;) {
    while (queue.length > 0) yield { status: 'running', update: queue.shift() as TaskToolUpdate };
    if (ended) break;
    await new Promise<void>((resolve) => (wake = resolve));
  }
  if ('error' in ended) throw ended.error;
  yield finish(ended.outcome);
}
