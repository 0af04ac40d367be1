/**
 * The inbox's guard: who may talk to it and how. A one-time token printed on the terminal is exchanged for a
 * session cookie (`HttpOnly`, `SameSite=Strict`); every request needs that cookie; every state-changing request is
 * a same-origin `POST` with a JSON body and the session's CSRF token in a header; the `Host` header must name this
 * inbox (DNS rebinding: a hostile page's name resolving to 127.0.0.1 gets nothing) and an `Origin`, when sent,
 * must be this inbox's. Every response carries a strict Content-Security-Policy and `Referrer-Policy: no-referrer`.
 * (https://owasp.org/www-community/attacks/csrf ,
 * https://developer.mozilla.org/en-US/docs/Web/HTTP/Guides/CSP ,
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/security_best_practices)
 *
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';

/** How long a session lives without a request, ms (8 hours). */
export const SESSION_IDLE_MS = 8 * 60 * 60_000;

/** The headers of every response. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

const secret = (): string => randomBytes(32).toString('base64url');

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** One browser's session. */
export interface InboxSession {
  readonly id: string;
  /** Sent back by the page in `X-Inbox-CSRF` on every POST. */
  readonly csrf: string;
  /** A short name for the audit: `browser-<n>`. */
  readonly name: string;
  lastSeenAt: number;
}

/** Why a request was refused, with its HTTP status. */
export interface Refusal {
  status: number;
  reason: string;
}

/** Holds the one-time tokens and the sessions, and checks every request. */
export class InboxGuard {
  readonly #tokens = new Set<string>();
  readonly #sessions = new Map<string, InboxSession>();
  readonly #allowHost: (host: string) => boolean;
  readonly #now: () => number;
  #count = 0;
  /** The cookie's name; it carries the port, since browsers share cookies across the ports of one host. */
  readonly cookieName: string;

  /**
   * @param allowHost whether a `Host` header value (lower case, with the port) names this inbox.
   */
  constructor(allowHost: (host: string) => boolean, port: number, now: () => number = Date.now) {
    this.#allowHost = allowHost;
    this.cookieName = `mcp_inbox_${port}`;
    this.#now = now;
  }

  /** A new one-time token (for the printed link, or for "open in another browser"). */
  issueToken(): string {
    const token = secret();
    this.#tokens.add(token);
    return token;
  }

  /** Spends a one-time token for a new session; `undefined` when the token is unknown or already used. */
  exchange(token: string): InboxSession | undefined {
    const found = [...this.#tokens].find((t) => sameSecret(t, token));
    if (found === undefined) return undefined;
    this.#tokens.delete(found);
    const session: InboxSession = {
      id: secret(),
      csrf: secret(),
      name: `browser-${++this.#count}`,
      lastSeenAt: this.#now(),
    };
    this.#sessions.set(session.id, session);
    return session;
  }

  /** The `Set-Cookie` value for a session. */
  cookie(session: InboxSession): string {
    return `${this.cookieName}=${session.id}; HttpOnly; SameSite=Strict; Path=/`;
  }

  /** Refuses a request whose `Host` is not this inbox, or whose `Origin` (or `Sec-Fetch-Site`) is another site. */
  checkOrigin(req: IncomingMessage): Refusal | undefined {
    const host = (req.headers.host ?? '').toLowerCase();
    if (!this.#allowHost(host)) return { status: 421, reason: 'unknown Host' };
    const origin = req.headers.origin;
    if (origin !== undefined && origin.toLowerCase() !== `http://${host}`)
      return { status: 403, reason: 'cross-origin request' };
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none')
      return { status: 403, reason: 'cross-site request' };
    return undefined;
  }

  /** The session of the request's cookie, or `undefined`. */
  session(req: IncomingMessage): InboxSession | undefined {
    const id = readCookie(req.headers.cookie, this.cookieName);
    if (id === undefined) return undefined;
    const session = [...this.#sessions.values()].find((s) => sameSecret(s.id, id));
    if (!session) return undefined;
    const now = this.#now();
    if (now - session.lastSeenAt > SESSION_IDLE_MS) {
      this.#sessions.delete(session.id);
      return undefined;
    }
    session.lastSeenAt = now;
    return session;
  }

  /**
   * Checks a state-changing request: `POST`, the same origin (an `Origin` header is required), a JSON body, and
   * the session's CSRF token in `X-Inbox-CSRF`.
   */
  checkPost(req: IncomingMessage, session: InboxSession): Refusal | undefined {
    if (req.method !== 'POST') return { status: 405, reason: 'POST only' };
    if (req.headers.origin === undefined) return { status: 403, reason: 'Origin missing' };
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json'))
      return { status: 415, reason: 'JSON only' };
    const csrf = req.headers['x-inbox-csrf'];
    if (typeof csrf !== 'string' || !sameSecret(csrf, session.csrf))
      return { status: 403, reason: 'CSRF token missing or wrong' };
    return undefined;
  }
}

/**
 * The `Host` values an inbox bound to `host` at `port` answers to. Loopback: `127.0.0.1`, `localhost` (and `[::1]`).
 * Another address: that address. A wildcard (`0.0.0.0`, `::`): any IP literal and `localhost`, never a DNS name,
 * so a hostile name resolving to this machine (DNS rebinding) still gets nothing.
 */
export function hostRule(host: string, port: number): (value: string) => boolean {
  const suffix = `:${port}`;
  const loopback = new Set(['127.0.0.1', 'localhost', '[::1]']);
  const wildcard = host === '0.0.0.0' || host === '::';
  const own = (host.includes(':') ? `[${host}]` : host).toLowerCase();
  return (value) => {
    if (!value.endsWith(suffix)) return false;
    const name = value.slice(0, -suffix.length);
    if (loopback.has(name)) return host === '127.0.0.1' || host === 'localhost' || host === '::1' || wildcard;
    if (name === own) return true;
    return wildcard && (isIP(name) !== 0 || (name.startsWith('[') && isIP(name.slice(1, -1)) === 6));
  };
}

/** One cookie's value from a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Writes a response with the security headers. */
export function send(
  res: ServerResponse,
  status: number,
  body: string,
  type = 'text/plain; charset=utf-8',
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, ...extra }).end(body);
}
