/**
 * Unknown option keys: an options object with a key no option has (`timeoutMS`, `signall`) is a `TypeError` naming
 * the key and the closest known one, thrown at the call that got it, so a typo never silently drops a timeout or a
 * signal. Closeness is the edit distance, ignoring case (fastest-levenshtein).
 *
 * @module
 * @internal
 */
import { closest } from 'fastest-levenshtein';

/**
 * The known keys of an options interface, checked by the compiler against it: `keysOf<CallOptions>()({ … })`
 * must list every key of `T` and nothing else.
 */
export function keysOf<T>(): <K extends Record<keyof T, true>>(
  keys: K & Record<Exclude<keyof K, keyof T>, never>,
) => readonly string[] {
  return (keys) => Object.keys(keys);
}

/** The known key closest to `key` (edit distance, ignoring case; ties: the first listed). */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const lower = known.map((k) => k.toLowerCase());
  const near = closest(key.toLowerCase(), lower);
  return known[lower.indexOf(near)];
}

/**
 * The `TypeError` (`<where>: unknown option "<key>"; did you mean "<closest>"?`) for the first own string key of
 * `options` not in `known`, or `undefined` when every key is known (or `options` is not an object).
 */
export function unknownOptionError(
  where: string,
  options: unknown,
  known: readonly string[],
): TypeError | undefined {
  if (options === null || typeof options !== 'object') return undefined;
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const near = closestKey(key, known);
    return new TypeError(
      `${where}: unknown option ${JSON.stringify(key)}${near === undefined ? '' : `; did you mean ${JSON.stringify(near)}?`}`,
    );
  }
  return undefined;
}
