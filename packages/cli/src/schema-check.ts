/**
 * Checks a call's arguments against the tool's `inputSchema` (from `tools/list`) before anything is sent, so a
 * missing required argument or a mistyped name is a usage error that names it, with the closest property name,
 * instead of the server's -32602. Only what the schema itself forbids is refused: a missing `required` property,
 * and an unknown property when the schema says `additionalProperties: false`. Without a schema nothing is checked.
 *
 * Tool input schemas: https://modelcontextprotocol.io/specification/2026-07-28/server/tools
 *
 * @module
 */
import { UsageError } from './exit-codes.js';
import { closestNames } from './suggest.js';

const quoted = (names: readonly string[]): string => names.map((n) => JSON.stringify(n)).join(', ');

/**
 * @throws {@link UsageError} naming the missing required arguments and the unknown ones (each with its closest
 *   property names), when the schema forbids the call.
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
  if (missing.length === 0 && (!closed || unknown.length === 0)) return;
  const parts: string[] = [];
  if (missing.length > 0)
    parts.push(`missing required argument${missing.length > 1 ? 's' : ''} ${quoted(missing)}`);
  const open = (props ?? []).filter((p) => !Object.hasOwn(args, p));
  for (const name of unknown) {
    const close = closestNames(name, open);
    parts.push(
      `unknown argument ${JSON.stringify(name)}${close.length > 0 ? ` (did you mean ${quoted(close)}?)` : ''}`,
    );
  }
  const usage = required.length > 0 ? `; it needs ${required.map((k) => `${k}=…`).join(' ')}` : '';
  throw new UsageError(
    `${tool}: ${parts.join('; ')}${usage} (nothing was called; its arguments: mcp-tasks tools)`,
  );
}
