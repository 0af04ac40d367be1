/**
 * Volume faults: a long SSE stream of small progress notifications before the honest response, one SSE event larger
 * than any sane limit, and a server that answers every call with another MRTR round. They show that size limits
 * apply per JSON-RPC message and that round limits count exactly.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#streamable-http;
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr)
 *
 * @module
 */
import type { Fault, FaultRequest } from './fault.js';
import { rpcResultReply } from './fault.js';
import { sseFrame, type WireReply } from './wire-reply.js';

const SSE_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' };

function progressToken(request: FaultRequest): string | number {
  const token = (request.params._meta as { progressToken?: unknown } | undefined)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : 'not-yours';
}

/**
 * `count` small `notifications/progress` events (about 120 bytes each, written in batches of 1,000), then the honest
 * response as the last event.
 */
export function sseManySmallEvents(count: number): Fault {
  return {
    name: `SSE stream of ${count} small notifications before the response`,
    async reply(request, next): Promise<WireReply> {
      const honest = await next();
      if (honest.kind !== 'json') return honest;
      const token = progressToken(request);
      return {
        kind: 'stream',
        status: 200,
        headers: SSE_HEADERS,
        produce: async (write, signal) => {
          for (let from = 1; from <= count && !signal.aborted; from += 1_000) {
            let batch = '';
            for (let n = from; n < Math.min(from + 1_000, count + 1); n++) {
              batch += sseFrame({
                jsonrpc: '2.0',
                method: 'notifications/progress',
                params: { progressToken: token, progress: n, total: count },
              });
            }
            await write(batch);
          }
          if (!signal.aborted) await write(sseFrame(honest.body));
        },
      };
    },
  };
}

/**
 * One `notifications/progress` event whose `message` is `bytes` long, written in 64 KiB pieces; then the stream stays
 * open without the response, so the only way it ends is the client closing it (a client that read past its limit
 * must close; a server that finished writing first could not tell a close from a completed reply).
 */
export function sseOversizeEvent(bytes: number): Fault {
  return {
    name: `SSE event of ${bytes} bytes`,
    async reply(request, next): Promise<WireReply> {
      const honest = await next();
      if (honest.kind !== 'json') return honest;
      const frame = sseFrame({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: progressToken(request), progress: 1, message: 'x'.repeat(bytes) },
      });
      return {
        kind: 'stream',
        status: 200,
        headers: SSE_HEADERS,
        produce: async (write, signal) => {
          for (let at = 0; at < frame.length && !signal.aborted; at += 65_536)
            await write(frame.slice(at, at + 65_536));
          if (!signal.aborted)
            await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        },
      };
    },
  };
}

/**
 * Answers every matching request with a new MRTR round: `keys` form questions under new keys (`q<round>`, then
 * `q<round>-<n>`), and a `requestState`.
 */
export function endlessInputRounds(keys = 1): Fault {
  return {
    name:
      keys === 1 ? 'an MRTR round on every request' : `an MRTR round of ${keys} questions on every request`,
    reply: (request) => {
      const round = request.count + 1;
      const inputRequests: Record<string, unknown> = {};
      for (let n = 0; n < keys; n++)
        inputRequests[n === 0 ? `q${round}` : `q${round}-${n}`] = {
          method: 'elicitation/create',
          params: {
            message: `question ${round}`,
            requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
          },
        };
      return rpcResultReply(request, {
        resultType: 'input_required',
        inputRequests,
        requestState: `round-${round}`,
      });
    },
  };
}
