/**
 * Re-sending a creation request that got no response, only when that cannot start the same work twice: the caller
 * gave an idempotency key, or the tool says it is idempotent or read-only. Otherwise the caller learns that the
 * outcome is unknown. A request that provably never reached the server (connection refused, host not found) is
 * different: re-sending it cannot start anything twice, so it is retried a few times with a short backoff whatever
 * the key (kind to a server that is restarting), then fails with a {@link NetworkError} that says nothing was sent.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#streamable-http; ext-tasks
 * https://github.com/modelcontextprotocol/ext-tasks § Task Creation)
 *
 * @module
 */
import pRetry from 'p-retry';
import { InvalidResponseError, NetworkError, OutcomeUnknownError, ResponseTooLargeError } from '../errors.js';
import { abortRequested } from '../internal/abort.js';
import { isLostBeforeResponse, neverSent, notSentCode } from '../internal/lost-request.js';
import type { EngineConfig } from '../tasks/config.js';

export { isLostBeforeResponse, neverSent } from '../internal/lost-request.js';

/** Inputs of {@link sendCreation}. */
export interface SendCreationOptions {
  method: string;
  /** Decides (once, on the first lost attempt) whether a re-send is safe. */
  mayResend: () => boolean | Promise<boolean>;
  retry: EngineConfig['creationRetry'];
  /** Aborts the attempts and the waits between them; rejects with its reason. */
  signal: AbortSignal | undefined;
}

/**
 * Runs `attempt` (which must send a new request, with a new id, each time). An attempt that never reached the server
 * is re-sent up to `notSentRetries` times with a short backoff, whatever `mayResend()` says. A lost attempt (sent,
 * no response) is re-sent with exponential backoff and jitter while `mayResend()` allows it.
 *
 * @throws {@link NetworkError} with `notSent: true` when the server could not be reached in any attempt (nothing was
 *   sent); {@link OutcomeUnknownError} (the lost attempt's error as `cause`) when a lost request may not be re-sent,
 *   or every re-send was lost too, or the reply could not be read (`InvalidResponseError.unreadableReply`, or a {@link ResponseTooLargeError}: a reply
 *   over the size limit, as `cause`); otherwise the attempt's own error, or `signal.reason`. Once an abort of
 *   `signal` is requested (held back, see `LinkedAbort.hold`) nothing is re-sent, and a lost attempt is thrown as it
 *   is, for the abort's grace to report.
 */
export async function sendCreation<T>(attempt: () => Promise<T>, options: SendCreationOptions): Promise<T> {
  const { retry, signal } = options;
  // The first attempt runs outside the retry machinery (most calls need no second one); a failure is replayed into it
  // below as if pRetry had made that attempt, with the time it took already spent from `maxRetryTimeMs`.
  if (signal?.aborted) throw signal.reason;
  const startedMs = performance.now();
  let first: { error: unknown; elapsedMs: number };
  try {
    return await attempt();
  } catch (error) {
    first = { error, elapsedMs: performance.now() - startedMs };
  }
  let permitted: boolean | undefined;
  // A response that arrives after an abort still counts: it may be a task the caller must be able to cancel.
  let answered: { value: T } | undefined;
  let unreached = 0; // attempts of the current run of quick re-sends
  let primed: { error: unknown } | undefined = first;
  const tracked = async (): Promise<T> => {
    unreached++;
    if (primed) {
      const { error } = primed;
      primed = undefined;
      throw error; // the first attempt's failure, already seen above
    }
    const value = await attempt();
    answered = { value };
    return value;
  };
  // The retry runs that include the first attempt count its time against `maxRetryTimeMs`, as pRetry would have.
  const firstBudgetMs = Math.max(0, retry.maxRetryTimeMs - first.elapsedMs);
  // Nothing reached the server: re-sending is always safe, so a few quick tries ride out a restart.
  const reachable = (): Promise<T> => {
    unreached = 0;
    return pRetry(tracked, {
      retries: retry.notSentRetries,
      factor: 2,
      minTimeout: retry.notSentMinTimeoutMs,
      maxTimeout: Math.max(retry.notSentMinTimeoutMs, retry.maxTimeoutMs),
      maxRetryTime: primed ? firstBudgetMs : retry.maxRetryTimeMs,
      randomize: true,
      signal,
      shouldRetry: ({ error }) => !abortRequested(signal) && neverSent(error),
    });
  };
  try {
    return await pRetry(reachable, {
      retries: options.retry.retries,
      factor: 2,
      minTimeout: options.retry.minTimeoutMs,
      maxTimeout: options.retry.maxTimeoutMs,
      maxRetryTime: firstBudgetMs,
      randomize: true,
      signal,
      shouldRetry: async ({ error }) => {
        // Once the caller gave up (an abort held back during the creation's grace, or landed) nothing is re-sent,
        // and the `tools/list` that would decide a re-send is not sent either.
        if (abortRequested(options.signal) || !isLostBeforeResponse(error)) return false;
        permitted ??= await options.mayResend();
        return permitted;
      },
    });
  } catch (error) {
    if (answered) return answered.value;
    // Lost, and the caller gave up (before a re-send was decided, during its backoff, or while the lost attempt's
    // answer was read): the work may have started, so the abort's grace (abort-grace.ts) reports the outcome as
    // unknown, with the abort's reason.
    if (abortRequested(options.signal) && isLostBeforeResponse(error)) throw error;
    if (options.signal?.aborted) throw options.signal.reason;
    if (isLostBeforeResponse(error)) throw new OutcomeUnknownError(options.method, { cause: error });
    // The request reached the server but its reply could not be read: what it started is unknown (never re-sent).
    if (error instanceof InvalidResponseError && error.unreadableReply && error.taskId === undefined)
      throw new OutcomeUnknownError(options.method, { cause: error, unreadableReply: error.detail });
    // A reply over the size limit was not read either: it may have named a task, so work may have started.
    if (error instanceof ResponseTooLargeError)
      throw new OutcomeUnknownError(options.method, {
        cause: error,
        unreadableReply: `the response exceeded the ${error.limitBytes}-byte limit`,
      });
    const code = error instanceof NetworkError ? notSentCode(error) : undefined;
    if (code !== undefined)
      throw new NetworkError(options.method, {
        cause: (error as NetworkError).cause ?? error,
        notSent: { code, attempts: unreached },
      });
    throw error;
  }
}
