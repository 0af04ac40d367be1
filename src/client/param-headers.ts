/**
 * `x-mcp-header`: tool arguments mirrored into `Mcp-Param-{Name}` headers, and the checks that drop tools whose
 * annotations are invalid. (https://modelcontextprotocol.io/specification/2026-07-28/server/tools § x-mcp-header)
 *
 * @module
 * @internal
 */
import { HEADERS } from '../protocol/constants.js';
import type { Tool } from '../protocol/results.js';
import { encodeHeaderValue } from '../transport/header-encoding.js';

/** RFC 9110 token characters: the only ones allowed in a header name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// `number` is not allowed: SEP-2243 restricts x-mcp-header to string, integer and boolean properties (a float's
// decimal text is not stable across languages). Conformance `http-invalid-tool-headers` serves an
// `invalid_number_header` tool that a client must drop.
const PRIMITIVE_TYPES = new Set(['string', 'integer', 'boolean']);

function properties(tool: Tool): Record<string, Record<string, unknown>> {
  const props = tool.inputSchema.properties;
  return props !== null && typeof props === 'object' ? (props as Record<string, Record<string, unknown>>) : {};
}

/**
 * Why a tool's `x-mcp-header` annotations are invalid, or `undefined` when they are fine: names must be non-empty
 * tokens, unique without regard to case, on `string`, `integer` or `boolean` properties only.
 */
export function invalidHeaderReason(tool: Tool): string | undefined {
  const seen = new Set<string>();
  for (const [prop, schema] of Object.entries(properties(tool))) {
    if (schema === null || typeof schema !== 'object' || !('x-mcp-header' in schema)) continue;
    const name = schema['x-mcp-header'];
    if (typeof name !== 'string' || name.length === 0) return `property "${prop}": x-mcp-header is empty`;
    if (!TOKEN.test(name)) return `property "${prop}": x-mcp-header "${name}" has characters not allowed in a header name`;
    const lower = name.toLowerCase();
    if (seen.has(lower)) return `property "${prop}": x-mcp-header "${name}" is used twice`;
    seen.add(lower);
    const type = schema.type;
    if (typeof type !== 'string' || !PRIMITIVE_TYPES.has(type)) return `property "${prop}": x-mcp-header on type ${JSON.stringify(type)} (only string, integer, boolean)`;
  }
  return undefined;
}

/**
 * The `Mcp-Param-*` headers for one call: strings as they are, numbers in decimal, booleans in lower case; absent
 * and null arguments are omitted; values are encoded per 2.6.
 */
export function paramHeaders(tool: Tool | undefined, args: Record<string, unknown> | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!tool || !args) return headers;
  for (const [prop, schema] of Object.entries(properties(tool))) {
    const name = schema?.['x-mcp-header'];
    const value = args[prop];
    if (typeof name !== 'string' || value === undefined || value === null) continue;
    if (typeof value === 'string') headers[`${HEADERS.paramPrefix}${name}`] = encodeHeaderValue(value);
    else if (typeof value === 'number' && Number.isFinite(value)) headers[`${HEADERS.paramPrefix}${name}`] = String(value);
    else if (typeof value === 'boolean') headers[`${HEADERS.paramPrefix}${name}`] = value ? 'true' : 'false';
  }
  return headers;
}
