import { describe, expect, it } from 'vitest';
import { encodeHeaderValue } from '../../src/transport/header-encoding.js';

const b64 = (s: string) => `=?base64?${Buffer.from(s, 'utf8').toString('base64')}?=`;

describe('encodeHeaderValue (2.6)', () => {
  it.each([
    'reindex',
    'file:///docs/a%20b.txt?rev=2&x=y',
    'a b c',
    't-4f9c',
    '=?base64?', // starts like the sentinel but does not end like it
    '',
  ])('2.6: printable ASCII %j stays verbatim', (value) => {
    expect(encodeHeaderValue(value)).toBe(value);
  });

  it.each([
    ['non-ASCII', 'café', '=?base64?Y2Fmw6k=?='],
    ['emoji', 'deploy 🚀', b64('deploy 🚀')],
    ['CJK', '東京', b64('東京')],
    ['a tab', 'a\tb', b64('a\tb')],
    ['a newline', 'line1\nline2', b64('line1\nline2')],
    ['DEL', 'x\x7f', b64('x\x7f')],
    ['leading space', ' lead', b64(' lead')],
    ['trailing space', 'trail ', b64('trail ')],
    ['the sentinel look', '=?base64?abc?=', b64('=?base64?abc?=')],
    ['the sentinel look in other case', '=?BASE64?abc?=', b64('=?BASE64?abc?=')],
  ])('2.6: %s is base64-encoded', (_label, value, expected) => {
    expect(encodeHeaderValue(value)).toBe(expected);
  });

  it('round-trips UTF-8 through the sentinel', () => {
    const value = 'Zürich — ünïcödé ✓';
    const encoded = encodeHeaderValue(value);
    const inner = /^=\?base64\?(.*)\?=$/.exec(encoded)?.[1];
    expect(Buffer.from(inner ?? '', 'base64').toString('utf8')).toBe(value);
  });
});
