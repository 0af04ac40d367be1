/**
 * Where an MCP server may send this client during authorization. The protected resource metadata URL (from the
 * server's `WWW-Authenticate`), the authorization servers it lists and the endpoints their metadata names are all
 * chosen by the server, so a hostile one could make the client fetch internal addresses (server-side request
 * forgery). The rule, for every such request and every redirect hop:
 *
 * - never a link-local address (169.254.0.0/16, fe80::/10) or a cloud metadata service (169.254.169.254,
 *   fd00:ec2::254, 100.100.100.200, `metadata.google.internal`);
 * - a private, shared or loopback address (10/8, 172.16/12, 192.168/16, 100.64/10, 0/8, 127/8, fc00::/7, ::1)
 *   only when the MCP server itself is on one;
 * - a name is resolved first and every address it resolves to must pass (where a resolver is installed: in Node,
 *   `dns.lookup`; elsewhere only literal addresses and known names are checked, and the browser's own rules apply).
 *
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/security_best_practices , "Server-Side Request
 * Forgery (SSRF)")
 *
 * @module
 * @internal
 */

/** What kind of address a host is. */
export type AddressClass = 'metadata' | 'link-local' | 'loopback' | 'private' | 'public';

/** Resolves a host name to its addresses (IPv4 dotted or IPv6 text). */
export type HostResolver = (host: string) => Promise<readonly string[]>;

let resolver: HostResolver | undefined;

/** Installs the resolver used for names (the Node entry installs `dns.lookup`). */
export function setAuthHostResolver(resolve: HostResolver | undefined): void {
  resolver = resolve;
}

const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);

function ipv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

function classifyV4([a, b, c, d]: number[]): AddressClass {
  if (
    (a === 169 && b === 254 && c === 169 && d === 254) ||
    (a === 100 && b === 100 && c === 100 && d === 200)
  )
    return 'metadata';
  if (a === 169 && b === 254) return 'link-local';
  if (a === 127) return 'loopback';
  if (a === 10 || a === 0 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168))
    return 'private';
  if (a === 100 && b! >= 64 && b! <= 127) return 'private'; // shared address space (RFC 6598)
  return 'public';
}

/** The 16-bit groups of an IPv6 address, or `undefined` when `text` is not one. */
function ipv6Groups(text: string): number[] | undefined {
  let t = text.toLowerCase();
  if (!t.includes(':')) return undefined;
  const zone = t.indexOf('%');
  if (zone >= 0) t = t.slice(0, zone);
  let tail: number[] = [];
  const lastColon = t.lastIndexOf(':');
  const v4 = ipv4(t.slice(lastColon + 1));
  if (v4) {
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    t = `${t.slice(0, lastColon + 1)}0:0`;
  }
  const [head, rest] = t.split('::') as [string, string | undefined];
  const parse = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const fill = rest === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...new Array<number>(Math.max(fill, 0)).fill(0), ...right];
  if (groups.length !== 8 || groups.some((g) => !(g >= 0 && g <= 0xffff))) return undefined;
  if (tail.length > 0) groups.splice(6, 2, ...tail);
  return groups;
}

/** The class of a literal address, or `undefined` when `host` is a name. */
export function classifyAddress(host: string): AddressClass | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const v4 = ipv4(bare);
  if (v4) return classifyV4(v4);
  const g = ipv6Groups(bare);
  if (!g) return undefined;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff)
    return classifyV4([g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff]); // IPv4-mapped
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254)
    return 'metadata';
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if (g.slice(0, 7).every((x) => x === 0)) return g[7] === 1 ? 'loopback' : 'private';
  if ((g[0]! & 0xfe00) === 0xfc00) return 'private';
  return 'public';
}

/** Every class the host is, after resolving a name (a name with no resolver is `public` unless known). */
async function classesOf(host: string, resolve: HostResolver | undefined): Promise<AddressClass[]> {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (METADATA_NAMES.has(name)) return ['metadata'];
  const literal = classifyAddress(name);
  if (literal) return [literal];
  if (name === 'localhost' || name.endsWith('.localhost')) return ['loopback'];
  if (!resolve) return ['public'];
  const addresses = await resolve(name);
  return addresses.map((a) => classifyAddress(a) ?? 'public');
}

const internal = (c: AddressClass): boolean => c === 'private' || c === 'loopback';

/**
 * Why the client must not fetch `target` on behalf of the MCP server at `serverUrl`, or `undefined` when it may.
 *
 * @param resolve - resolves names. @default the installed resolver (see {@link setAuthHostResolver})
 */
export async function authTargetProblem(
  target: URL,
  serverUrl: URL,
  resolve: HostResolver | undefined = resolver,
): Promise<string | undefined> {
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return `${target.protocol} is not http(s)`;
  const classes = await classesOf(target.hostname, resolve);
  if (classes.includes('metadata')) return 'it is a cloud metadata address';
  if (classes.includes('link-local')) return 'it is a link-local address (169.254.0.0/16, fe80::/10)';
  if (classes.some(internal)) {
    const server = await classesOf(serverUrl.hostname, resolve).catch(() => ['public' as const]);
    if (!server.some(internal)) return 'it is a private or loopback address and the MCP server is not on one';
  }
  return undefined;
}

/** Redirect hops followed for one authorization request (GET only). */
const MAX_HOPS = 5;

/** The `fetch` of one authorization flow, and what it refused. */
export interface GuardedAuthFetch {
  fetch: typeof fetch;
  /** The first refusal: from then on every request of this flow fails with it (the flow must not fall back). */
  readonly refused: Error | undefined;
}

/**
 * `next` for the requests of one authorization flow: each target (and each redirect hop of a GET, followed here)
 * is checked with {@link authTargetProblem}; a refused one throws before anything is sent there, and so does every
 * later request of the flow (the official SDK falls back to other URLs when discovery fails).
 */
export function guardedAuthFetch(serverUrl: URL, next: typeof fetch): GuardedAuthFetch {
  let refused: Error | undefined;
  const guarded: typeof fetch = async (input, init) => {
    if (refused) throw refused;
    let url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    for (let hop = 0; ; hop += 1) {
      const problem = await authTargetProblem(url, serverUrl);
      if (problem) {
        refused = new Error(
          `refused to fetch ${url.origin}, which the server pointed authorization at: ${problem}`,
        );
        throw refused;
      }
      const res = await next(hop === 0 ? input : url, { ...init, redirect: 'manual' });
      const location = res.headers.get('location');
      if (res.status < 300 || res.status > 399 || location === null || method !== 'GET') return res;
      if (hop >= MAX_HOPS) throw new Error(`more than ${MAX_HOPS} redirects from ${url.origin}`);
      await res.body?.cancel().catch(() => undefined);
      url = new URL(location, url);
    }
  };
  return {
    fetch: guarded,
    get refused() {
      return refused;
    },
  };
}
