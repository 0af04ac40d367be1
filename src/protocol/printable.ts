/**
 * Server text made safe to print: C0 and C1 control characters, DEL, the Unicode line/paragraph separators, the bidi
 * controls and lone UTF-16 surrogates become `\uXXXX`, so a server string quoted in an error message or a warning
 * can never move a cursor, clear a terminal, start a new log line or reorder the text around it. Everything else is
 * kept. (Hostile input is the server's; https://modelcontextprotocol.io/specification/2026-07-28/basic/security_best_practices)
 *
 * For a terminal or a pipe, {@link safeText}, {@link safeLine} and {@link safeJson} write C0 and C1 controls as
 * visible escapes such as `\x1b` (so a hostile `statusMessage`, question, task id or tool output cannot move the
 * cursor, rewrite earlier lines, set the window title or ring the bell) and the Unicode unprintables as `\u2028`-style
 * escapes; newlines and tabs are kept in multi-line text and escaped in one-line fields. Terminal control sequences:
 * https://invisible-island.net/xterm/ctlseqs/ctlseqs.html ; C0/C1 sets: ECMA-48 § 5; bidi controls:
 * https://www.unicode.org/reports/tr9/ ; separators: https://www.unicode.org/reports/tr14/
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

/** Every C0 control except TAB and LF, DEL, every C1 control, and the Unicode unprintables. */
const MULTI_LINE_UNSAFE = new RegExp(
  `[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]|${UNICODE_UNPRINTABLE_SOURCE}`,
  'g',
);
/**
 * Every C0 control, DEL, every C1 control, the Unicode unprintables, and the zero-width space, non-joiner and joiner
 * (U+200B–U+200D) (one-line fields). In an id, a key or a status line those only hide text: `t-1\u200b` looks like
 * `t-1`. Multi-line text keeps them, where they join emoji (a family, a profession) and shape scripts (Persian, Indic).
 */
const ONE_LINE_UNSAFE = new RegExp(
  `[\\u0000-\\u001f\\u007f-\\u009f\\u200b-\\u200d]|${UNICODE_UNPRINTABLE_SOURCE}`,
  'g',
);
/** What `JSON.stringify` leaves raw and a terminal must not see: C1 controls and the Unicode unprintables. */
const JSON_UNSAFE = new RegExp(`[\\u0080-\\u009f]|${UNICODE_UNPRINTABLE_SOURCE}`, 'g');

/** A control character (up to U+009F) as `\xNN`; anything above as `\uXXXX`. */
const escapeChar = (c: string): string =>
  c.charCodeAt(0) <= 0xff ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : unicodeEscape(c);

/** Text that may span lines (tool output, hints): every unsafe character (see the module) but `\n` and `\t` escaped. */
export function safeText(text: string): string {
  return text.replace(MULTI_LINE_UNSAFE, escapeChar);
}

/**
 * A one-line field (a status message, a task id, a question key): every unsafe character escaped, `\n` too, and the
 * zero-width characters U+200B–U+200D (as `\u200b`), which would hide text in it.
 */
export function safeLine(text: string): string {
  return text.replace(ONE_LINE_UNSAFE, escapeChar);
}

/**
 * Makes a JSON text safe to print: `JSON.stringify` escapes C0 controls and lone surrogates but leaves C1 controls
 * (U+0080–U+009F), U+2028/U+2029 and the bidi controls raw; they are written as `\u0080`, `\u2028`, `\u202e`…
 * instead, which parses back to the same string. (These characters can only stand inside JSON strings.)
 */
export function safeJson(json: string): string {
  return json.replace(JSON_UNSAFE, unicodeEscape);
}
