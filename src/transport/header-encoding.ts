/**
 * HTTP header value encoding for `Mcp-Name` and `Mcp-Param-*`: values that are not safe plain ASCII go as
 * `=?base64?<UTF-8 base64>?=`. (
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http § Value Encoding)
 *
 * @module
 */

const UNSAFE = /[^\x20-\x7e]/; // non-ASCII or control characters (incl. tab, DEL)
const SENTINEL = /^=\?base64\?.*\?=$/i;

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Encodes one header value: verbatim when it is printable ASCII without edge whitespace and does not look like the
 * sentinel; otherwise `=?base64?…?=`. `%20` and `?` stay plain.
 */
export function encodeHeaderValue(value: string): string {
  const needsEncoding = UNSAFE.test(value) || value !== value.trim() || SENTINEL.test(value);
  return needsEncoding ? `=?base64?${toBase64(value)}?=` : value;
}
