/**
 * Reading response bodies within a byte limit. Past the limit the body is cancelled (the connection closes) and
 * the read fails with `ResponseTooLargeError`.
 *
 * @module
 * @internal
 */
import { ResponseTooLargeError, StreamEndedError } from '../errors.js';
import { escapeUnprintable } from '../protocol/printable.js';
import type { HttpReplyBody } from './http-sender.js';

/**
 * The body's next chunk. A connection that broke mid-body (fetch rejects with `TypeError: terminated`, undici with a
 * socket error) means the response never arrived in full, so the request is lost: typed, with the socket error
 * as cause. (An abort also lands here; the transport reports the abort's reason instead, as it checks it first.)
 */
async function nextChunk(
  chunks: AsyncIterator<Uint8Array>,
  method: string,
): Promise<IteratorResult<Uint8Array>> {
  try {
    return await chunks.next();
  } catch (error) {
    throw new StreamEndedError(method, { cause: error });
  }
}

/**
 * Yields the body's decoded text chunks, failing once more than `limitBytes` bytes arrived. `meter`, when given, sees
 * every chunk's bytes first and may throw (an SSE reply is limited per event, see `sse-event-limit.ts`).
 *
 * @throws {@link ResponseTooLargeError} past the limit; {@link StreamEndedError} when the connection breaks mid-body.
 */
export async function* readTextChunks(
  body: HttpReplyBody,
  limitBytes: number,
  method: string,
  meter?: (bytes: Uint8Array) => void,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let total = 0;
  const chunks = body[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await nextChunk(chunks, method);
      if (next.done) break;
      const value = next.value;
      total += value.byteLength;
      if (total > limitBytes) throw new ResponseTooLargeError(method, limitBytes);
      meter?.(value);
      yield decoder.decode(value, { stream: true });
    }
    const tail = decoder.decode();
    if (tail) yield tail;
  } finally {
    // Releases an unfinished body (closing its connection); on a finished one it is a no-op.
    await chunks.return?.().catch(() => undefined);
    await body.cancel().catch(() => undefined);
  }
}

const UTF8 = new TextDecoder();

/**
 * Reads the whole body as text within `limitBytes`: the chunks are collected and decoded once (the same text a
 * streaming decode gives, malformed bytes included), without an async generator per reply.
 *
 * @throws {@link ResponseTooLargeError} past the limit; {@link StreamEndedError} when the connection breaks mid-body.
 */
export async function readText(
  body: HttpReplyBody | null,
  limitBytes: number,
  method: string,
): Promise<string> {
  if (!body) return '';
  if (body.collect) {
    const received: Uint8Array[] = [];
    return readCollected(body, body.collect(limitBytes, received), received, limitBytes, method);
  }
  const chunks = body[Symbol.asyncIterator]();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const next = await nextChunk(chunks, method).catch((error: unknown) => {
        throw brokenAfter(error, parts);
      });
      if (next.done) break;
      total += next.value.byteLength;
      if (total > limitBytes) throw new ResponseTooLargeError(method, limitBytes);
      parts.push(next.value);
    }
  } finally {
    // Releases an unfinished body (closing its connection); on a finished one it is a no-op.
    await chunks.return?.().catch(() => undefined);
    await body.cancel().catch(() => undefined);
  }
  return decodeAll(parts, total);
}

/** The text that arrived before a body broke, by the {@link StreamEndedError} that reported the break. */
const beforeBreak = new WeakMap<object, string>();

/** Notes on `error` (a {@link StreamEndedError}) the text of `parts`, which arrived before the body broke. */
function brokenAfter(error: unknown, parts: Uint8Array[]): unknown {
  if (error instanceof StreamEndedError && parts.length > 0) {
    let total = 0;
    for (const part of parts) total += part.byteLength;
    beforeBreak.set(error, decodeAll(parts, total));
  }
  return error;
}

/**
 * The text of the body that arrived before the connection broke, when `error` is the {@link StreamEndedError} with
 * which {@link readText} reported that break; `undefined` otherwise (or when nothing had arrived).
 */
export function textBeforeBreak(error: unknown): string | undefined {
  return error !== null && typeof error === 'object' ? beforeBreak.get(error) : undefined;
}

/** {@link readText} over a body that collects itself (`HttpReplyBody.collect`): the same limit, errors and release. */
async function readCollected(
  body: HttpReplyBody,
  collected: Promise<Uint8Array[] | null>,
  received: Uint8Array[],
  limitBytes: number,
  method: string,
): Promise<string> {
  let parts: Uint8Array[] | null;
  try {
    parts = await collected;
  } catch (error) {
    throw brokenAfter(new StreamEndedError(method, { cause: error }), received);
  } finally {
    // Releases an unfinished body (closing its connection); on a finished one it is a no-op.
    await body.cancel().catch(() => undefined);
  }
  if (parts === null) throw new ResponseTooLargeError(method, limitBytes);
  let total = 0;
  for (const part of parts) total += part.byteLength;
  return decodeAll(parts, total);
}

/** The UTF-8 text of `parts` (`total` bytes), decoded once. */
function decodeAll(parts: Uint8Array[], total: number): string {
  if (parts.length === 1) return UTF8.decode(parts[0]);
  const all = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.byteLength;
  }
  return UTF8.decode(all);
}
/** At most `max` characters of `text`, on one line, control characters and lone surrogates escaped, for error messages. */
export function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${escapeUnprintable(flat.slice(0, max))}…` : escapeUnprintable(flat); // no raw server bytes in messages
}
