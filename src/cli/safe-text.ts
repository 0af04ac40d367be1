/**
 * Server text made safe for a terminal or a pipe: C0 and C1 control characters (ESC, BEL, CR, backspace, DEL,
 * U+0080–U+009F, …) become visible escapes such as `\x1b`, so a hostile `statusMessage`, question, task id or tool
 * output cannot move the cursor, rewrite earlier lines, set the window title or ring the bell. Newlines and tabs
 * are kept in multi-line text and escaped in one-line fields.
 *
 * Terminal control sequences: https://invisible-island.net/xterm/ctlseqs/ctlseqs.html ; C0/C1 sets: ECMA-48 § 5.
 *
 * @module
 */

/** Every C0 control except TAB and LF, DEL, and every C1 control. */
const MULTI_LINE_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** Every C0 control, DEL and every C1 control (one-line fields). */
const ONE_LINE_CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
/** C1 controls, which `JSON.stringify` leaves raw. */
const C1_CONTROLS = /[\u0080-\u009f]/g;

const escapeChar = (c: string): string => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** Text that may span lines (tool output, hints): control characters other than `\n` and `\t` escaped. */
export function safeText(text: string): string {
  return text.replace(MULTI_LINE_CONTROLS, escapeChar);
}

/** A one-line field (a status message, a task id, a question key): every control character escaped, `\n` too. */
export function safeLine(text: string): string {
  return text.replace(ONE_LINE_CONTROLS, escapeChar);
}

/**
 * Makes a JSON text safe to print: `JSON.stringify` escapes C0 controls but leaves C1 controls (U+0080–U+009F) raw;
 * they are written as `\u0080`… instead, which parses back to the same string.
 */
export function safeJson(json: string): string {
  return json.replace(C1_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
