/**
 * JSON text for values nested too deeply for `JSON.stringify` (which recurses and throws `RangeError: Maximum call
 * stack size exceeded` somewhere past a few thousand levels, depending on the stack). Results nested deeper than
 * 256 (`MAX_PRETTY_DEPTH`) levels are written compactly by an iterative serializer instead, so a hostile or odd
 * result is still printed and stored exactly, never a crash.
 *
 * JSON text format: https://www.rfc-editor.org/rfc/rfc8259
 *
 * @module
 */

/** Deepest nesting (objects and arrays) that {@link toJsonText} indents; deeper values are written compactly. */
export const MAX_PRETTY_DEPTH = 256;

/** True when `value` nests objects/arrays deeper than `limit` levels. Iterative: safe at any depth. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

type Frame = { items: Array<[string | undefined, unknown]>; index: number; close: string };

/**
 * Compact JSON text of `value`, like `JSON.stringify(value)` for JSON data (`undefined` members skipped, `undefined`
 * array items and non-finite numbers written as `null`), without recursion.
 */
export function stringifyIteratively(value: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const writeValue = (v: unknown): void => {
    if (v !== null && typeof v === 'object') {
      if (Array.isArray(v)) {
        out.push('[');
        stack.push({ items: v.map((item) => [undefined, item]), index: 0, close: ']' });
      } else {
        out.push('{');
        const entries = Object.entries(v).filter(
          ([, member]) => member !== undefined && typeof member !== 'function',
        );
        stack.push({ items: entries, index: 0, close: '}' });
      }
      return;
    }
    if (typeof v === 'number') out.push(Number.isFinite(v) ? String(v) : 'null');
    else if (typeof v === 'string' || typeof v === 'boolean') out.push(JSON.stringify(v));
    else if (typeof v === 'bigint') out.push(String(v));
    else out.push('null');
  };
  writeValue(value);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.index >= frame.items.length) {
      out.push(frame.close);
      stack.pop();
      continue;
    }
    const [key, item] = frame.items[frame.index] as [string | undefined, unknown];
    if (frame.index > 0) out.push(',');
    frame.index++;
    if (key !== undefined) out.push(`${JSON.stringify(key)}:`);
    writeValue(item);
  }
  return out.join('');
}

/**
 * `JSON.stringify(value, null, indent)` for values up to 256 (`MAX_PRETTY_DEPTH`) levels deep; deeper values are
 * written compactly by an iterative serializer.
 */
export function toJsonText(value: unknown, indent?: number): string {
  if (nestsDeeperThan(value, MAX_PRETTY_DEPTH)) return stringifyIteratively(value);
  return JSON.stringify(value, null, indent);
}

/**
 * A deep copy of JSON data: `structuredClone`, or for data nested too deeply for it, a round trip through
 * an iterative serializer and `JSON.parse` (which does not recurse).
 */
export function cloneJson<T>(value: T): T {
  try {
    return structuredClone(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return JSON.parse(stringifyIteratively(value)) as T;
  }
}

/**
 * True when `a` and `b` are the same JSON data: objects compared key by key whatever their key order, arrays item by
 * item. Data nested deeper than {@link MAX_PRETTY_DEPTH} is compared as its iterative serialization (key order then
 * counts).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (nestsDeeperThan(a, MAX_PRETTY_DEPTH) || nestsDeeperThan(b, MAX_PRETTY_DEPTH))
    return stringifyIteratively(a) === stringifyIteratively(b);
  return sameValue(a, b);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameValue(item, other[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x).filter((k) => x[k] !== undefined);
  if (keys.length !== Object.keys(y).filter((k) => y[k] !== undefined).length) return false;
  return keys.every((k) => Object.hasOwn(y, k) && sameValue(x[k], y[k]));
}
