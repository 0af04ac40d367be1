/** A seeded PRNG (mulberry32), so every run uses the same task lifetimes. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `n` integer lifetimes in ms, uniform over [minMs, maxMs]. */
export function lifetimes(n: number, minMs: number, maxMs: number, seed: number): number[] {
  const random = seeded(seed);
  return Array.from({ length: n }, () => Math.round(minMs + (maxMs - minMs) * random()));
}
