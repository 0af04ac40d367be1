/**
 * Reading response bodies within a byte limit. Past the limit the body is cancelled (the connection closes) and
 * the read fails with `ResponseTooLargeError`. (issue 5 "Limits")
 *
 * @module
 * @internal
 */
import { ResponseTooLargeError } from '../errors.js';

/**
 * Yields the body's decoded text chunks, failing once more than `limitBytes` bytes arrived.
 *
 * @throws {@link ResponseTooLargeError}
 */
export async function* readTextChunks(body: ReadableStream<Uint8Array>, limitBytes: number, method: string): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limitBytes) throw new ResponseTooLargeError(method, limitBytes);
      yield decoder.decode(value, { stream: true });
    }
    const tail = decoder.decode();
    if (tail) yield tail;
  } finally {
    // Cancelling an unfinished stream closes the connection; on a finished one it is a no-op.
    await reader.cancel().catch(() => undefined);
  }
}

/** Reads the whole body as text within `limitBytes`. */
export async function readText(body: ReadableStream<Uint8Array> | null, limitBytes: number, method: string): Promise<string> {
  if (!body) return '';
  let text = '';
  for await (const chunk of readTextChunks(body, limitBytes, method)) text += chunk;
  return text;
}

/** At most `max` characters of `text`, on one line, for error messages. */
export function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
