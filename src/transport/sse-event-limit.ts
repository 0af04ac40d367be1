/**
 * The size limit of an SSE reply applies to each event, not to the stream: a long stream of small progress
 * notifications before the response is fine (its duration is bounded by the request's `timeoutMs`), while one event
 * larger than the limit fails as soon as its bytes pass it, before the parser buffers more.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#streamable-http: each SSE event carries
 * one JSON-RPC message; https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation:
 * an event ends at a blank line, lines end in CR LF, LF or CR)
 *
 * @module
 * @internal
 */
import { ResponseTooLargeError } from '../errors.js';

const CR = 0x0d;
const LF = 0x0a;

/**
 * A byte meter for one SSE stream. Call it with every chunk, in order, before the chunk is parsed; it counts the
 * bytes of the event being received (field names, values and line ends; comments and other fields too, since they
 * are buffered alike) and starts again after each blank line.
 *
 * @param limitBytes - the most bytes one event may take, e.g. `maxResponseBytes`.
 * @throws {@link ResponseTooLargeError} (from the returned function) once one event passes `limitBytes`.
 */
export function sseEventMeter(limitBytes: number, method: string): (bytes: Uint8Array) => void {
  let pending = 0; // bytes of the event so far
  let lineEmpty = true; // nothing but a line end since the last line end
  let afterCr: 'no' | 'line' | 'blank' = 'no'; // the previous byte was a CR ending a line, or a blank line
  return (bytes) => {
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!;
      const previousCr = afterCr;
      afterCr = 'no';
      if (byte === LF && previousCr !== 'no') {
        // The LF of a CR LF pair: the same line end as the CR (in another chunk, possibly).
        if (previousCr === 'line') pending++;
      } else if (byte === CR || byte === LF) {
        if (lineEmpty) {
          pending = 0; // a blank line: the event ended (dispatched, or empty)
          if (byte === CR) afterCr = 'blank';
          continue;
        }
        lineEmpty = true;
        if (byte === CR) afterCr = 'line';
        pending++;
      } else {
        lineEmpty = false;
        pending++;
      }
      if (pending > limitBytes) throw new ResponseTooLargeError(method, limitBytes);
    }
  };
}
