/**
 * "Did you mean …": the names closest to a mistyped one, by edit distance (fastest-levenshtein), plus names that
 * contain it or that it contains.
 *
 * @module
 */
import { distance } from 'fastest-levenshtein';

/**
 * Up to `max` names from `candidates` close to `typed`, closest first: an edit distance of at most a third of the
 * longer name (at least 2), or one name containing the other (ignoring case).
 */
export function closestNames(typed: string, candidates: readonly string[], max = 3): string[] {
  const lower = typed.toLowerCase();
  return candidates
    .map((name) => {
      const d = distance(lower, name.toLowerCase());
      const contains = name.toLowerCase().includes(lower) || lower.includes(name.toLowerCase());
      return {
        name,
        d: contains ? Math.min(d, 1) : d,
        limit: Math.max(2, Math.floor(Math.max(name.length, typed.length) / 3)),
      };
    })
    .filter((c) => c.d <= c.limit)
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, max)
    .map((c) => c.name);
}
