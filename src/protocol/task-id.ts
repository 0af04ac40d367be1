/**
 * What a usable `taskId` is. The extension only says it is a string the server generates ("Stable identifier for this
 * task"); this client also refuses ids it could not store, print or send back safely: longer than
 * {@link MAX_TASK_ID_BYTES} bytes of UTF-8, with control characters (they would reach logs and terminals), with lone
 * UTF-16 surrogates (not encodable as UTF-8, so not sendable back intact), or with U+FFFD (what invalid UTF-8 on the
 * wire decodes to: the server's real id is already lost). Such a task is an invalid response at creation.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md § Tasks)
 *
 * @module
 */

/**
 * The longest `taskId` accepted, in bytes of UTF-8 (1 KiB). A longer one makes the creation an invalid response.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#tasks)
 */
export const MAX_TASK_ID_BYTES = 1024;

// C0, DEL and C1 controls; Unicode line/paragraph separators and bidi controls also reorder or break a printed line.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function utf8Bytes(value: string): number {
  let bytes = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < value.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Why `taskId` is not usable, or `undefined` when it is. The reason never quotes the id.
 */
export function taskIdProblem(taskId: string): string | undefined {
  if (taskId.length === 0) return 'taskId is empty';
  if (taskId.length > MAX_TASK_ID_BYTES || utf8Bytes(taskId) > MAX_TASK_ID_BYTES) {
    return `taskId is longer than ${MAX_TASK_ID_BYTES} bytes (UTF-8)`;
  }
  if (CONTROL.test(taskId)) return 'taskId contains control characters';
  if (LONE_SURROGATE.test(taskId)) return 'taskId contains a lone UTF-16 surrogate (not valid Unicode)';
  if (taskId.includes('\ufffd')) return 'taskId contains U+FFFD (invalid UTF-8 on the wire)';
  return undefined;
}

/**
 * The largest encoded `Mcp-Name` header value, in bytes (8 KiB), of a `tasks/cancel` this client still sends for an
 * unusable `taskId`, so work named by an id it refuses is not orphaned. `tasks/cancel` carries the id twice: raw in
 * the JSON body (JSON-escaped) and in `Mcp-Name`, encoded per § Value Encoding (verbatim when printable ASCII,
 * otherwise `=?base64?…?=`, about 4/3 of its UTF-8 bytes); servers and proxies commonly refuse header lines of
 * 8 KiB and more. Past it the id is only reported, escaped, and the cancel is `not-sent` (`'id-too-long'`).
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation;
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http § Value Encoding)
 */
export const MAX_CANCEL_NAME_HEADER_BYTES = 8_192;
