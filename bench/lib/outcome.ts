/**
 * What a client reported for a task that did not complete: its status and the error's message and cause chain
 * (JSON.stringify of an Error keeps only its own enumerable fields, e.g. `{"name":"TaskFailedError"}`).
 */

/** `{ message, code?, causes: [message of each cause, outermost first] }` of any thrown value. */
export function errorChain(error: unknown): { message: string; code?: unknown; causes: string[] } {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  const causes: string[] = [];
  let cause = (error as { cause?: unknown } | undefined)?.cause;
  for (let depth = 0; cause !== undefined && depth < 5; depth++) {
    const c = cause as { name?: string; message?: string; code?: unknown; cause?: unknown };
    causes.push(
      `${c.name ?? typeof cause}: ${c.message ?? String(cause)}${c.code !== undefined ? ` (${String(c.code)})` : ''}`,
    );
    cause = c.cause;
  }
  return { message, ...(code !== undefined ? { code } : {}), causes };
}

/** An ext-tasks outcome that is not `completed`: `{ index, taskId, status, message, causes }`. */
export function describeOutcome(
  index: number,
  taskId: string | undefined,
  outcome: { status: string; error?: unknown; task?: unknown },
): Record<string, unknown> {
  const task = outcome.task as { status?: string } | undefined;
  return {
    index,
    taskId,
    status: outcome.status,
    lastServerStatus: task?.status ?? null,
    ...(outcome.error !== undefined ? errorChain(outcome.error) : {}),
  };
}
