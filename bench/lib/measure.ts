/**
 * Measuring helpers for the benchmark: percentiles, a forced GC, heap and RSS sampling, and event-loop delay.
 */
import { monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The value at percentile `p` (0–100) of `values`, nearest-rank; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/** Arithmetic mean; NaN when empty. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

let gcFn: (() => void) | undefined;

/** A full, synchronous GC: `global.gc` when started with --expose-gc, else exposed on the fly through V8 flags. */
export function fullGc(): void {
  if (!gcFn) {
    const g = (globalThis as { gc?: () => void }).gc;
    if (g) gcFn = g;
    else {
      setFlagsFromString('--expose-gc');
      gcFn = runInNewContext('gc') as () => void;
    }
  }
  gcFn();
  gcFn();
}

/** Heap used after a full GC, in bytes; waits one macrotask first so settled promises can be collected. */
export async function retainedHeap(): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  fullGc();
  return process.memoryUsage().heapUsed;
}

/** Samples `heapUsed` and `rss` every `everyMs` and keeps the peaks. */
export class MemorySampler {
  peakHeap = 0;
  peakRss = 0;
  readonly #timer: ReturnType<typeof setInterval>;
  constructor(everyMs = 50) {
    this.sample();
    this.#timer = setInterval(() => this.sample(), everyMs);
  }
  sample(): void {
    const m = process.memoryUsage();
    if (m.heapUsed > this.peakHeap) this.peakHeap = m.heapUsed;
    if (m.rss > this.peakRss) this.peakRss = m.rss;
  }
  stop(): void {
    this.sample();
    clearInterval(this.#timer);
  }
}

/** Event-loop delay in ms from `perf_hooks.monitorEventLoopDelay`. */
export class LoopDelay {
  readonly #h: IntervalHistogram;
  constructor(resolutionMs = 5) {
    this.#h = monitorEventLoopDelay({ resolution: resolutionMs });
    this.#h.enable();
  }
  /** Stops sampling (e.g. around a forced GC, which is the benchmark's pause, not the client's). */
  pause(): void {
    this.#h.disable();
  }
  resume(): void {
    this.#h.enable();
  }
  reset(): void {
    this.#h.reset();
  }
  summary(): { p50Ms: number; p99Ms: number; maxMs: number; samples: number } {
    const ms = (ns: number): number => round(ns / 1e6, 2);
    return {
      p50Ms: ms(this.#h.percentile(50)),
      p99Ms: ms(this.#h.percentile(99)),
      maxMs: ms(this.#h.max),
      samples: this.#h.count,
    };
  }
  stop(): void {
    this.#h.disable();
  }
}

/** Rounds to `digits` decimals. */
export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Reads a positive integer from the environment, or `fallback`. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new TypeError(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return value;
}

/** Records GC pauses (perf_hooks 'gc' entries) while running: count, total and longest, in ms. */
export class GcPauses {
  count = 0;
  totalMs = 0;
  maxMs = 0;
  readonly #observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      this.count++;
      this.totalMs += entry.duration;
      if (entry.duration > this.maxMs) this.maxMs = entry.duration;
    }
  });
  constructor() {
    this.#observer.observe({ entryTypes: ['gc'] });
  }
  stop(): { count: number; totalMs: number; maxMs: number } {
    this.#observer.disconnect();
    return { count: this.count, totalMs: round(this.totalMs, 1), maxMs: round(this.maxMs, 1) };
  }
}
