/**
 * Redirects of a JSON-RPC POST. Every hop is fetched with `redirect: 'manual'` and decided here, so that a request
 * body (tool arguments) and its headers (credentials such as `Authorization` or `X-Api-Key`) never reach an origin
 * the caller did not choose, and a POST is never turned into a GET:
 *
 * - 307 / 308 (and 301 / 302, re-sent as the same POST, which RFC 9110 § 15.4 permits) to the endpoint's own origin,
 *   or to an origin named in `allowRedirectOrigins`: followed, at most {@link DEFAULT_MAX_REDIRECTS} hops;
 * - to any other origin: {@link RedirectBlockedError} naming the target origin, nothing sent there;
 * - 303 See Other: {@link RedirectBlockedError} (it means "GET this instead", which a JSON-RPC POST cannot do);
 * - a browser's opaque redirect (no `Location` visible): {@link RedirectBlockedError}.
 *
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http § Security Warning;
 * RFC 9110 § 15.4)
 *
 * @module
 * @internal
 */
import { RedirectBlockedError } from '../errors.js';

/**
 * The most redirect hops followed for one POST (same-origin or allowed origins only); one more fails with
 * `RedirectBlockedError` (`reason: 'too-many'`). See RFC 9110 § 15.4.
 */
export const DEFAULT_MAX_REDIRECTS = 5;

const FOLLOW_AS_POST = new Set([301, 302, 307, 308]);

/** Who may receive a redirected POST. */
export interface RedirectPolicy {
  /** The endpoint's origin: always allowed. */
  readonly origin: string;
  /** Further origins (`scheme://host[:port]`) the caller allowed. */
  readonly allowedOrigins: ReadonlySet<string>;
  readonly maxRedirects: number;
}

/**
 * Normalises `allowRedirectOrigins` entries to origins.
 *
 * @throws TypeError naming the entry when one is not an absolute http(s) URL or origin.
 */
export function redirectPolicy(endpoint: URL, allow: readonly string[] | undefined): RedirectPolicy {
  const allowedOrigins = new Set<string>();
  for (const entry of allow ?? []) {
    let url: URL;
    try {
      url = new URL(entry);
    } catch (error) {
      throw new TypeError(
        `StreamableHttpTransport: allowRedirectOrigins entry ${JSON.stringify(entry)} is not an absolute URL`,
        { cause: error },
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(
        `StreamableHttpTransport: allowRedirectOrigins entry ${JSON.stringify(entry)} is not http(s)`,
      );
    }
    allowedOrigins.add(url.origin);
  }
  return { origin: endpoint.origin, allowedOrigins, maxRedirects: DEFAULT_MAX_REDIRECTS };
}

/** The parts of a reply the redirect rule reads: a fetch `Response` or a sender's `HttpReply`. */
export interface RedirectReply {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: { cancel(): Promise<unknown> } | null;
  /** fetch's `'opaqueredirect'` (a browser hides where a manual redirect points). */
  readonly type?: string;
  /** The same, from a sender. */
  readonly opaque?: boolean;
}

/**
 * Fetches `url` through `hop` and follows the redirects the policy allows; resolves with the first non-redirect
 * response. Redirect responses' bodies are discarded.
 *
 * @param hop - one fetch of one URL with `redirect: 'manual'` (same method, headers and body each time).
 * @throws {@link RedirectBlockedError} for a redirect not followed; whatever `hop` throws.
 */
export function fetchFollowingRedirects<R extends RedirectReply>(
  method: string,
  url: URL,
  policy: RedirectPolicy,
  hop: (url: URL) => Promise<R>,
): Promise<R> {
  // The usual reply, not a redirect, settles without an async frame of its own.
  let first: Promise<R>;
  try {
    first = Promise.resolve(hop(url)); // the same promise when `hop` gives a native one
  } catch (error) {
    return Promise.reject(error);
  }
  return first.then((res) => (isFinal(res) ? res : followRedirects(method, url, policy, hop, res)));
}

/** A reply that is returned as it is: no redirect, and not a browser's opaque one. */
function isFinal(res: RedirectReply): boolean {
  if (res.type === 'opaqueredirect' || res.opaque === true) return false;
  return res.status < 300 || res.status > 399 || (!FOLLOW_AS_POST.has(res.status) && res.status !== 303);
}

/** {@link fetchFollowingRedirects} from its first reply `first` (of `url`) on. */
async function followRedirects<R extends RedirectReply>(
  method: string,
  url: URL,
  policy: RedirectPolicy,
  hop: (url: URL) => Promise<R>,
  first: R,
): Promise<R> {
  let current = url;
  for (let hops = 0; ; hops++) {
    const res = hops === 0 ? first : await hop(current);
    if (res.type === 'opaqueredirect' || res.opaque === true) {
      await res.body?.cancel().catch(() => undefined);
      throw new RedirectBlockedError(method, res.status, undefined, 'opaque');
    }
    if (res.status < 300 || res.status > 399 || (!FOLLOW_AS_POST.has(res.status) && res.status !== 303))
      return res;
    await res.body?.cancel().catch(() => undefined);
    let target: URL | undefined;
    try {
      const location = res.headers.get('location');
      target = location === null ? undefined : new URL(location, current);
    } catch {
      target = undefined;
    }
    if (target === undefined || (target.protocol !== 'http:' && target.protocol !== 'https:')) {
      throw new RedirectBlockedError(
        method,
        res.status,
        target?.protocol.startsWith('http') ? target.origin : undefined,
        'no-location',
      );
    }
    if (res.status === 303) throw new RedirectBlockedError(method, res.status, target.origin, 'see-other');
    if (target.origin !== policy.origin && !policy.allowedOrigins.has(target.origin)) {
      throw new RedirectBlockedError(method, res.status, target.origin, 'cross-origin');
    }
    if (hops + 1 > policy.maxRedirects)
      throw new RedirectBlockedError(method, res.status, target.origin, 'too-many');
    current = target;
  }
}

/**
 * `fetch` with this policy for another HTTP stack (the 2025-11-25 session channel): every
 * request, whatever its method (a GET or DELETE carries the headers too), goes through
 * {@link fetchFollowingRedirects} with the same body and headers on each allowed hop.
 */
export function fetchWithRedirectPolicy(base: typeof fetch, policy: RedirectPolicy): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    return fetchFollowingRedirects(`HTTP ${method}`, url, policy, (hop) =>
      base(hop, { ...init, redirect: 'manual' }),
    );
  };
}
