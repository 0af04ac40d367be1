/**
 * Upstream strings in the sentences an adapter composes for a model and for the person reading its transcript: a
 * tool's name, a task's id and `statusMessage`, a question, an error message. Besides what the library's
 * `safeLine`/`safeText` escape (C0 and C1 controls with ESC sequences, DEL, U+2028/U+2029, bidi controls, U+FEFF,
 * lone surrogates; `safeLine` also the zero-width space, non-joiner and joiner U+200B–U+200D), the characters that
 * are invisible yet read by a model are written as visible escapes too: the zero-width space U+200B, the word joiner
 * and invisible operators U+2060–U+2064, the Mongolian vowel separator U+180E and the Unicode tag characters
 * U+E0000–U+E007F (which spell ASCII text no person sees). In multi-line text the zero-width joiner and non-joiner
 * (U+200C, U+200D) are kept: emoji sequences and several scripts need them.
 *
 * What stays exact is the upstream's data: a tool result's content, a prompt's messages, a resource's contents,
 * schema values, and the ids a model sends back (a `taskId` field).
 *
 * Security: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations ; tag
 * characters: https://www.unicode.org/charts/PDF/UE0000.pdf
 *
 * @module
 */
import { safeJson, safeLine, safeText } from '../../protocol/printable.js';

/** Invisible characters the library's helpers keep: one UTF-16 unit each, or a tag character's surrogate pair. */
const INVISIBLE = /[\u180e\u200b\u2060-\u2064]|\udb40[\udc00-\udc7f]/g;

/** `c` as `\u180e`, or a tag character as `\u{e0041}`. */
function visible(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * One line of upstream text (a status message, an error message, a name) for a model's host: `safeLine` (line breaks
 * escaped too) and the invisible characters, e.g. `\x1b`, `\u202e`, `\u{e0041}`.
 */
export function hostLine(text: string): string {
  return safeLine(text).replace(INVISIBLE, visible);
}

/** Upstream text that may span lines (a description, a question): `safeText` (line breaks and tabs kept) and the invisible characters. */
export function hostText(text: string): string {
  return safeText(text).replace(INVISIBLE, visible);
}

/**
 * `value` as a JSON string literal for a sentence the host's model reads (a task id, a question key): every
 * character that must not reach the host raw is a JSON escape (`\u202e`, `\udb40\udc41`), so the model can pass
 * the literal back and it parses to the exact value.
 */
export function hostQuoted(value: string): string {
  return hostJson(value);
}

/**
 * `value` as JSON text (`JSON.stringify`) with the same escapes as {@link hostQuoted} inside its strings: it parses
 * back to exactly `value`. For a structured result handed to a model as text (a "pending" hand-off).
 *
 * @throws what `JSON.stringify` throws (a cycle, a BigInt).
 */
export function hostJson(value: unknown): string {
  return safeJson(JSON.stringify(value)).replace(
    INVISIBLE,
    (c) =>
      `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}${c.length > 1 ? `\\u${c.charCodeAt(1).toString(16)}` : ''}`,
  );
}
