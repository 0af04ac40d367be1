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
  /**
   * Who the token stands for (its `sub`, RFC 7662 § 2.2). Tasks are bound to it: a task created with one subject's
   * token is unknown to every other subject's. @default none (tasks are not bound)
   */
  subject?: string;
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
  /**
   * The endpoint's URL as clients reach it (behind a proxy, the public one): the protected resource metadata's
   * `resource` and the challenge's `resource_metadata` URL are built from it, never from the request's `Host`
   * header, which the client controls (RFC 9728 § 3.3, § 7.3). @default the URL the server listens on
   */
  resourceUrl?: string;
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
  /** The resource identifier, set once the server listens (see {@link BearerAuthOptions.resourceUrl}). */
  #resource: URL | undefined;

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

  /** Fixes the resource identifier: `options.resourceUrl`, else `listeningUrl` (called once the server listens). */
  setResource(listeningUrl: string): void {
    this.#resource = new URL(this.#options.resourceUrl ?? listeningUrl);
  }

  /**
   * Answers the metadata GET, or refuses an unauthorized POST to the endpoint. Resolves `'handled'` when it wrote
   * the response; otherwise the request goes on, with the principal its token stands for (a POST).
   */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
  ): Promise<'handled' | { principal: string | undefined }> {
    const resource = this.#resource ?? new URL(`http://localhost${this.#path}`);
    if (req.method === 'GET' && url.pathname === this.metadataPath) {
      const required = this.#options.requiredScopes ?? [];
      send(res, 200, {
        resource: resource.href,
        authorization_servers: this.#options.authorizationServers,
        scopes_supported: this.#options.scopesSupported ?? required,
        bearer_methods_supported: ['header'],
      });
      return 'handled';
    }
    if (req.method !== 'POST' || url.pathname !== this.#path) return { principal: undefined };
    const method = String(req.headers['mcp-method'] ?? 'unknown');
    const metadataUrl = `${resource.origin}/.well-known/oauth-protected-resource${resource.pathname === '/' ? '' : resource.pathname}`;
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
      return 'handled';
    }
    if (!required.every((s) => verified.scopes.includes(s))) {
      this.stats.insufficientScope += 1;
      res.setHeader(
        'WWW-Authenticate',
        `Bearer error="insufficient_scope"${scopeParam}, resource_metadata="${metadataUrl}"`,
      );
      send(res, 403, { error: 'insufficient_scope' });
      return 'handled';
    }
    this.stats.authorized[method] = (this.stats.authorized[method] ?? 0) + 1;
    return { principal: verified.subject };
  }
}

function send(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(payload));
}
