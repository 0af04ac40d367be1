/**
 * The one rule for every duration option (client-level and per-call), in milliseconds: a number, not NaN, not
 * negative (not 0 where 0 means nothing), and at most {@link MAX_TIMER_MS}, the longest delay a JavaScript timer can
 * hold (a longer one fires at once). Only where "no limit" is a documented meaning (`maxTotalTimeoutMs`) do
 * `Infinity` and any value above {@link MAX_TIMER_MS} mean "no limit". Anything else is a `TypeError` naming the
 * option, thrown at the call that got it.
 *
 * @module
 * @internal
 */
import { z } from 'zod';

/** The longest delay `setTimeout` holds, ms (2^31 − 1, about 24.8 days); longer ones overflow to 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

/** How one duration option is checked. */
export interface DurationRule {
  /** `'positive'`: 0 is refused; `'zero'`: 0 is allowed. @default 'positive' */
  min?: 'positive' | 'zero';
  /** `Infinity` and values above {@link MAX_TIMER_MS} mean "no limit" (only where documented). */
  unlimited?: boolean;
  /** A floor above 0, ms (e.g. a lease of at least 100 ms). */
  atLeast?: number;
  /** Only whole milliseconds. */
  integer?: boolean;
}

/** Why `value` breaks the rule, or `undefined` when it is fine (or absent). */
export function durationProblem(value: unknown, rule: DurationRule = {}): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || Number.isNaN(value)) return 'must be a number of milliseconds';
  if (value < 0 || (value === 0 && rule.min !== 'zero'))
    return rule.min === 'zero' ? 'must not be negative' : 'must be greater than 0';
  if (value > MAX_TIMER_MS && !rule.unlimited)
    return `must be at most ${MAX_TIMER_MS} ms (the longest timer delay)`;
  if (rule.atLeast !== undefined && value < rule.atLeast) return `must be at least ${rule.atLeast} ms`;
  if (rule.integer && !Number.isInteger(value)) return 'must be a whole number of milliseconds';
  return undefined;
}

/** The `TypeError` (`<where>: option "<name>" … got <value>`) when `value` breaks the duration rule, else `undefined`. */
export function durationError(
  where: string,
  name: string,
  value: unknown,
  rule: DurationRule = {},
): TypeError | undefined {
  const problem = durationProblem(value, rule);
  return problem === undefined
    ? undefined
    : new TypeError(
        `${where}: option "${name}" ${problem}; got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
      );
}

/** A timer delay for a duration under the rule: `undefined` for "no limit" (Infinity or above the timer's range). */
export function timerDelay(ms: number | undefined): number | undefined {
  return ms === undefined || !(ms <= MAX_TIMER_MS) ? undefined : Math.max(0, ms);
}

/** The zod schema of a duration option under `rule` (for options validated with zod); the message is the rule's. */
export function durationSchema(rule: DurationRule = {}) {
  return z.custom<number>((value) => durationProblem(value, rule) === undefined, {
    error: (issue) => durationProblem(issue.input, rule) ?? 'invalid duration',
  });
}
