/**
 * Which `subscriptions/listen` streams a new stream takes over when a server already has as many open as allowed.
 * Pure: the push channel gives the number of followed task ids on each open stream and how many ids the new stream
 * must add, and gets back the streams whose ids the new stream asks for too (each of those is closed once the new
 * one is acknowledged, so every id stays on one stream and the count stays bounded).
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions)
 *
 * @module
 */

/** At most this many `subscriptions/listen` streams open to one server at a time (one of them may be opening). */
export const DEFAULT_MAX_PUSH_STREAMS = 4;

/**
 * The indexes (into `sizes`) of the streams a new stream for `fresh` ids takes over. Below `maxStreams` open
 * streams: none. At the cap: the smallest stream, then each next smallest as long as it is no larger than the ids
 * gathered so far (the doubling rule: stream sizes stay roughly geometric, so an id is asked for again only
 * about log2(ids) times over a burst of new tasks), and always enough that at most `maxStreams` remain with the new one.
 *
 * @param sizes followed task ids on each open stream
 * @param fresh task ids the new stream adds (on no open stream)
 * @param maxStreams the cap, ≥ 1
 */
export function planTakeOver(sizes: readonly number[], fresh: number, maxStreams: number): number[] {
  if (sizes.length < maxStreams) return [];
  const order = sizes
    .map((size, index) => ({ size, index }))
    .sort((a, b) => a.size - b.size || a.index - b.index);
  const taken: number[] = [];
  let gathered = fresh;
  for (const { size, index } of order) {
    const fits = sizes.length - taken.length < maxStreams;
    if (fits && taken.length > 0 && size > gathered) break;
    taken.push(index);
    gathered += size;
  }
  return taken;
}
