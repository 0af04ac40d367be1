/**
 * Checks a call's arguments against the tool's `inputSchema` (from `tools/list`) before anything is sent, so a
 * missing required argument, a mistyped name or a value of the wrong type is a usage error that names it (with the
 * closest property name, or the type the schema asks for) instead of the server's -32602. Only what the schema itself
 * forbids is refused: a missing `required` property, an unknown property when the schema says
 * `additionalProperties: false`, and a value whose JSON type is not among the property's `type` (e.g. `documents=abc`
 * for `"type": "integer"`). Bounds, formats and composite schemas (`anyOf`, `$ref`…) are left to the server. Without
 * a schema nothing is checked.
 *
 * Tool input schemas: https://modelcontextprotocol.io/specification/2026-07-28/server/tools
 *
 * @module
 */
import { UsageError } from './exit-codes.js';
import { closestNames } from './suggest.js';

const quoted = (names: readonly string[]): string => names.map((n) => JSON.stringify(n)).join(', ');

/**
 * @throws {@link UsageError} naming the missing required arguments, the unknown ones (each with its closest
 *   property names) and those whose value is not of the declared type (with that type), when the schema forbids the
 *   call.
 */
export function checkToolArguments(
  tool: string,
  args: Record<string, unknown>,
  inputSchema: Record<string, unknown> | undefined,
): void {
  if (inputSchema === undefined || inputSchema === null || typeof inputSchema !== 'object') return;
  const rawProps = inputSchema.properties;
  const props =
    rawProps !== null && typeof rawProps === 'object' && !Array.isArray(rawProps)
      ? Object.keys(rawProps)
      : undefined;
  const required = Array.isArray(inputSchema.required)
    ? inputSchema.required.filter((k): k is string => typeof k === 'string')
    : [];
  const given = Object.keys(args);
  const missing = required.filter((k) => !Object.hasOwn(args, k));
  const unknown = props ? given.filter((k) => !props.includes(k)) : [];
  const closed = inputSchema.additionalProperties === false;
  const mistyped = given.flatMap((k) => {
    const expected = declaredTypes(rawProps, k);
    return expected && !expected.some((t) => hasJsonType(args[k], t)) ? [{ k, expected }] : [];
  });
  if (missing.length === 0 && (!closed || unknown.length === 0) && mistyped.length === 0) return;
  const parts: string[] = [];
  for (const { k, expected } of mistyped)
    parts.push(
      `argument ${JSON.stringify(k)} must be ${expected.map(article).join(' or ')}, got ${describeValue(args[k])}`,
    );
  if (missing.length > 0)
    parts.push(`missing required argument${missing.length > 1 ? 's' : ''} ${quoted(missing)}`);
  const open = (props ?? []).filter((p) => !Object.hasOwn(args, p));
  for (const name of unknown) {
    const close = closestNames(name, open);
    parts.push(
      `unknown argument ${JSON.stringify(name)}${close.length > 0 ? ` (did you mean ${quoted(close)}?)` : ''}`,
    );
  }
  const usage = missing.length > 0 ? `; it needs ${required.map((k) => `${k}=…`).join(' ')}` : '';
  throw new UsageError(
    `${tool}: ${parts.join('; ')}${usage} (nothing was called; its arguments: mcp-tasks tools)`,
  );
}

/** The JSON Schema types a property declares (`"type": "integer"` or `["integer", "null"]`), if it declares any. */
function declaredTypes(properties: unknown, key: string): string[] | undefined {
  if (properties === null || typeof properties !== 'object' || !Object.hasOwn(properties, key))
    return undefined;
  const type = (properties as Record<string, { type?: unknown } | null>)[key]?.type;
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type : [];
  const known = types.filter((t): t is string => typeof t === 'string' && t in ARTICLES);
  // A type this check does not know is the server's to judge.
  return known.length > 0 && known.length === types.length ? known : undefined;
}

const ARTICLES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean (true or false)',
  object: 'a JSON object',
  array: 'a JSON array',
  null: 'null',
};

const article = (type: string): string => ARTICLES[type] ?? type;

/** Whether `value` is of JSON Schema type `type` (an integer is a number with no fraction, as JSON Schema says). */
function hasJsonType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    default:
      return value === null;
  }
}

/** A value as the person typed it, short and on one line, with its JSON type. */
function describeValue(value: unknown): string {
  const json = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  const shown = json.length > 60 ? `${json.slice(0, 60)}…` : json;
  const kind =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'an array'
        : typeof value === 'object'
          ? 'an object'
          : `a ${typeof value}`;
  return `${shown} (${kind})`;
}
