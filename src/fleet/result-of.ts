/**
 * Awaiting a task another worker follows: the outcome is read from the shared store once the lease holder records
 * it. The store is read every `checkIntervalMs`, and at once when the fleet's stream announces an outcome.
 *
 * @module
 */
import { TaskExpiredError, TaskNotFoundError } from '../errors.js';
import { delay, LinkedAbort } from '../internal/abort.js';
import { durationError } from '../internal/duration.js';
import { settledFromRecord } from '../tasks/decisions.js';
import { parserFor } from '../tasks/result-parsers.js';
import { recordExpiresAt } from '../store/task-record.js';
import type { TaskStore } from '../store/task-store.js';

/** Default interval between two reads of the record, ms. */
export const DEFAULT_RESULT_CHECK_INTERVAL_MS = 1_000;

/** Options of `client.resultOf`. */
export interface ResultOfOptions {
  /** Interval between two reads of the stored record, ms. @default DEFAULT_RESULT_CHECK_INTERVAL_MS */
  checkIntervalMs?: number;
  /** Stops waiting (the task is untouched); rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/** Something that announces recorded outcomes (a running fleet worker); optional. */
export interface OutcomeSource {
  on(event: 'outcome', listener: (detail: { taskId: string; server: string }) => void): unknown;
  off(event: 'outcome', listener: (detail: { taskId: string; server: string }) => void): unknown;
}

/**
 * The outcome of `taskId` on this client's server as recorded in the fleet's store: the result, or the error the
 * lease holder's `result()` rejected with.
 *
 * @throws {@link TaskNotFoundError} (`reason: 'not-recorded'`) when the store has no record of the task (or it was
 *   deleted while waiting): the server is not asked;
 *   {@link TaskExpiredError} when its TTL passes with no outcome recorded; {@link TaskFailedError} /
 *   {@link TaskCancelledError} for those outcomes; `signal.reason` on abort; {@link StoreUnavailableError}.
 */
export async function resultOf<T>(
  store: TaskStore,
  serverKey: string,
  now: () => number,
  taskId: string,
  options: ResultOfOptions = {},
  outcomes?: OutcomeSource,
): Promise<T> {
  if (typeof taskId !== 'string' || taskId.length === 0)
    throw new TypeError(`resultOf: taskId must be a non-empty string, got ${JSON.stringify(taskId)}`);
  const every = options.checkIntervalMs ?? DEFAULT_RESULT_CHECK_INTERVAL_MS;
  const bad = durationError('resultOf', 'checkIntervalMs', every);
  if (bad) throw bad;
  let wake: (() => void) | undefined;
  const onOutcome = (detail: { taskId: string; server: string }): void => {
    if (detail.taskId === taskId && detail.server === serverKey) wake?.();
  };
  outcomes?.on('outcome', onOutcome);
  try {
    for (;;) {
      const record = await store.get(taskId, serverKey);
      if (!record) throw new TaskNotFoundError(taskId, 'not-recorded'); // the server was not asked
      if (record.outcome) {
        const settled = settledFromRecord(
          record,
          parserFor(record.method) as (raw: Record<string, unknown>) => T,
        );
        if (settled.ok) return settled.value;
        throw settled.error;
      }
      const expiresAt = recordExpiresAt(record);
      if (expiresAt !== null && now() >= expiresAt) throw new TaskExpiredError(taskId, expiresAt);
      // A link of the caller's signal: one listener on it however many waits share it (Node warns past ten).
      const link = new LinkedAbort(options.signal);
      wake = () => link.abort(undefined);
      try {
        await delay(every, link.signal).catch(() => undefined);
      } finally {
        link.dispose();
        wake = undefined;
      }
      if (options.signal?.aborted) throw options.signal.reason;
    }
  } finally {
    outcomes?.off('outcome', onOutcome);
  }
}
