/**
 * Reading a `Retry-After` header (RFC 9110 § 10.2.3): `delay-seconds` (`1*DIGIT`) or an `HTTP-date`
 * (https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3, § 5.6.7). Nothing else is a delay: `0x10`, `1e3`, `-1`,
 * `5.5`, `Infinity` or a date in any other format is ignored rather than guessed at.
 *
 * @module
 */

/** The largest delay this parser returns, ms: a longer `Retry-After` is kept as this (still "a very long time"). */
export const MAX_RETRY_AFTER_MS = Number.MAX_SAFE_INTEGER;

const DAYS = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAYS = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = new RegExp(`^${DAYS}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** Obsolete RFC 850 date: `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC850_DATE = new RegExp(`^${LONG_DAYS}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** Obsolete asctime date: `Sun Nov  6 08:49:37 1994`. */
const ASCTIME_DATE = new RegExp(`^${DAYS} ${MONTH} ((?:\\d| )\\d) ${TIME} (\\d{4})$`);

/**
 * The delay a `Retry-After` value asks for, in ms: `delay-seconds` × 1000, or an `HTTP-date` minus `now` (at
 * least 0). Leading and trailing spaces and tabs are not part of a field value (RFC 9110 § 5.5) and are dropped;
 * anything that is neither form gives `undefined`. Capped at {@link MAX_RETRY_AFTER_MS}.
 *
 * @param value - the header's value, `null` when absent.
 * @param now - the current time, epoch ms.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const field = value.replace(/^[ \t]+|[ \t]+$/g, '');
  if (/^\d+$/.test(field)) return Math.min(Number(field) * 1000, MAX_RETRY_AFTER_MS);
  const at = httpDate(field, now);
  return at === undefined ? undefined : Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
}

/** Epoch ms of an `HTTP-date` (any of its three forms), or `undefined`. */
function httpDate(field: string, now: number): number | undefined {
  let m = IMF_FIXDATE.exec(field);
  if (m) return utc(Number(m[3]), m[2]!, m[1]!, m.slice(4, 7));
  m = RFC850_DATE.exec(field);
  if (m) {
    // A two-digit year more than 50 years in the future is the most recent past year with those digits (§ 5.6.7).
    let year = Math.floor(new Date(now).getUTCFullYear() / 100) * 100 + Number(m[3]);
    if (year > new Date(now).getUTCFullYear() + 50) year -= 100;
    return utc(year, m[2]!, m[1]!, m.slice(4, 7));
  }
  m = ASCTIME_DATE.exec(field);
  if (m) return utc(Number(m[6]), m[1]!, m[2]!.trim(), m.slice(3, 6));
  return undefined;
}

function utc(year: number, month: string, day: string, time: string[]): number | undefined {
  const [h, min, s] = time.map(Number) as [number, number, number];
  const d = Number(day);
  const mon = MONTHS.indexOf(month);
  if (d < 1 || d > 31 || h > 23 || min > 59 || s > 60) return undefined;
  const at = Date.UTC(year, mon, d, h, min, Math.min(s, 59));
  return new Date(at).getUTCDate() === d ? at : undefined; // 31 Feb is no date
}
