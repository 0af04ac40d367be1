/**
 * Validation of the 2026-07-28 Streamable HTTP standard headers against the JSON-RPC body:
 * `MCP-Protocol-Version` = `_meta` version, `Mcp-Method` = `method`, `Mcp-Name` = `params.name` / `params.uri` /
 * `params.taskId`. Values may arrive as `=?base64?<UTF-8 base64>?=`. A mismatch or a missing header is -32020 with
 * HTTP 400. (ext-tasks § Streamable HTTP: Routing Headers)
 *
 * @module
 */
import { HEADERS } from '../protocol/index.js';

const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/i;

/** Decodes a header value: the base64 sentinel form is decoded as UTF-8, anything else is returned unchanged. */
export function decodeHeaderValue(raw: string): string {
  const match = BASE64_SENTINEL.exec(raw);
  return match === null ? raw : Buffer.from(match[1] ?? '', 'base64').toString('utf8');
}

/**
 * The body value `Mcp-Name` must mirror: `params.name` for `tools/call` and `prompts/get`, `params.uri` for
 * `resources/read`, `params.taskId` for `tasks/get|update|cancel`; `undefined` for other methods or when the field
 * is not a string (then parameter validation reports the problem).
 */
export function mcpNameFor(method: string, params: Record<string, unknown>): string | undefined {
  let value: unknown;
  if (method === 'tools/call' || method === 'prompts/get') value = params.name;
  else if (method === 'resources/read') value = params.uri;
  else if (method === 'tasks/get' || method === 'tasks/update' || method === 'tasks/cancel')
    value = params.taskId;
  return typeof value === 'string' ? value : undefined;
}

/**
 * Checks the standard headers of one request. `headers` has lower-case names.
 *
 * @returns a message describing the first mismatch, or `undefined` when the headers agree with the body.
 */
export function findHeaderMismatch(
  headers: Record<string, string | undefined>,
  method: string,
  params: Record<string, unknown>,
  metaVersion: string,
): string | undefined {
  const checks: Array<[string, string | undefined]> = [
    [HEADERS.protocolVersion, metaVersion],
    [HEADERS.method, method],
    [HEADERS.name, mcpNameFor(method, params)],
  ];
  for (const [name, expected] of checks) {
    if (expected === undefined) continue;
    const raw = headers[name.toLowerCase()];
    if (raw === undefined) return `Missing required header ${name} (expected "${expected}")`;
    const value = decodeHeaderValue(raw.trim());
    if (value !== expected)
      return `Header ${name} "${value}" does not match the request body ("${expected}")`;
  }
  return undefined;
}

/** Lower-cases header names and keeps the first value of repeated headers. */
export function normalizeHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name.toLowerCase()] = Array.isArray(value) ? value[0] : value;
  }
  return out;
}
