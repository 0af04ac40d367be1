/**
 * `Retry-After` (RFC 9110 § 10.2.3): `delay-seconds = 1*DIGIT` or an `HTTP-date`; nothing else is a delay.
 */
import { describe, expect, it } from 'vitest';
import { HttpError, StreamableHttpTransport } from '../../src/index.js';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from '../../src/transport/retry-after.js';
import { fakeFetch } from '../helpers/unit-fixtures.js';

const NOW = Date.parse('2026-08-01T12:00:00Z');

describe('parseRetryAfter (RFC 9110 § 10.2.3)', () => {
  it.each([
    ['0', 0],
    ['5', 5_000],
    ['0005', 5_000],
    ['120', 120_000],
    [' 5 ', 5_000], // OWS around a field value is not part of it (RFC 9110 § 5.5)
    ['\t7', 7_000],
    ['3600', 3_600_000],
    ['2147484', 2_147_484_000],
    ['9'.repeat(400), MAX_RETRY_AFTER_MS], // too many digits for a double: capped, never Infinity
    ['Sat, 01 Aug 2026 12:00:30 GMT', 30_000], // IMF-fixdate
    ['Sat, 01 Aug 2026 11:00:00 GMT', 0], // a date in the past: retry now
    ['Saturday, 01-Aug-26 12:01:00 GMT', 60_000], // obsolete RFC 850 date
    ['Sat Aug  1 12:00:10 2026', 10_000], // obsolete asctime date
  ])('%j → %d ms', (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });

  it.each([
    [null],
    [''],
    ['0x10'],
    ['1e3'],
    ['-1'],
    ['+5'],
    ['5.5'],
    ['.5'],
    ['Infinity'],
    ['NaN'],
    ['5s'],
    ['\u00a05'],
    ['5\n'],
    ['١٢'], // Arabic-Indic digits are not DIGIT
    ['2026-08-01T12:00:30Z'], // ISO 8601 is not an HTTP-date
    ['Sat, 01 Aug 2026 12:00:30'], // no GMT
    ['Sat, 31 Feb 2026 12:00:30 GMT'], // no such day
    ['Sat, 01 Aug 2026 25:00:30 GMT'],
    ['tomorrow'],
  ])('%j → undefined (not a Retry-After value)', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });

  it('the transport puts the parsed value on HttpError.retryAfterMs: 0x10 is no delay, 16 is 16 s', async () => {
    for (const [header, expected] of [
      ['0x10', undefined],
      ['1e3', undefined],
      ['-1', undefined],
      ['Infinity', undefined],
      ['16', 16_000],
    ] as const) {
      const { fetch } = fakeFetch(
        () => new Response('slow down', { status: 429, headers: { 'Retry-After': header } }),
      );
      const transport = new StreamableHttpTransport('http://127.0.0.1:1/mcp', { fetch });
      const error = await transport
        .request({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).retryAfterMs).toBe(expected);
      await transport.close();
    }
  });
});
