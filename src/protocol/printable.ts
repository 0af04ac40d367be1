/**
 * Server text made safe to print: C0 and C1 control characters, DEL, the Unicode line/paragraph separators, the bidi
 * controls and lone UTF-16 surrogates become `\uXXXX`, so a server string quoted in an error message or a warning
 * can never move a cursor, clear a terminal, start a new log line or reorder the text around it. Everything else is
 * kept. (Hostile input is the server's; https://modelcontextprotocol.io/specification/2026-07-28/basic/security_best_practices)
 *
 * @module
 */

/**
 * The unprintable characters above the C0/C1 ranges, as a regular-expression source: U+2028 and U+2029 (line and
 * paragraph separators), the bidi marks (U+061C, U+200E, U+200F), embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069), U+FEFF (zero-width no-break space / byte order mark) and lone UTF-16
 * surrogates (a high half not followed by a low one, a low half not preceded by a high one). Shared with the CLI's
 * own escaping so both agree on what may not reach a terminal raw.
 */
export const UNICODE_UNPRINTABLE_SOURCE =
  '[\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ufeff]|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';

const UNPRINTABLE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f]|${UNICODE_UNPRINTABLE_SOURCE}`, 'g');

/** `c` (one UTF-16 unit) written as `\uXXXX`, four lower-case hex digits. */
export function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `text` with every unprintable character (see the module) written as `\uXXXX`. */
export function escapeUnprintable(text: string): string {
  return text.replace(UNPRINTABLE, unicodeEscape);
}

/**
 * The first `maxChars` UTF-16 units of `text`, escaped (see {@link escapeUnprintable}), with `…(N chars)` when cut.
 * Cutting inside a surrogate pair leaves a lone half, which is escaped too.
 */
export function printableExcerpt(text: string, maxChars: number): string {
  return text.length > maxChars
    ? `${escapeUnprintable(text.slice(0, maxChars))}…(${text.length} chars)`
    : escapeUnprintable(text);
}
