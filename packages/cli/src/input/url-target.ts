/**
 * Where a URL-mode elicitation really leads, for the person to read before anything opens: the host the browser
 * would connect to (its ASCII form: punycode for an internationalized name), with a warning for a host written
 * with non-ASCII letters (a whole-script homograph such as an all-Cyrillic `аррӏе.com` included: letters of another
 * script can look exactly like Latin ones) and for a user name before `@` that looks like a host
 * (`https://accounts.google.com@evil.example/` leads to evil.example). The specification asks a client to clearly
 * display the target domain before opening a URL.
 * (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#url-mode-elicitation ;
 * IDNA: https://url.spec.whatwg.org/#idna ; homographs: https://www.unicode.org/reports/tr39/#Confusable_Detection)
 *
 * @module
 */
import { domainToUnicode } from 'node:url';
import { safeLine } from 'mcp-tasks-client';

/** What the person is shown about a URL before being asked to open it. */
export interface UrlTarget {
  /** The host the browser would connect to, in ASCII (punycode for an internationalized name); `undefined` when the URL does not parse. */
  readonly host: string | undefined;
  /** Whether the URL may be opened at all (an http(s) URL that parses). */
  readonly openable: boolean;
  /** The lines to show under the URL: the host, then each warning. */
  readonly lines: readonly string[];
}

/** A user name or password that reads like a host name or address (`accounts.google.com`, `10.0.0.1`). */
const HOST_LIKE = /^[^\s/]*[.:][^\s/]*$/;

/** The target of `raw` as {@link UrlTarget} says. Never throws. */
export function urlTarget(raw: string): UrlTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return {
      host: undefined,
      openable: false,
      lines: ['warning: this is not a valid URL; it will not be opened'],
    };
  }
  const host = url.hostname;
  const lines = [`leads to: ${safeLine(host)}${url.port ? ` (port ${url.port})` : ''}`];
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return {
      host,
      openable: false,
      lines: [...lines, `warning: a ${safeLine(url.protocol)} URL; only http and https URLs are opened`],
    };
  if (host.split('.').some((label) => label.startsWith('xn--')))
    lines.push(
      `warning: the host is written with non-ASCII letters (${safeLine(domainToUnicode(host))}); the real host is ${host}. Letters of other scripts can look exactly like Latin ones: open it only if ${host} is the site you expect.`,
    );
  const userinfo = [url.username, url.password].map((part) => safeDecode(part)).filter((part) => part !== '');
  const hostLike = userinfo.find((part) => HOST_LIKE.test(part));
  if (hostLike !== undefined)
    lines.push(
      `warning: "${safeLine(hostLike)}" before the @ is a user name, not the site: this URL leads to ${host}.`,
    );
  else if (userinfo.length > 0)
    lines.push(`warning: the URL carries a user name before the @; it leads to ${host}.`);
  return { host, openable: true, lines };
}

/** A percent-decoded URL part, or the part as written when it does not decode. */
function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
