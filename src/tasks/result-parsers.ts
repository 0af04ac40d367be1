/**
 * Validation of each method's final result (inline or from a completed task's `result`).
 *
 * @module
 * @internal
 */
import { InvalidResponseError } from '../errors.js';
import { METHODS } from '../protocol/constants.js';
import { isFastCallToolResult } from '../protocol/fast-shapes.js';
import {
  CallToolResultSchema,
  GetPromptResultSchema,
  ReadResourceResultSchema,
} from '../protocol/results.js';

const SCHEMAS = {
  [METHODS.callTool]: CallToolResultSchema,
  [METHODS.readResource]: ReadResourceResultSchema,
  [METHODS.getPrompt]: GetPromptResultSchema,
} as const;

/**
 * The parser of `method`'s result: schema-checked for known methods, passed through otherwise.
 *
 * @throws {@link InvalidResponseError} (from the returned function) when the result does not match.
 */
export function parserFor(method: string): (raw: Record<string, unknown>) => Record<string, unknown> {
  const schema = (SCHEMAS as Record<string, (typeof SCHEMAS)[keyof typeof SCHEMAS]>)[method];
  if (!schema) return (raw) => raw;
  // A well-formed tools/call result is returned as it is (what the schema returns) without zod
  const fast = method === METHODS.callTool ? isFastCallToolResult : undefined;
  return (raw) => {
    if (fast?.(raw)) return raw;
    const parsed = schema.safeParse(raw);
    if (parsed.success) return parsed.data;
    const first = parsed.error.issues[0];
    throw new InvalidResponseError(
      method,
      `result does not match the ${method} result schema at "${first?.path.join('.')}": ${first?.message}`,
      parsed.error.issues,
    );
  };
}
