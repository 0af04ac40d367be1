/**
 * Bearer-token protection for the reference server (the resource server side of MCP authorization): protected
 * resource metadata at the RFC 9728 well-known path, 401 with `WWW-Authenticate: Bearer resource_metadata=…` for a
 * missing, unknown or expired token, 403 `insufficient_scope` (with the scope needed) for a token without a required
 * scope. The tokens themselves are checked by a verifier the host supplies (its authorization server's).
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization)
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What the verifier knows about a valid token. */
export interface VerifiedToken {
  /** The scopes granted to the token. */
  scopes: readonly string[];
  /** When the token stops being valid (epoch milliseconds, same clock as the server's `now`); none = no expiry. */
  expiresAtMs?: number;
}

/** The `auth` option of {@link createTaskServer}: require a bearer token on every POST to the endpoint. */
export interface BearerAuthOptions {
  /** The authorization server issuer URL(s) listed in the protected resource metadata. */
  authorizationServers: readonly string[];
  /** Checks a token; resolves with its scopes and expiry, or `undefined` when it is not known. */
  verifyAccessToken(token: string): VerifiedToken | undefined | Promise<VerifiedToken | undefined>;
  /** Scopes every request needs; a token without them gets 403 `insufficient_scope`. @default [] */
  requiredScopes?: readonly string[];
  /** `scopes_supported` of the protected resource metadata. @default requiredScopes */
  scopesSupported?: readonly string[];
}

/** Counters of what the protection did. */
export interface BearerAuthStats {
  /** 401 responses sent, by JSON-RPC method (`Mcp-Method` header). */
  unauthorized: Record<string, number>;
  /** 403 `insufficient_scope` responses sent. */
  insufficientScope: number;
  /** POSTs let through with a valid token, by method. */
  authorized: Record<string, number>;
}

/** @internal The request-time side of {@link BearerAuthOptions}. */
export class BearerGuard {
  readonly stats: BearerAuthStats = { unauthorized: {}, insufficientScope: 0, authorized: {} };
  readonly #options: BearerAuthOptions;
  readonly #path: string;
  readonly #now: () => number;

  constructor(options: BearerAuthOptions, path: string, now: () => number) {
    if (!Array.isArray(options.authorizationServers) || typeof options.verifyAccessToken !== 'function') {
      throw new TypeError(
        'createTaskServer: auth needs authorizationServers (string[]) and verifyAccessToken(token)',
      );
    }
    this.#options = options;
    this.#path = path;
    this.#now = now;
  }

  /** The RFC 9728 well-known path of this endpoint's metadata (path inserted after the well-known prefix). */
  get metadataPath(): string {
    return `/.well-known/oauth-protected-resource${this.#path}`;
  }

  /**
   * Answers the metadata GET, or refuses an unauthorized POST to the endpoint. Resolves `true` when it wrote the
   * response; `false` lets the request through.
   */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const origin = `http://${req.headers.host ?? 'localhost'}`;
    if (req.method === 'GET' && url.pathname === this.metadataPath) {
      const required = this.#options.requiredScopes ?? [];
      send(res, 200, {
        resource: `${origin}${this.#path}`,
        authorization_servers: this.#options.authorizationServers,
        scopes_supported: this.#options.scopesSupported ?? required,
        bearer_methods_supported: ['header'],
      });
      return true;
    }
    if (req.method !== 'POST' || url.pathname !== this.#path) return false;
    const method = String(req.headers['mcp-method'] ?? 'unknown');
    const metadataUrl = `${origin}${this.metadataPath}`;
    const header = req.headers.authorization ?? '';
    const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    const verified = token === undefined ? undefined : await this.#options.verifyAccessToken(token);
    const required = this.#options.requiredScopes ?? [];
    const scopeParam = required.length > 0 ? `, scope="${required.join(' ')}"` : '';
    if (!verified || (verified.expiresAtMs !== undefined && this.#now() >= verified.expiresAtMs)) {
      this.stats.unauthorized[method] = (this.stats.unauthorized[method] ?? 0) + 1;
      const error = token === undefined ? '' : ', error="invalid_token"';
      res.setHeader('WWW-Authenticate', `Bearer resource_metadata="${metadataUrl}"${scopeParam}${error}`);
      send(res, 401, {
        error: 'invalid_token',
        error_description: token === undefined ? 'authorization required' : 'the token is unknown or expired',
      });
      return true;
    }
    if (!required.every((s) => verified.scopes.includes(s))) {
      this.stats.insufficientScope += 1;
      res.setHeader(
        'WWW-Authenticate',
        `Bearer error="insufficient_scope"${scopeParam}, resource_metadata="${metadataUrl}"`,
      );
      send(res, 403, { error: 'insufficient_scope' });
      return true;
    }
    this.stats.authorized[method] = (this.stats.authorized[method] ?? 0) + 1;
    return false;
  }
}

function send(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(payload));
}
