/**
 * Objects from the wire with every key kept exactly as the server sent it: `__proto__`, `constructor`, `toString`,
 * dotted, empty and non-ASCII keys alike. zod's `z.record` and loose objects skip an own `__proto__` key (to avoid the
 * prototype setter), which would silently drop a server's question or answer keyed `__proto__`. These schemas keep it
 * as an ordinary own property instead, and never change any object's prototype.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr: `inputRequests` and
 * `inputResponses` are maps keyed by server-chosen strings; https://www.rfc-editor.org/rfc/rfc8259#section-4: a JSON
 * object name is any string)
 *
 * @module
 */
import { z } from 'zod';

/** True for a JSON object: not `null`, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Sets `target[key] = value` as an own, enumerable data property. Unlike plain assignment, a `key` of `"__proto__"`
 * becomes a key like any other (kept by `Object.keys`, `JSON.stringify`, spread) and never replaces the prototype.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A JSON object, returned as it came (the same object, every own key kept). For maps whose values are not checked
 * (`_meta`, `structuredContent`, `params`, a JSON-RPC `result`).
 */
export function jsonObject(): z.ZodType<Record<string, unknown>> {
  return z.custom<Record<string, unknown>>(isJsonObject, { message: 'Invalid input: expected an object' });
}

/**
 * Checks a value against `schema` and returns the value itself, not zod's copy, so that keys zod would skip (an own
 * `__proto__`) are kept. Only for schemas that validate without transforming (loose objects, unions of them).
 */
export function keptAsIs<S extends z.ZodType>(schema: S): z.ZodType<z.output<S>> {
  return z.unknown().superRefine((value, ctx) => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return;
    for (const issue of parsed.error.issues)
      ctx.addIssue({ ...issue, input: value } as Parameters<typeof ctx.addIssue>[0]);
  }) as unknown as z.ZodType<z.output<S>>;
}

/** True when `object` has more than `max` own enumerable keys; stops counting at `max + 1` (no array of every key). */
function hasMoreKeysThan(object: Record<string, unknown>, max: number): boolean {
  let count = 0;
  for (const key in object) if (Object.hasOwn(object, key) && ++count > max) return true;
  return false;
}

/**
 * A string-keyed map whose every own key (including `__proto__`) is validated with `value` and kept in the output, in
 * the server's order. The output is a plain object; `__proto__` in it is an own data property.
 *
 * With `maxKeys`, a map of more keys is returned as it came (the same object), its values not checked: its keys are
 * counted first (stopping past the limit), so a hostile map of a million entries costs no validation, and the
 * caller, which enforces the limit, refuses it by its count without reading a value.
 */
export function exactRecord<V extends z.ZodType>(
  value: V,
  maxKeys?: number,
): z.ZodType<Record<string, z.output<V>>> {
  return z.unknown().transform((input, ctx) => {
    const out: Record<string, z.output<V>> = {};
    if (!isJsonObject(input)) {
      ctx.addIssue({ code: 'custom', message: 'Invalid input: expected an object', input });
      return z.NEVER;
    }
    if (maxKeys !== undefined && hasMoreKeysThan(input, maxKeys)) return input as Record<string, z.output<V>>;
    for (const key of Object.keys(input)) {
      const parsed = value.safeParse(input[key]);
      if (parsed.success) setOwn(out, key, parsed.data);
      else
        for (const issue of parsed.error.issues)
          ctx.addIssue({ ...issue, path: [key, ...issue.path], input: input[key] } as Parameters<
            typeof ctx.addIssue
          >[0]);
    }
    return out;
  }) as unknown as z.ZodType<Record<string, z.output<V>>>;
}
