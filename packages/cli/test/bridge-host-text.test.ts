/**
 * The bridge's escaping of upstream strings for the host (hostLine, hostText, hostQuoted) and its prompt names
 * (HostPrompts): what is escaped, that a quoted id parses back to the exact value, and that a renamed prompt keeps
 * its name across listings, never takes a printable upstream name, and maps its arguments back.
 */
import { describe, expect, it } from 'vitest';
import { HostPrompts } from '../src/bridge/host-names.js';
import { hostLine, hostQuoted, hostText } from 'mcp-tasks-client/tool-runtime';

const HIDDEN = 'a\u200bb\u2060c\u180ed\u{e0041}e\ufeff\u202e';

describe('host text', () => {
  it('escapes what safeLine escapes and the invisible characters; multi-line text keeps joiners and ordinary text', () => {
    expect(hostLine(HIDDEN)).toBe('a\\u200bb\\u2060c\\u180ed\\u{e0041}e\\ufeff\\u202e');
    expect(hostLine('one\ntwo\tthree')).toBe('one\\x0atwo\\x09three');
    expect(hostText('one\ntwo\tthree\u001b[2J')).toBe('one\ntwo\tthree\\x1b[2J');
    // Joiners stay in multi-line text (an emoji family and Persian text need them); a one-line field escapes them,
    // as safeLine does (there they only hide text).
    expect(hostText('👨\u200d👩 می\u200cخواهم é')).toBe('👨\u200d👩 می\u200cخواهم é');
    expect(hostLine('t-1\u200d')).toBe('t-1\\u200d');
  });

  it('quotes an id so that its JSON parses back to the exact value, with nothing unsafe left raw', () => {
    const id = `t-${HIDDEN}\n\u0085`;
    const quoted = hostQuoted(id);
    expect(quoted).toBe('"t-a\\u200bb\\u2060c\\u180ed\\udb40\\udc41e\\ufeff\\u202e\\n\\u0085"');
    expect(JSON.parse(quoted)).toBe(id);
  });
});

describe('HostPrompts', () => {
  it('renames a prompt that is not printable, never onto a printable upstream name, the same way each listing', () => {
    const prompts = new HostPrompts();
    const page = {
      prompts: [
        { name: 'a\u202eb', arguments: [{ name: 'x\u200by' }, { name: 'x\\u200by' }] },
        { name: 'a\\u202eb', description: 'a printable name that looks like the escaped one' },
      ],
      nextCursor: 'c1',
    };
    const shown = prompts.list(page) as { prompts: { name: string; arguments?: { name: string }[] }[] };
    expect(shown.prompts.map((p) => p.name)).toEqual(['a\\u202eb_2', 'a\\u202eb']);
    expect(shown.prompts[0]?.arguments?.map((a) => a.name)).toEqual(['x\\u200by_2', 'x\\u200by']);
    expect((shown as unknown as { nextCursor: string }).nextCursor).toBe('c1');
    expect(prompts.upstream('a\\u202eb_2', { 'x\\u200by_2': '1', 'x\\u200by': '2' })).toEqual({
      name: 'a\u202eb',
      arguments: { 'x\u200by': '1', 'x\\u200by': '2' },
    });
    // A printable name, or one never listed, goes upstream as the host gave it.
    expect(prompts.upstream('a\\u202eb', { k: 'v' })).toEqual({ name: 'a\\u202eb', arguments: { k: 'v' } });
    expect(prompts.upstream('other', undefined)).toEqual({ name: 'other', arguments: undefined });
    // Listed again (another page, the same prompt): the same host name.
    const again = prompts.list({ prompts: [{ name: 'a\u202eb' }] }) as { prompts: { name: string }[] };
    expect(again.prompts[0]?.name).toBe('a\\u202eb_2');
  });
});
