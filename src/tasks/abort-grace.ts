/**
 * A creation request the caller aborted (or the client closed) after it left the client may still have started a
 * task. Aborting the POST would throw that answer away, so the request keeps its own signal: after the abort its
 * response is read for a bounded time, and only then is the request abandoned with {@link OutcomeUnknownError} (or,
 * when the abort was `close()`, a {@link ClientClosedError} with `outcomeUnknown`). Both eras use it.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation)
 *
 * @module
 * @internal
 */
import { ClientClosedError, OutcomeUnknownError } from '../errors.js';
import { isLostBeforeResponse } from '../internal/lost-request.js';
import { holdableLink, isUnwritten, LinkedAbort } from '../internal/abort.js';

/** Default time, in ms, to keep reading a creation response after the caller aborted or the client closed. */
export const DEFAULT_ABORT_GRACE_MS = 5_000;

/** A response read to the end, and whether the caller aborted meanwhile. */
export interface GraceOutcome<T> {
  value: T;
  /** The caller's abort reason, when the caller aborted while the request was in flight. */
  abortReason?: unknown;
  aborted: boolean;
}

/** The error of a request abandoned after an abort with `reason`: its outcome is unknown. */
function abandoned(method: string, reason: unknown): Error {
  const unknown = new OutcomeUnknownError(method, { cause: reason });
  return reason instanceof ClientClosedError
    ? new ClientClosedError({ method }, { cause: unknown })
    : unknown;
}

/**
 * Runs `send` with a signal that a caller's abort reaches only as described here (none when the caller gave none):
 * the call's own link with its aborts held back meanwhile ({@link LinkedAbort.hold}), or else a link of its own. A
 * caller abort before anything was sent, while `inFlight()` says no request is on its way (a retry's backoff), or
 * while the transport has marked the request unwritten (its headers still pending, `markUnwritten`), rejects with
 * `signal.reason` at once: nothing reached the server, so there is no outcome to wait for. After a request left, its
 * response still counts if it arrives within `graceMs` (ms).
 *
 * @throws {@link OutcomeUnknownError} (the abort reason as `cause`) when no response arrived within the grace, or
 *   the request was lost after the abort; {@link ClientClosedError} with `outcomeUnknown` instead when the abort
 *   reason was a `ClientClosedError`; the request's own error otherwise.
 */
export async function withAbortGrace<T>(
  method: string,
  send: (signal: AbortSignal | undefined) => Promise<T>,
  signal: AbortSignal | undefined,
  graceMs: number,
  inFlight: () => boolean = () => true,
): Promise<GraceOutcome<T>> {
  if (signal?.aborted) throw signal.reason;
  // Without a caller's signal nothing can abort the request early: no signal of its own is needed.
  if (signal === undefined) return { value: await send(undefined), aborted: false };
  // A client's call holds its own link's aborts back; any other signal gets a link of its own to hold.
  const found = holdableLink(signal);
  const link = found ?? new LinkedAbort(signal).holdable();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let expired: Error | undefined;
  link.hold((reason) => {
    // Between attempts (a retry's backoff), or before the request is written (awaiting getHeaders()), nothing is on
    // its way to the server: stop at once.
    if (!inFlight() || isUnwritten(link.signal)) return link.land(reason);
    timer = setTimeout(() => link.land((expired = abandoned(method, reason))), graceMs);
  });
  try {
    const value = await send(link.signal);
    const requested = link.pending;
    return requested ? { value, aborted: true, abortReason: requested.reason } : { value, aborted: false };
  } catch (error) {
    const requested = link.pending;
    if (requested === undefined || error === requested.reason || error === expired) throw error;
    // A reply that came but could not be read: its outcome is unknown too; close() says so as ClientClosedError.
    if (error instanceof OutcomeUnknownError)
      throw requested.reason instanceof ClientClosedError
        ? new ClientClosedError({ method }, { cause: error })
        : error;
    if (isLostBeforeResponse(error)) throw abandoned(method, requested.reason);
    throw requested.reason;
  } finally {
    clearTimeout(timer);
    link.release(); // an abort still held lands now: the call's signal ends with the caller's reason
    if (found === undefined) link.dispose();
  }
}
