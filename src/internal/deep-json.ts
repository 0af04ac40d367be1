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
 * A 31-bit fingerprint of JSON data: data that is the same (objects key by key whatever their key order, arrays item by
 * item, `undefined` members left out) has the same fingerprint, and different data almost never does (one chance in
 * 2^31: the cyrb53 mixing of two 32-bit lanes over a canonical text: sorted keys, JSON-quoted strings and keys, a comma
 * after every value). Iterative: safe at any depth. Kept instead of the data where only "the same as before?" is
 * asked; 31 bits so that keeping it allocates nothing (a small integer in V8).
 */
export function jsonFingerprint(value: unknown): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  const feed = (text: string): void => {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
  };
  // Text to feed as it is, or a value still to walk.
  const stack: Array<{ text: string } | { value: unknown }> = [{ value }];
  while (stack.length > 0) {
    const next = stack.pop() as { text: string } | { value: unknown };
    if ('text' in next) {
      feed(next.text);
      continue;
    }
    const v = next.value;
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'string') feed(JSON.stringify(v));
      else if (typeof v === 'number') feed(Number.isFinite(v) ? String(v) : 'null');
      else if (typeof v === 'boolean' || typeof v === 'bigint') feed(String(v));
      else feed('null');
      feed(',');
      continue;
    }
    stack.push({ text: Array.isArray(v) ? '],' : '},' });
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i] });
      feed('[');
      continue;
    }
    const record = v as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort();
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      stack.push({ value: record[key] });
      stack.push({ text: `${JSON.stringify(key)}:` });
    }
    feed('{');
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h1 ^ h2) & 0x7fffffff;
}
