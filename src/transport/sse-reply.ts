/**
 * Reading one request's SSE reply: notifications go to `onNotification`, comments and other event types are
 * skipped, and the response to the request settles it even if the stream lingers. A stream that ends first is a lost
 * request, unless its connection broke right after this request's whole response arrived: the response is then used,
 * and the break reported (`onViolation`).
 *
 * A JSON-RPC request on the stream (servers "MUST NOT send independent JSON-RPC requests on this stream" in
 * 2026-07-28; their questions come embedded as `inputRequests`) and a response carrying another request's id are
 * reported (`onViolation`, naming the method or id, escaped) and skipped like an unreadable event. A request is
 * never answered: a client "MUST NOT send JSON-RPC responses" (§ Sending Messages), and its handlers answer only
 * embedded questions.
 *
 * One bad event does not end the reading: an event whose data is not JSON, or a notification that does not parse
 * (e.g. `notifications/progress` with `params: "nope"`), cannot be the response to this request, so it is reported
 * (`onViolation`) and skipped, and the stream is read on to the response — ending it there would lose a response
 * (a `CreateTaskResult`) that may still come, and with it the task it names. Skipping is bounded: by the
 * per-event size limit, the request's `timeoutMs`, and {@link MAX_SKIPPED_SSE_EVENTS}. Only a malformed message
 * carrying this request's id settles it, as {@link InvalidResponseError} with `unreadableReply` (a creation's
 * caller then gets `OutcomeUnknownError`). (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * § Sending Messages: the stream "SHOULD eventually include one JSON-RPC response"; it may carry notifications first)
 *
 * @module
 * @internal
 */
import { createParser } from 'eventsource-parser';
import { InvalidResponseError, StreamEndedError } from '../errors.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import { printableExcerpt } from '../protocol/printable.js';
import type { HttpReply } from './http-sender.js';
import { classifyMessage, idMatches, settleResponse } from './messages.js';
import { excerpt, readTextChunks } from './read-body.js';
import { sseEventMeter } from './sse-event-limit.js';
import type { TransportRequestOptions } from './transport.js';

/**
 * The most events that cannot be the response (not JSON, malformed notifications, server requests, responses to
 * other requests) skipped on one stream before the request fails
 * with {@link StreamEndedError} (a lost request: its outcome is unknown), the last of them as its `cause`.
 */
export const MAX_SKIPPED_SSE_EVENTS = 100;

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A message's `id` for a report: its JSON, escaped and cut (a hostile id never reaches a log raw). */
const shownId = (id: unknown): string => printableExcerpt(JSON.stringify(id) ?? String(id), 64);

/** Reads `res` (an SSE reply to `message`) to the response; see the module docs. */
export async function readSseReply(
  res: HttpReply,
  message: JsonRpcRequest,
  options: TransportRequestOptions,
  signal: AbortSignal,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  const method = message.method;
  if (!res.body) throw new StreamEndedError(method);
  let settled: { result: Record<string, unknown> } | { error: unknown } | undefined;
  let skipped: InvalidResponseError | undefined;
  let skippedCount = 0;
  const skip = (detail: string, cause?: unknown): void => {
    skipped = new InvalidResponseError(method, detail, undefined, { cause });
    options.onViolation?.(`${method}: skipped an SSE event on the response stream: ${detail}`);
    if (++skippedCount >= MAX_SKIPPED_SSE_EVENTS) {
      settled = {
        error: new StreamEndedError(method, {
          cause: new InvalidResponseError(
            method,
            `${skippedCount} unreadable SSE events before the response; last: ${detail}`,
            undefined,
            { cause: skipped },
          ),
        }),
      };
    }
  };
  // An event flushed after the connection broke: used only when it is this request's whole response.
  let afterBreak = false;
  const settleAfterBreak = (data: string): void => {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      return;
    }
    const incoming = classifyMessage(value);
    if ((incoming.kind !== 'result' && incoming.kind !== 'error') || !idMatches(incoming.id, message.id))
      return;
    try {
      settled = { result: settleResponse(incoming, message.id, method, res.status) };
    } catch (error) {
      settled = { error };
    }
  };
  const parser = createParser({
    onEvent: (event) => {
      if (settled || (event.event && event.event !== 'message')) return;
      if (afterBreak) return settleAfterBreak(event.data);
      let value: unknown;
      try {
        value = JSON.parse(event.data);
      } catch (error) {
        return skip(`SSE data is not JSON: ${excerpt(event.data, 80)}`, error);
      }
      const incoming = classifyMessage(value);
      if (incoming.kind === 'notification') return options.onNotification?.(incoming.notification);
      const id = isObject(value) ? value.id : undefined;
      if (incoming.kind === 'request')
        return skip(
          `a JSON-RPC request ${printableExcerpt(incoming.method, 100)} (id ${shownId(id)}), which servers must not send on a response stream; not answered`,
        );
      if (
        (incoming.kind === 'result' || incoming.kind === 'error') &&
        incoming.id != null &&
        !idMatches(incoming.id, message.id)
      )
        return skip(`a response for another request (id ${shownId(incoming.id)})`);
      if (incoming.kind === 'invalid') {
        // Malformed: it settles the request only when it carries the request's id; with another id it is not ours,
        // and without one (a malformed notification, `{}`, a bare array) it cannot be told to be ours: skipped.
        if ((typeof id === 'string' || typeof id === 'number') && !idMatches(id, message.id))
          return skip(`${incoming.detail} for another request (id ${shownId(id)})`);
        if (id === undefined || !idMatches(id as string | number, message.id))
          return skip(`${incoming.detail}: ${excerpt(event.data, 80)}`);
      }
      try {
        settled = { result: settleResponse(incoming, message.id, method, res.status) };
      } catch (error) {
        settled = { error };
      }
    },
  });
  let endsWithCr = false;
  // The limit is per event (one JSON-RPC message), not per stream; the stream's time is bounded by timeoutMs.
  try {
    for await (const chunk of readTextChunks(
      res.body,
      Number.POSITIVE_INFINITY,
      method,
      sseEventMeter(maxBytes, method),
    )) {
      parser.feed(chunk);
      if (chunk.length > 0) endsWithCr = chunk.endsWith('\r');
      if (settled || signal.aborted) break; // leaving the loop cancels the stream
    }
  } catch (error) {
    if (!(error instanceof StreamEndedError) || settled || signal.aborted) throw error;
    // The connection broke mid-body. Whatever the parser still holds arrived in full before the break: a last line
    // whose CR it held back (an LF might have followed), or an event whose blank line never came. Ending that line
    // and that event dispatches it; if it is this request's whole response, the response is used (as for a JSON
    // body, see `responseBeforeBreak`), and the break is reported. Anything else (a cut line that is not JSON, a
    // notification) is not acted on: the request is lost, as before.
    afterBreak = true;
    parser.feed('\n\n');
    if (!settled) throw error;
    options.onViolation?.(
      `${method}: the connection broke after the whole response had arrived (${excerpt(String(error.cause ?? error), 80)}); the response is used`,
    );
  }
  // A stream that ends in a bare CR has finished its last line, but the parser holds the CR back in case an LF
  // follows. Feeding that LF now (CR LF is the same line end) dispatches an event the server completed; an event
  // without its blank line stays undispatched, as the SSE spec requires. (Found by test/fuzz/transport.test.ts.)
  if (!settled && !signal.aborted && endsWithCr) parser.feed('\n');
  if (!settled) {
    if (signal.aborted) throw signal.reason;
    throw new StreamEndedError(method, skipped ? { cause: skipped } : undefined);
  }
  if ('error' in settled) throw settled.error;
  return settled.result;
}
