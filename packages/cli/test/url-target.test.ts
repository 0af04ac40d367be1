/**
 * URL-mode elicitation shows where a URL leads before asking to open it (MCP elicitation § URL mode: the client
 * clearly displays the target domain; CLIENT-REQUIREMENTS on URL elicitation): the real (punycode) host beside the
 * full URL, a warning for a host with non-ASCII letters (mixed-script and whole-script homographs), and for a user
 * name before `@` that reads like a host.
 */
import { describe, expect, it } from 'vitest';
import { urlTarget } from '../src/input/url-target.js';

describe('urlTarget', () => {
  it('a plain https URL: the host, no warning, may be opened', () => {
    expect(urlTarget('https://example.com/login?x=1')).toEqual({
      host: 'example.com',
      openable: true,
      lines: ['leads to: example.com'],
    });
  });

  it('a Cyrillic а in apple.com: the punycode host and a warning naming both forms', () => {
    const target = urlTarget('https://аpple.com/signin');
    expect(target.host).toBe('xn--pple-43d.com');
    expect(target.lines).toEqual([
      'leads to: xn--pple-43d.com',
      'warning: the host is written with non-ASCII letters (аpple.com); the real host is xn--pple-43d.com. Letters of other scripts can look exactly like Latin ones: open it only if xn--pple-43d.com is the site you expect.',
    ]);
  });

  it('a whole-script homograph (all Cyrillic аррӏе.com) is warned about too', () => {
    const target = urlTarget('https://аррӏе.com/');
    expect(target.host).toBe('xn--80ak6aa92e.com');
    expect(target.lines[1]).toMatch(/^warning: the host is written with non-ASCII letters \(аррӏе\.com\)/);
  });

  it('userinfo that looks like a host: says the site is the host after the @', () => {
    const target = urlTarget('https://accounts.google.com@evil.example/');
    expect(target.host).toBe('evil.example');
    expect(target.lines).toEqual([
      'leads to: evil.example',
      'warning: "accounts.google.com" before the @ is a user name, not the site: this URL leads to evil.example.',
    ]);
  });

  it('a port is shown; a non-http(s) or unparsable URL is not offered for opening', () => {
    expect(urlTarget('http://127.0.0.1:8080/cb').lines[0]).toBe('leads to: 127.0.0.1 (port 8080)');
    expect(urlTarget('javascript:alert(1)').openable).toBe(false);
    expect(urlTarget('not a url')).toMatchObject({ openable: false, host: undefined });
  });
});
