/**
 * `x-mcp-header`: tool arguments mirrored into `Mcp-Param-{Name}` headers, and the checks that drop tools whose
 * annotations are invalid. An annotation is valid only on a property reachable from the schema root through a chain
 * of `properties` keys (nested objects included); one anywhere else (`items`, `anyOf`, `$defs`, …) makes the tool
 * invalid. Integer values are sent in decimal and must be safe integers (−(2^53−1) … 2^53−1).
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http § Schema Extension,
 * § Value Encoding; https://modelcontextprotocol.io/specification/2026-07-28/server/tools § x-mcp-header)
 *
 * @module
 * @internal
 */
import { HEADERS } from '../protocol/constants.js';
import type { Tool } from '../protocol/results.js';
import { encodeHeaderValue } from '../transport/header-encoding.js';
import { InvalidHeaderError } from '../errors.js';

/** RFC 9110 token characters: the only ones allowed in a header name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// `number` is not allowed: SEP-2243 restricts x-mcp-header to string, integer and boolean properties (a float's
// decimal text is not stable across languages). Conformance `http-invalid-tool-headers` serves an
// `invalid_number_header` tool that a client must drop.
const PRIMITIVE_TYPES = new Set(['string', 'integer', 'boolean']);
const ANNOTATION = 'x-mcp-header';
/** Deeper schemas are refused rather than walked (a hostile server could nest without end). */
const MAX_SCHEMA_DEPTH = 64;

/** JSON Schema keywords whose value is one subschema, an array of subschemas, or a map of them (2020-12 + draft-07). */
const ONE_SCHEMA = [
  'additionalProperties',
  'items',
  'additionalItems',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];
const SCHEMA_LIST = ['items', 'prefixItems', 'anyOf', 'oneOf', 'allOf'];
const SCHEMA_MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

type Schema = Record<string, unknown>;

/** One valid annotation: the path of `properties` keys to the property, and the header name. */
interface Annotated {
  path: string[];
  name: string;
  type: string;
}

function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function show(path: readonly string[]): string {
  return JSON.stringify(path.join('.'));
}

type Collected = { annotated: Annotated[] } | { invalid: string };
const collected = new WeakMap<Tool, Collected>();

/** {@link scan}, once per tool object. */
function collect(tool: Tool): Collected {
  let found = collected.get(tool);
  if (!found) collected.set(tool, (found = scan(tool)));
  return found;
}

/** Annotations reachable through `properties` chains, or the reason the tool is invalid. */
function scan(tool: Tool): Collected {
  const annotated: Annotated[] = [];
  let reachable = 0;
  let total = 0;
  let tooDeep = false;
  // Every annotation anywhere in the schema (data keywords such as `const`, `default`, `examples` are not schemas).
  const countAll = (schema: unknown, depth: number): void => {
    if (!isObject(schema)) return;
    if (depth > MAX_SCHEMA_DEPTH) {
      tooDeep = true;
      return;
    }
    if (Object.hasOwn(schema, ANNOTATION)) total++;
    for (const key of ONE_SCHEMA) if (isObject(schema[key])) countAll(schema[key], depth + 1);
    for (const key of SCHEMA_LIST)
      if (Array.isArray(schema[key])) for (const sub of schema[key] as unknown[]) countAll(sub, depth + 1);
    for (const key of SCHEMA_MAP)
      if (isObject(schema[key]))
        for (const sub of Object.values(schema[key] as Schema)) countAll(sub, depth + 1);
  };
  const walk = (schema: Schema, path: string[]): string | undefined => {
    const props = schema.properties;
    if (!isObject(props) || path.length >= MAX_SCHEMA_DEPTH) return undefined;
    for (const [prop, sub] of Object.entries(props)) {
      if (!isObject(sub)) continue;
      const here = [...path, prop];
      if (Object.hasOwn(sub, ANNOTATION)) {
        reachable++;
        const name = sub[ANNOTATION];
        if (typeof name !== 'string' || name.length === 0)
          return `property ${show(here)}: x-mcp-header is empty`;
        if (!TOKEN.test(name))
          return `property ${show(here)}: x-mcp-header ${JSON.stringify(name)} has characters not allowed in a header name`;
        if (annotated.some((a) => a.name.toLowerCase() === name.toLowerCase()))
          return `property ${show(here)}: x-mcp-header ${JSON.stringify(name)} is used twice`;
        const type = sub.type;
        if (typeof type !== 'string' || !PRIMITIVE_TYPES.has(type))
          return `property ${show(here)}: x-mcp-header on type ${JSON.stringify(type)} (only string, integer, boolean)`;
        annotated.push({ path: here, name, type });
      }
      const inner = walk(sub, here);
      if (inner) return inner;
    }
    return undefined;
  };
  const reason = walk(tool.inputSchema, []);
  if (reason) return { invalid: reason };
  countAll(tool.inputSchema, 0);
  if (tooDeep) return { invalid: `inputSchema is nested deeper than ${MAX_SCHEMA_DEPTH} levels` };
  if (total > reachable) {
    return {
      invalid:
        'x-mcp-header outside a chain of "properties" (under items, anyOf/oneOf/allOf, not, if/then/else, $defs or similar)',
    };
  }
  return { annotated };
}

/**
 * Why a tool's `x-mcp-header` annotations are invalid, or `undefined` when they are fine: names must be non-empty
 * tokens, unique without regard to case, on `string`, `integer` or `boolean` properties only, each reachable from
 * the root through `properties` keys alone.
 */
export function invalidHeaderReason(tool: Tool): string | undefined {
  const found = collect(tool);
  return 'invalid' in found ? found.invalid : undefined;
}

/** The value at `path` in `args`, or `undefined` when any step is missing or not an object. */
function valueAt(args: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = args;
  for (const key of path) {
    if (!isObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/**
 * The `Mcp-Param-*` headers for one call: strings as they are, integers in decimal, booleans in lower case; absent
 * and null arguments are omitted; values are encoded per the Value Encoding rules. Nested values are read at the
 * annotated property's exact path.
 *
 * @throws {@link InvalidHeaderError} when a mirrored number is not an integer in the safe range (it could not be
 *   written as the exact decimal the server compares with); nothing is sent.
 */
export function paramHeaders(
  tool: Tool | undefined,
  args: Record<string, unknown> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!tool || !args) return headers;
  const found = collect(tool);
  if ('invalid' in found) return headers;
  for (const { path, name } of found.annotated) {
    const value = valueAt(args, path);
    const header = `${HEADERS.paramPrefix}${name}`;
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') headers[header] = encodeHeaderValue(value);
    else if (typeof value === 'boolean') headers[header] = value ? 'true' : 'false';
    else if (typeof value === 'number' || typeof value === 'bigint') {
      const safe =
        typeof value === 'number'
          ? Number.isSafeInteger(value)
          : value >= -(2n ** 53n - 1n) && value <= 2n ** 53n - 1n;
      if (!safe)
        throw new InvalidHeaderError(
          `tools/call ${JSON.stringify(tool.name)} arguments`,
          header,
          'an x-mcp-header number must be an integer within ±(2^53−1)',
        );
      headers[header] = String(value);
    }
  }
  return headers;
}
