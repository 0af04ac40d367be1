/**
 * `safeText`, `safeLine` and `safeJson` escape every character `protocol/printable.ts` calls unprintable: C0/C1
 * controls and DEL (as `\xNN`), and U+2028/U+2029, the bidi controls and lone surrogates (as `\uXXXX`); `safeLine`
 * also escapes the zero-width characters U+200B–U+200D; `safeJson` output still parses back to the original string.
 * No server needed.
 */
import { describe, expect, it } from 'vitest';
import { safeJson, safeLine, safeText } from '../../src/protocol/printable.js';

const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
const HOSTILE = `a\u202eb\u2028c\u2029d\ud800e\udc00f\x1bg\u009bh`;

describe('safe-text', () => {
  it('safeLine escapes separators, every bidi control and lone surrogates, and still the C0/C1 controls', () => {
    expect(safeLine(HOSTILE)).toBe('a\\u202eb\\u2028c\\u2029d\\ud800e\\udc00f\\x1bg\\x9bh');
    expect(BIDI.map((c) => safeLine(c))).toEqual([
      '\\u202a',
      '\\u202b',
      '\\u202c',
      '\\u202d',
      '\\u202e',
      '\\u2066',
      '\\u2067',
      '\\u2068',
      '\\u2069',
    ]);
    expect(safeLine('line\nnext\ttab')).toBe('line\\x0anext\\x09tab');
  });

  it('safeText keeps \\n and \\t but escapes U+2028/U+2029 and bidi controls', () => {
    expect(safeText(`one\ntwo\tthree\u2028four\u202efive`)).toBe('one\ntwo\tthree\\u2028four\\u202efive');
  });

  it('the bidi marks U+061C, U+200E, U+200F and U+FEFF are escaped in every form, and JSON still parses back', () => {
    const marks = '\u061c\u200e\u200f\ufeff';
    expect(safeLine(`a${marks}b`)).toBe('a\\u061c\\u200e\\u200f\\ufeffb');
    expect(safeText(`a${marks}\nb`)).toBe('a\\u061c\\u200e\\u200f\\ufeff\nb');
    const json = safeJson(JSON.stringify({ marks }));
    expect(json).toBe('{"marks":"\\u061c\\u200e\\u200f\\ufeff"}');
    expect(JSON.parse(json)).toEqual({ marks });
  });

  it('a well-formed surrogate pair (an emoji) and ordinary non-ASCII text are kept', () => {
    expect(safeLine('ok \ud83d\ude00 é 日本')).toBe('ok \ud83d\ude00 é 日本');
    expect(safeText('\ud83d\ude00')).toBe('\ud83d\ude00');
  });

  it('safeLine escapes every zero-width and bidi-control character (U+200B–U+200F, U+202A–U+202E, U+2066–U+2069, U+FEFF): none can hide or reorder a one-line field', () => {
    const hiding = [
      ...'\u200b\u200c\u200d\u200e\u200f',
      ...'\u202a\u202b\u202c\u202d\u202e',
      ...'\u2066\u2067\u2068\u2069',
      '\ufeff',
    ];
    expect(hiding.map((c) => safeLine(`t-1${c}`))).toEqual(
      hiding.map((c) => `t-1\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    );
    // Two ids that differ only by a zero-width space print differently
    expect(safeLine('task-1\u200b')).not.toBe(safeLine('task-1'));
    expect(safeLine('a\u200bb\u200cc\u200dd')).toBe('a\\u200bb\\u200cc\\u200dd');
  });

  it('multi-line text keeps the zero-width joiner and non-joiner (emoji sequences, Persian and Indic text) and the zero-width space', () => {
    const family = '\ud83d\udc69\u200d\ud83d\udcbb'; // woman technologist: two emoji joined by U+200D
    expect(safeText(`${family}\nمی\u200cخواهم a\u200bb`)).toBe(`${family}\nمی\u200cخواهم a\u200bb`);
  });

  it('safeJson writes C1, U+2028/U+2029 and bidi controls as \\uXXXX; the text parses back to the same string', () => {
    const value = { text: HOSTILE, bidi: BIDI.join('') };
    const json = safeJson(JSON.stringify(value));
    expect(json).toBe(
      '{"text":"a\\u202eb\\u2028c\\u2029d\\ud800e\\udc00f\\u001bg\\u009bh","bidi":"\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069"}',
    );
    expect(/[\u0080-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(json)).toBe(false);
    expect(JSON.parse(json)).toEqual(value);
  });
});
