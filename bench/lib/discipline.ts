/**
 * Poll-discipline arithmetic over server-side timings. For one task with server interval `I`, created on the server
 * at `c`, its creation result received by the client at `r` (≥ c, same machine clock), completed at `d`, and
 * `tasks/get` arrivals `a1 < a2 < … < an`:
 *
 * - the **minimum** number of polls that sees the completion is `max(1, ⌈(d − r) / I⌉)`: the floor starts when
 *   the client learns of the task, the polls at `r + I, r + 2I, …` are the earliest the floor allows, and the first
 *   of them at or after `d` is the one that sees it. Fewer polls are possible only by seeing it later;
 * - the **most** polls the floor allows over the observed lifetime is `⌊(max(an, d) − c) / I⌋`;
 * - a task observed through push may have no `tasks/get` at all (n = 0): it counts with zero polls;
 * - a poll is **early** when it arrives less than `I` after the previous one of the same task (the first: after `c`).
 */
import type { TaskTimes } from './child.js';
import { mean, percentile, round } from './measure.js';

/** One task: the server's timings, plus when the client received its creation result and saw its outcome. */
export interface TaskObservation extends TaskTimes {
  receivedAtMs: number;
  resolvedAtMs: number;
}

export interface DisciplineSummary {
  tasks: number;
  pollsSent: number;
  minimumPolls: number;
  /** pollsSent ÷ minimumPolls (target ≤ 1.05). */
  disciplineRatio: number;
  /** pollsSent ÷ Σ⌊observed lifetime ÷ I⌋ (≤ 1 whenever no poll is early). */
  floorUtilisation: number;
  earlyPolls: number;
  /** Smallest gap between consecutive polls of one task (or creation → first poll), as a fraction of I. */
  minGapOverInterval: number;
  /** Gaps between consecutive polls of one task, as a fraction of I (1 + jitter + queueing + round trip). */
  gapOverInterval: { p50: number; p99: number; max: number };
  /** Creation on the server → creation result at the client, ms. */
  creationLagMs: { p50: number; p99: number; max: number };
  /** Completion-observation delay (client resolved − server completed), as a fraction of I, and in ms. */
  delay: {
    p50: number;
    p99: number;
    max: number;
    meanMs: number;
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
  };
  /** Tasks without server or client timings (not counted anywhere else). */
  tasksWithMissingData: number;
  /** Tasks whose completion was observed without any `tasks/get` (through push). */
  tasksWithoutPolls: number;
}

const maxOf = (values: readonly number[]): number =>
  values.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);

export function discipline(tasks: readonly TaskObservation[], intervalMs: number): DisciplineSummary {
  let polls = 0;
  let minimum = 0;
  let allowed = 0;
  let early = 0;
  let minGap = Number.POSITIVE_INFINITY;
  let missing = 0;
  let withoutPolls = 0;
  const delays: number[] = [];
  const gaps: number[] = [];
  const lags: number[] = [];
  for (const t of tasks) {
    const known = [t.createdAtMs, t.completedAtMs, t.receivedAtMs, t.resolvedAtMs].every(Number.isFinite);
    if (!known) {
      missing++;
      continue;
    }
    // A task seen through push may have no poll at all: it still counts (delay, minimum), with zero polls.
    polls += t.gets.length;
    if (t.gets.length === 0) withoutPolls++;
    minimum += Math.max(1, Math.ceil((t.completedAtMs - t.receivedAtMs) / intervalMs));
    allowed += Math.floor((Math.max(t.completedAtMs, t.gets.at(-1) ?? 0) - t.createdAtMs) / intervalMs);
    lags.push(t.receivedAtMs - t.createdAtMs);
    for (let k = 0; k < t.gets.length; k++) {
      const at = t.gets[k] as number;
      const gap = at - (k === 0 ? t.createdAtMs : (t.gets[k - 1] as number));
      if (gap < intervalMs) early++;
      if (gap < minGap) minGap = gap;
      if (k > 0) gaps.push(gap);
    }
    delays.push(t.resolvedAtMs - t.completedAtMs);
  }
  const frac = (ms: number): number => round(ms / intervalMs, 3);
  return {
    tasks: tasks.length,
    pollsSent: polls,
    minimumPolls: minimum,
    disciplineRatio: round(polls / minimum, 4),
    floorUtilisation: round(polls / allowed, 4),
    earlyPolls: early,
    minGapOverInterval: frac(minGap),
    gapOverInterval: {
      p50: frac(percentile(gaps, 50)),
      p99: frac(percentile(gaps, 99)),
      max: frac(maxOf(gaps)),
    },
    creationLagMs: { p50: percentile(lags, 50), p99: percentile(lags, 99), max: maxOf(lags) },
    delay: {
      p50: frac(percentile(delays, 50)),
      p99: frac(percentile(delays, 99)),
      max: frac(maxOf(delays)),
      meanMs: round(mean(delays), 1),
      p50Ms: round(percentile(delays, 50), 1),
      p99Ms: round(percentile(delays, 99), 1),
      maxMs: round(maxOf(delays), 1),
    },
    tasksWithMissingData: missing,
    tasksWithoutPolls: withoutPolls,
  };
}
