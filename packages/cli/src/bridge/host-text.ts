/**
 * Upstream strings in what the bridge writes for the host: a tool's or prompt's texts, a task's `statusMessage`, a
 * question, an error. The host shows these to a person and hands them to a model, so besides what the library's
 * `safeLine`/`safeText` escape (C0 and C1 controls with ESC sequences, DEL, U+2028/U+2029, bidi controls, U+FEFF,
 * lone surrogates) the characters that are invisible yet read by a model are written as visible escapes too: the
 * zero-width space U+200B, the word joiner and invisible operators U+2060–U+2064, the Mongolian vowel separator
 * U+180E and the Unicode tag characters U+E0000–U+E007F (which spell ASCII text no person sees). The zero-width
 * joiner and non-joiner (U+200C, U+200D) are kept: emoji sequences and several scripts need them.
 *
 * What stays exact is the upstream's data: a tool result's content, a prompt's messages, a resource's contents,
 * schema values, and the keys and ids the host sends back.
 *
 * Security: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations ; tag
 * characters: https://www.unicode.org/charts/PDF/UE0000.pdf
 *
 * @module
 */
import { safeJson, safeLine, safeText } from 'mcp-tasks-client';

/** Invisible characters the library's helpers keep: one UTF-16 unit each, or a tag character's surrogate pair. */
const INVISIBLE = /[\u180e\u200b\u2060-\u2064]|\udb40[\udc00-\udc7f]/g;

/** `c` as `\u180e`, or a tag character as `\u{e0041}`. */
function visible(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One line of upstream text for the host: `safeLine` (line breaks escaped too) and the invisible characters. */
export function hostLine(text: string): string {
  return safeLine(text).replace(INVISIBLE, visible);
}

/** Upstream text that may span lines (a description, a question): `safeText` (line breaks and tabs kept) and more. */
export function hostText(text: string): string {
  return safeText(text).replace(INVISIBLE, visible);
}

/**
 * `value` as a JSON string literal for a sentence the host's model reads (a task id, a question key): every
 * character that must not reach the host raw is a JSON escape (`\u202e`, `\udb40\udc41`), so the model can pass
 * the literal back and it parses to the exact value.
 */
export function hostQuoted(value: string): string {
  return safeJson(JSON.stringify(value)).replace(
    INVISIBLE,
    (c) =>
      `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}${c.length > 1 ? `\\u${c.charCodeAt(1).toString(16)}` : ''}`,
  );
}
