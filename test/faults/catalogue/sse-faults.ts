/**
 * Faults in `text/event-stream` replies: comment lines, one message spread over several `data:` lines, CRLF line
 * ends, a progress notification before the response, chunks split at awkward places, a stream that lingers after the
 * response, one cut before the response, and one that never ends. Each turns the reference server's honest JSON
 * reply into the stream. (WHATWG HTML § Server-sent events)
 *
 * @module
 */
import type { Fault, FaultRequest } from './fault.js';
import { sseFrame, sseReply, type RawWireReply, type StreamWireReply, type WireReply } from './wire-reply.js';

/** The honest JSON-RPC response body, or `undefined` when the honest reply was not JSON. */
function honestBody(reply: WireReply): unknown {
  return reply.kind === 'json' ? reply.body : undefined;
}

/** A `notifications/progress` for the request's own progress token (or a stray token when it sent none). */
function progressFor(request: FaultRequest, progress: number): Record<string, unknown> {
  const meta = request.params._meta as { progressToken?: unknown } | undefined;
  const token =
    typeof meta?.progressToken === 'string' || typeof meta?.progressToken === 'number'
      ? meta.progressToken
      : 'not-yours';
  return {
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: token, progress, total: 2, message: `step ${progress}` },
  };
}

function fromHonest(
  name: string,
  build: (request: FaultRequest, body: unknown) => RawWireReply | StreamWireReply,
): Fault {
  return {
    name,
    async reply(request, next) {
      const honest = await next();
      const body = honestBody(honest);
      return body === undefined ? honest : build(request, body);
    },
  };
}

/** Comment lines (`: keep-alive`) before, between and after the events, and an event of another type. */
export function sseWithComments(): Fault {
  return fromHonest('SSE with comments', (request, body) =>
    sseReply([
      ': welcome\n\n',
      sseFrame(progressFor(request, 1)),
      ': keep-alive\n',
      ': still here\n\n',
      sseFrame({ ignored: true }, { event: 'ping' }),
      sseFrame(body),
      ': bye\n\n',
    ]),
  );
}

/** The response pretty-printed over many `data:` lines (joined with `\n` by the SSE parser). */
export function sseMultilineData(): Fault {
  return fromHonest('SSE multi-line data', (_request, body) =>
    sseReply([sseFrame(JSON.stringify(body, null, 2))]),
  );
}

/** CRLF line ends throughout, with the frames split mid-line (and between `\r` and `\n`). */
export function sseCrlf(): Fault {
  return fromHonest('SSE with CRLF line ends', (request, body) => {
    const text =
      sseFrame(progressFor(request, 1), { eol: '\r\n', event: 'message' }) + sseFrame(body, { eol: '\r\n' });
    const cuts = [3, text.indexOf('\r') + 1, Math.floor(text.length / 2), text.length - 1];
    const chunks: string[] = [];
    let from = 0;
    for (const cut of cuts) {
      chunks.push(text.slice(from, cut));
      from = cut;
    }
    chunks.push(text.slice(from));
    return sseReply(chunks.filter((c) => c.length > 0));
  });
}

/** Two progress notifications (for the request's token), then the response. */
export function sseProgressBeforeResponse(): Fault {
  return fromHonest('SSE progress before the response', (request, body) =>
    sseReply([sseFrame(progressFor(request, 1)), sseFrame(progressFor(request, 2)), sseFrame(body)]),
  );
}

/** The response arrives, but the stream stays open afterwards (the client must settle anyway). */
export function sseLingersAfterResponse(): Fault {
  return fromHonest('SSE lingers after the response', (_request, body) =>
    sseReply([sseFrame(body), ': lingering\n\n'], 'hang'),
  );
}

/**
 * A progress notification, then the stream ends before the response: `'end'` closes it cleanly, `'destroy'` cuts
 * the connection mid-body.
 */
export function sseCutBeforeResponse(how: 'end' | 'destroy' = 'end'): Fault {
  return fromHonest(`SSE ${how === 'end' ? 'ended' : 'cut'} before the response`, (request) =>
    sseReply(
      [sseFrame(progressFor(request, 1)), how === 'destroy' ? 'data: {"jsonrpc":"2.0","id":' : ''],
      how,
    ),
  );
}

/** Only comments and progress, forever, every `everyMs`; never the response. */
export function sseNeverEnds(everyMs = 20): Fault {
  return {
    name: 'SSE stream that never ends',
    reply: (request) => ({
      kind: 'stream',
      status: 200,
      headers: { 'Content-Type': 'text/event-stream' },
      produce: async (write, signal) => {
        for (let n = 1; !signal.aborted; n++) {
          await write(n % 2 === 0 ? ': tick\n\n' : sseFrame(progressFor(request, n)));
          await new Promise<void>((resolve) => {
            const done = (): void => {
              clearTimeout(timer);
              signal.removeEventListener('abort', done);
              resolve();
            };
            const timer = setTimeout(done, everyMs);
            signal.addEventListener('abort', done, { once: true });
          });
        }
      },
    }),
  };
}

/**
 * Before the honest response: two server-to-client requests (servers must not send any on a response stream in
 * 2026-07-28; one named with control and bidi characters) and a result and an error for other request ids.
 */
export function sseStrayMessagesBeforeResponse(): Fault {
  return fromHonest('SSE stray requests and foreign responses', (request, body) => {
    const id = typeof request.id === 'number' ? request.id + 1000 : `${String(request.id)}-other`;
    return sseReply([
      sseFrame({ jsonrpc: '2.0', id: 'srv-1', method: 'sampling/createMessage', params: { messages: [] } }),
      sseFrame({ jsonrpc: '2.0', id: 2, method: 'elicit\u001b[31m\u202e', params: {} }),
      sseFrame({ jsonrpc: '2.0', id, result: { content: [] } }),
      sseFrame({ jsonrpc: '2.0', id: 'x\u0007', error: { code: -32603, message: 'not yours' } }),
      sseFrame(body),
    ]);
  });
}

/** The honest response as one complete SSE event, then the connection is cut (no clean end of the stream). */
export function sseCutAfterResponse(): Fault {
  return fromHonest('SSE cut after the response', (_request, body) => ({
    ...sseReply([sseFrame(body)], 'destroy'),
    chunkDelayMs: 50, // the event reaches the client before the cut
  }));
}
