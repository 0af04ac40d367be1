/**
 * Keys a server may choose for `inputRequests` (any string, MRTR § InputRequests): prototype names, dotted, empty,
 * non-ASCII (composed and decomposed é are different keys), and a map builder that keeps `__proto__` as an own key.
 */
export const ODD_KEYS = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'a.b.c',
  '',
  'é',
  'e\u0301',
  '日本',
  '🔑',
];

/** `{[key]: make(key)}` for every key, each an own property (never the `__proto__` setter). */
export function mapOf<T>(keys: readonly string[], make: (key: string) => T): Record<string, T> {
  const map: Record<string, T> = {};
  for (const key of keys)
    Object.defineProperty(map, key, {
      value: make(key),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return map;
}
