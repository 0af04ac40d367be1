/**
 * Checks caller-supplied HTTP headers before they reach `Headers`/`fetch`, whose own errors quote the offending
 * value (often a credential). A name must be an RFC 9110 token; a value may hold visible ASCII, space, tab and
 * Latin-1 `obs-text` (0x80–0xFF), never CR, LF, NUL or another control character, nor anything above U+00FF.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http; RFC 9110 § 5.5)
 *
 * @module
 * @internal
 */
import { InvalidHeaderError } from '../errors.js';

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Allowed: HTAB, SP..~, 0x80..0xFF. Everything else (C0 controls incl. CR/LF/NUL, DEL, > U+00FF) is refused.
const BAD_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

function describeBadChar(value: string): string {
  const bad = BAD_VALUE_CHAR.exec(value)?.[0] ?? '';
  if (bad === '\r' || bad === '\n') return 'its value contains CR or LF';
  const code = bad.codePointAt(0) ?? 0;
  if (code > 0xff) return 'its value contains a character outside Latin-1 (encode it, e.g. base64)';
  return 'its value contains a control character';
}

/**
 * Returns `record` unchanged when every entry can be sent as an HTTP header.
 *
 * @param source - where the headers came from, for the message (`headers`, `getHeaders()`, `request headers`).
 * @throws {@link InvalidHeaderError} naming the source and header, never the value.
 */
export function checkHeaderRecord<T extends Record<string, unknown> | undefined>(
  source: string,
  record: T,
): T {
  if (record === undefined) return record;
  if (record === null || typeof record !== 'object')
    throw new InvalidHeaderError(source, undefined, 'not an object of header names to values');
  for (const [name, value] of Object.entries(record)) {
    if (!TOKEN.test(name))
      throw new InvalidHeaderError(source, undefined, 'a header name is not a valid token');
    if (typeof value !== 'string')
      throw new InvalidHeaderError(
        source,
        name,
        `its value is a ${value === null ? 'null' : typeof value}, not a string`,
      );
    if (BAD_VALUE_CHAR.test(value)) throw new InvalidHeaderError(source, name, describeBadChar(value));
  }
  return record;
}
