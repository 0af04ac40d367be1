/**
 * One MRTR round: surface the `inputRequests`, wait until every key has an answer, and hand back the
 * `inputResponses` for the retry.
 *
 * @module
 * @internal
 */
import { InputRequiredError, TooManyInputRequestsError } from '../errors.js';
import { setOwn } from '../protocol/exact-keys.js';
import type { InputRequests, InputResponses } from '../protocol/input.js';
import { withListenerSink } from '../internal/safe-emitter.js';
import { failureCarrier } from '../internal/safe-emitter.js';
import {
  InputScope,
  MAX_INPUT_REQUESTS_PER_REPLY,
  type InputHandlers,
  type InputRequiredEvent,
} from './input-broker.js';

/** Inputs of {@link answerRound}. */
export interface RoundOptions {
  method: string;
  inputRequests: InputRequests;
  handlers: InputHandlers | undefined;
  /** Emits to the client's `inputRequired` listeners. */
  emit: (event: InputRequiredEvent) => void;
  /** Number of `inputRequired` listeners on the client. */
  listenerCount: () => number;
  signal: AbortSignal | undefined;
}

/**
 * Resolves with an answer for every key. Each round is its own scope.
 *
 * @throws {@link InputRequiredError} when a key has neither a handler nor a listener;
 *   {@link TooManyInputRequestsError} when the round holds more than {@link MAX_INPUT_REQUESTS_PER_REPLY} keys
 *   (none of them asked).
 * @throws a handler's error, what an `inputRequired` listener threw (or its promise rejected with), or
 *   `signal.reason` on abort.
 */
export function answerRound({
  method,
  inputRequests,
  handlers,
  emit,
  listenerCount,
  signal,
}: RoundOptions): Promise<InputResponses> {
  const keys = Object.keys(inputRequests);
  const responses: InputResponses = {};
  return new Promise<InputResponses>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    if (keys.length === 0) {
      resolve(responses);
      return;
    }
    if (keys.length > MAX_INPUT_REQUESTS_PER_REPLY) {
      reject(new TooManyInputRequestsError(method, 'reply', MAX_INPUT_REQUESTS_PER_REPLY, keys.length));
      return;
    }
    const onAbort = (): void => finish(() => reject(signal?.reason));
    let done = false;
    const finish = (action: () => void): void => {
      if (done) return;
      done = true;
      signal?.removeEventListener('abort', onAbort);
      action();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const scope = new InputScope({
      method,
      taskId: undefined,
      handlers,
      deliver: async (key, response) => {
        setOwn(responses, key, response); // a key "__proto__" stays a key, never the prototype
        if (keys.every((k) => Object.hasOwn(responses, k))) finish(() => resolve(responses));
      },
      emit,
      onHandlerError: (error) => finish(() => reject(error)),
    });
    const unanswerable = Object.fromEntries(
      Object.entries(inputRequests).filter(
        ([, request]) => !scope.canHandle(request) && listenerCount() === 0,
      ),
    );
    if (Object.keys(unanswerable).length > 0) {
      finish(() => reject(new InputRequiredError(method, unanswerable)));
      return;
    }
    // A listener that throws or rejects fails the round (and the call) with its error: no round waits on it.
    withListenerSink(
      (error) => finish(() => reject(failureCarrier(error, "an 'inputRequired' listener"))),
      () => scope.offer(inputRequests),
    );
  });
}
