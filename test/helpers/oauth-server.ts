/**
 * A tiny OAuth 2.1 authorization server on loopback, for tests only: RFC 8414 metadata, dynamic registration, an
 * authorization endpoint that approves at once (a "person" who always says yes, or a page for a real browser-less
 * test to fetch), PKCE S256 checked at the token endpoint, short-lived access tokens (lifetime on `Date.now()`, so
 * vitest's faked Date moves it), rotating refresh tokens. It records every token it issued so tests can grep
 * stores and logs for them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { VerifiedToken } from '../../src/testing/index.js';

export interface TestAuthServerOptions {
  /** Access token lifetime in ms. @default 60_000 */
  accessTokenLifetimeMs?: number;
  /** Send `expires_in` with tokens (false: the client learns of expiry only from a 401). @default true */
  sendExpiresIn?: boolean;
  /** Scopes granted when the client asks for none. @default ['mcp'] */
  defaultScopes?: string[];
  /** Grant only these of the requested scopes (a person who declines the rest). @default all requested */
  grantOnly?: string[];
  /** Laid over the RFC 8414 metadata (a key set to `undefined` is left out). */
  metadata?: Record<string, unknown>;
}

export interface TestAuthServer {
  readonly issuer: string;
  /** Every access and refresh token issued, for leak checks. */
  readonly issued: string[];
  readonly counts: { register: number; authorize: number; code: number; refresh: number; revoke: number };
  /** Tokens revoked at the RFC 7009 revocation endpoint, in order. */
  readonly revoked: string[];
  /** The RFC 8707 `resource` parameter of each authorization and token request, exactly as received (null: none). */
  readonly resources: { authorize: (string | null)[]; token: (string | null)[] };
  /** Makes every access token issued so far expired (the next request with one gets 401). */
  expireAccessTokens(): void;
  /** When set, the token endpoint answers this status with an error page that echoes the request body. */
  failTokenRequests: number | undefined;
  verifyAccessToken(token: string): VerifiedToken | undefined;
  /** Forget every refresh token (the next refresh fails with invalid_grant). */
  revokeRefreshTokens(): void;
  close(): Promise<void>;
}

interface CodeGrant {
  clientId: string;
  challenge: string;
  scopes: string[];
  redirectUri: string;
}

const b64url = (buf: Buffer): string => buf.toString('base64url');

export async function startTestAuthServer(options: TestAuthServerOptions = {}): Promise<TestAuthServer> {
  const lifetimeMs = options.accessTokenLifetimeMs ?? 60_000;
  const issued: string[] = [];
  const counts = { register: 0, authorize: 0, code: 0, refresh: 0, revoke: 0 };
  const revoked: string[] = [];
  const resources = { authorize: [] as (string | null)[], token: [] as (string | null)[] };
  const clients = new Set<string>();
  const codes = new Map<string, CodeGrant>();
  const access = new Map<string, VerifiedToken>();
  const refresh = new Map<string, string[]>();
  let issuer = '';

  const mint = (scopes: string[]): Record<string, unknown> => {
    const accessToken = `at-${b64url(randomBytes(18))}`;
    const refreshToken = `rt-${b64url(randomBytes(18))}`;
    issued.push(accessToken, refreshToken);
    access.set(accessToken, { scopes, expiresAtMs: Date.now() + lifetimeMs });
    refresh.set(refreshToken, scopes);
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      refresh_token: refreshToken,
      scope: scopes.join(' '),
      ...(options.sendExpiresIn === false ? {} : { expires_in: Math.round(lifetimeMs / 1000) }),
    };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', issuer);
    const json = (status: number, body: unknown): void => {
      res
        .writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
        .end(JSON.stringify(body));
    };
    if (req.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        authorization_response_iss_parameter_supported: true,
        revocation_endpoint: `${issuer}/revoke`,
        ...options.metadata,
      });
    }
    const body = await new Promise<string>((resolve) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString('utf8')));
      req.on('end', () => resolve(text));
    });
    if (req.method === 'POST' && url.pathname === '/register') {
      counts.register += 1;
      const meta = JSON.parse(body) as Record<string, unknown>;
      const clientId = `client-${b64url(randomBytes(8))}`;
      clients.add(clientId);
      return json(201, { ...meta, client_id: clientId, token_endpoint_auth_method: 'none' });
    }
    if (req.method === 'GET' && url.pathname === '/authorize') {
      counts.authorize += 1;
      const q = url.searchParams;
      resources.authorize.push(q.get('resource'));
      const clientId = q.get('client_id') ?? '';
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!clients.has(clientId) || q.get('code_challenge_method') !== 'S256' || !redirectUri)
        return json(400, { error: 'invalid_request' });
      const code = `code-${b64url(randomBytes(12))}`;
      const scopes = (q.get('scope') ?? '')
        .split(' ')
        .filter((x) => x !== '' && (options.grantOnly?.includes(x) ?? true));
      codes.set(code, {
        clientId,
        challenge: q.get('code_challenge') ?? '',
        scopes: scopes.length > 0 ? scopes : (options.defaultScopes ?? ['mcp']),
        redirectUri,
      });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('iss', issuer);
      if (q.get('state') !== null) back.searchParams.set('state', q.get('state') ?? '');
      res.writeHead(302, { Location: back.href }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/revoke') {
      const token = new URLSearchParams(body).get('token') ?? '';
      counts.revoke += 1;
      revoked.push(token);
      access.delete(token);
      refresh.delete(token);
      res.writeHead(200).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/token' && self.failTokenRequests !== undefined) {
      res.writeHead(self.failTokenRequests, { 'Content-Type': 'text/html' });
      return void res.end(`<html><body>Bad gateway while handling: ${body}</body></html>`);
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(body);
      resources.token.push(form.get('resource'));
      if (form.get('grant_type') === 'authorization_code') {
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        if (
          !grant ||
          b64url(createHash('sha256').update(verifier).digest()) !== grant.challenge ||
          form.get('redirect_uri') !== grant.redirectUri
        ) {
          return json(400, { error: 'invalid_grant' });
        }
        counts.code += 1;
        return json(200, mint(grant.scopes));
      }
      if (form.get('grant_type') === 'refresh_token') {
        const scopes = refresh.get(form.get('refresh_token') ?? '');
        if (!scopes) return json(400, { error: 'invalid_grant', error_description: 'unknown refresh token' });
        refresh.delete(form.get('refresh_token') ?? '');
        counts.refresh += 1;
        return json(200, mint(scopes));
      }
      return json(400, { error: 'unsupported_grant_type' });
    }
    json(404, { error: 'not_found' });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const self: TestAuthServer = {
    failTokenRequests: undefined,
    get issuer() {
      return issuer;
    },
    issued,
    counts,
    revoked,
    resources,
    expireAccessTokens: () => {
      for (const token of access.values()) token.expiresAtMs = 0;
    },
    verifyAccessToken: (token) => access.get(token),
    revokeRefreshTokens: () => refresh.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return self;
}
