/**
 * Server text made safe for a terminal or a pipe: C0 and C1 control characters (ESC, BEL, CR, backspace, DEL,
 * U+0080–U+009F, …) become visible escapes such as `\x1b`, so a hostile `statusMessage`, question, task id or tool
 * output cannot move the cursor, rewrite earlier lines, set the window title or ring the bell. The other
 * unprintable characters the protocol layer knows (U+2028/U+2029 line and paragraph separators, the bidi marks
 * U+061C/U+200E/U+200F, the bidi controls U+202A–U+202E and U+2066–U+2069, U+FEFF, lone surrogates; see `protocol/printable.ts`) become `\u2028`-style escapes, so
 * server text cannot start a line a log reader takes for a new one or reverse the text around it on screen.
 * Newlines and tabs are kept in multi-line text and escaped in one-line fields.
 *
 * Terminal control sequences: https://invisible-island.net/xterm/ctlseqs/ctlseqs.html ; C0/C1 sets: ECMA-48 § 5;
 * bidi controls: https://www.unicode.org/reports/tr9/ ; separators: https://www.unicode.org/reports/tr14/
 *
 * @module
 */
import { UNICODE_UNPRINTABLE_SOURCE, unicodeEscape } from '../protocol/printable.js';

/** Every C0 control except TAB and LF, DEL, every C1 control, and the Unicode unprintables. */
const MULTI_LINE_UNSAFE = new RegExp(
  `[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]|${UNICODE_UNPRINTABLE_SOURCE}`,
  'g',
);
/** Every C0 control, DEL, every C1 control and the Unicode unprintables (one-line fields). */
const ONE_LINE_UNSAFE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f]|${UNICODE_UNPRINTABLE_SOURCE}`, 'g');
/** What `JSON.stringify` leaves raw and a terminal must not see: C1 controls and the Unicode unprintables. */
const JSON_UNSAFE = new RegExp(`[\\u0080-\\u009f]|${UNICODE_UNPRINTABLE_SOURCE}`, 'g');

/** A control character (up to U+009F) as `\xNN`; anything above as `\uXXXX`. */
const escapeChar = (c: string): string =>
  c.charCodeAt(0) <= 0xff ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : unicodeEscape(c);

/** Text that may span lines (tool output, hints): every unsafe character (see the module) but `\n` and `\t` escaped. */
export function safeText(text: string): string {
  return text.replace(MULTI_LINE_UNSAFE, escapeChar);
}

/** A one-line field (a status message, a task id, a question key): every unsafe character escaped, `\n` too. */
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
