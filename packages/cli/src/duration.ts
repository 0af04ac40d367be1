/**
 * Durations on the command line: `500ms`, `30s`, `2m`, `1h`, or a bare number of milliseconds.
 *
 * @module
 */
import { UsageError } from './exit-codes.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * Parses a positive duration (or, with `allowZero`, a non-negative one) into milliseconds.
 *
 * @throws {@link UsageError} naming the option when `raw` is not such a duration.
 */
export function parseDuration(
  name: string,
  raw: string,
  { allowZero = false }: { allowZero?: boolean } = {},
): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(raw);
  const ms = match ? Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] as number)) : NaN;
  if (!Number.isSafeInteger(ms) || ms < 0 || (ms === 0 && !allowZero)) {
    throw new UsageError(
      `${name} must be a ${allowZero ? 'duration' : 'positive duration'} such as 30s, 2m or 500ms (a bare number is milliseconds), got ${JSON.stringify(raw)}`,
    );
  }
  return ms;
}

/** A duration for a message: `30 ms` below a second (where `0.0 s` would hide it), else `5.0 s`. */
export function formatMs(ms: number): string {
  return ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

/**
 * The warning for a `--timeout` given as a bare number from 1 to 999 (`--timeout 30`: 30 ms, most likely meant as
 * seconds), or `undefined`. `0` gets none: `0s` is no different, and the usage error already says it is not allowed.
 *
 * @param argv the arguments after `node` and the script.
 */
export function bareTimeoutWarning(argv: readonly string[]): string | undefined {
  const end = argv.indexOf('--');
  for (const [i, token] of (end === -1 ? argv : argv.slice(0, end)).entries()) {
    const raw =
      token === '--timeout' ? argv[i + 1] : token.startsWith('--timeout=') ? token.slice(10) : undefined;
    if (raw !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(raw) && Number(raw) > 0 && Number(raw) < 1_000) {
      const n = raw.trim();
      return `--timeout ${n} is ${n} ms; write ${n}s for seconds`;
    }
  }
  return undefined;
}
