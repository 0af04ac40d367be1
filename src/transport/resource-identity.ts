/**
 * The protected resource metadata describes the resource it names only if that name is the resource identifier the
 * metadata URL was built from (RFC 9728 § 3.3); otherwise it must not be used. Which identifier that is depends on
 * how the client came to the URL:
 *
 * - the `resource_metadata` URL of a `WWW-Authenticate` challenge: the URL of the request that was refused, i.e. the
 *   server URL (every request goes to it);
 * - the well-known URI with the server URL's path after `/.well-known/oauth-protected-resource` (RFC 9728 § 3.1):
 *   the server URL;
 * - the root well-known URI `/.well-known/oauth-protected-resource` of the server's origin, which the official SDK
 *   falls back to when the path one is missing: the origin.
 *
 * "Identical" is compared on the parsed URLs, so the case of scheme and host, a default port, and the "/" of a
 * pathless identifier (`https://host` or `https://host/`) do not matter; path and query must be the same. The
 * published string itself is what the authorization and token requests carry, unchanged.
 * (https://www.rfc-editor.org/rfc/rfc9728#section-3.3)
 *
 * @module
 * @internal
 */
import { AuthorizationError, type ResourceMetadataSource } from '../errors.js';
import { printableExcerpt } from '../protocol/printable.js';

/** The RFC 9728 well-known path prefix. */
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** The server URL as a resource identifier: without its fragment (RFC 8707 § 2). */
function serverResource(serverUrl: URL): URL {
  const url = new URL(serverUrl.href);
  url.hash = '';
  return url;
}

/** The resource identifier the metadata fetched for `source` must name. */
function expectedResource(serverUrl: URL, source: ResourceMetadataSource): URL {
  return source === 'root' ? new URL(serverUrl.origin) : serverResource(serverUrl);
}

/** The well-known URL the official SDK builds for `source` (`path` or `root`) from the server URL. */
function wellKnownUrl(serverUrl: URL, source: 'path' | 'root'): URL {
  if (source === 'root') return new URL(WELL_KNOWN, serverUrl.origin);
  const path = serverUrl.pathname.endsWith('/') ? serverUrl.pathname.slice(0, -1) : serverUrl.pathname;
  const url = new URL(`${WELL_KNOWN}${path}`, serverUrl.origin);
  url.search = serverUrl.search;
  return url;
}

/**
 * Watches the requests of one authorization for a direct request of the root well-known URI: the official SDK asks
 * for it only when the path one failed, so then the metadata it uses (if any) came from the root. A request that
 * follows a redirect there does not count: the URL the client built was the path one.
 */
export class RootMetadataWatch {
  readonly #root: string;
  readonly #next: typeof fetch;
  #rootRequested = false;
  /** Where the last response redirected to, to tell a followed redirect from a request of its own. */
  #redirectedTo: string | undefined;

  constructor(serverUrl: URL, next: typeof fetch) {
    this.#root = wellKnownUrl(serverUrl, 'root').href;
    this.#next = next;
  }

  /** Whether the root well-known URI was asked for since the last {@link reset}. */
  get rootRequested(): boolean {
    return this.#rootRequested;
  }

  /** Starts watching a new discovery. */
  reset(): void {
    this.#rootRequested = false;
    this.#redirectedTo = undefined;
  }

  /** The watched fetch, for the SDK's `fetchFn`. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const href = hrefOf(input);
    const followed = href !== undefined && href === this.#redirectedTo;
    this.#redirectedTo = undefined;
    if (!followed && href === this.#root) this.#rootRequested = true;
    const res = await this.#next(input, init);
    const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
    if (location !== null && href !== undefined) this.#redirectedTo = parse(location, href)?.href;
    return res;
  };
}

function hrefOf(input: string | URL | Request): string | undefined {
  return parse(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)?.href;
}

function parse(text: string, base?: string): URL | undefined {
  try {
    return new URL(text, base);
  } catch {
    return undefined;
  }
}

/** What one discovery saved: the metadata it uses and the `resource_metadata` URL it was given, if any. */
export interface DiscoveredResource {
  /** The `resource` of the protected resource metadata, as published. */
  resource: string;
  /** The metadata URL the SDK was given (from a challenge, or remembered from one); none = well-known discovery. */
  resourceMetadataUrl: string | undefined;
  /** Whether the root well-known URI was asked for during this discovery. */
  rootRequested: boolean;
}

/**
 * Checks that the metadata names the resource identifier its URL was built from.
 *
 * @throws AuthorizationError with `resourceMismatch` (the published value, the required one, the metadata URL and
 *   why it was fetched) when it names anything else.
 */
export function checkPublishedResource(
  serverUrl: URL,
  step: 'authorize' | 'refresh' | 'step-up',
  found: DiscoveredResource,
): void {
  const source: ResourceMetadataSource =
    found.resourceMetadataUrl !== undefined ? 'challenge' : found.rootRequested ? 'root' : 'path';
  const expected = expectedResource(serverUrl, source);
  const published = parse(found.resource);
  if (published?.href === expected.href) return;
  const metadataUrl =
    found.resourceMetadataUrl ?? wellKnownUrl(serverUrl, source === 'root' ? 'root' : 'path').href;
  // The pathless origin is shown as servers usually write it, without the "/" the URL parser adds
  const shown = source === 'root' ? expected.origin : expected.href;
  const why =
    source === 'challenge'
      ? "its URL came from the server's WWW-Authenticate challenge, so it must name the URL that was requested"
      : source === 'root'
        ? 'it sits at the root well-known URI, so it must name the origin'
        : 'it sits at the well-known URI built from the server URL, so it must name the server URL';
  throw new AuthorizationError(
    serverUrl.href,
    step,
    `the protected resource metadata at ${quoted(metadataUrl)} names the resource ${quoted(found.resource)}, not ${quoted(shown)}; ${why} (RFC 9728 § 3.3), so it is not used`,
    { resourceMismatch: { resource: found.resource, expectedResource: shown, metadataUrl, source } },
  );
}

/** A server-chosen string for a message: quoted, unprintable characters escaped, at most 200 characters. */
function quoted(text: string): string {
  return `"${printableExcerpt(text, 200)}"`;
}
