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
  readonly #hosts: Set<string>;
  readonly #now: () => number;
  #count = 0;
  /** The cookie's name; it carries the port, since browsers share cookies across the ports of one host. */
  readonly cookieName: string;

  /**
   * @param hosts every `Host` header value this inbox answers to, e.g. `127.0.0.1:4711`, `localhost:4711`.
   */
  constructor(hosts: readonly string[], port: number, now: () => number = Date.now) {
    this.#hosts = new Set(hosts.map((h) => h.toLowerCase()));
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
    if (!this.#hosts.has(host)) return { status: 421, reason: 'unknown Host' };
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
