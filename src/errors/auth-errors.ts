/**
 * The errors of MCP authorization (OAuth 2.1 through the official SDK). Messages name the server and the step,
 * never a token, code or client secret.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization)
 *
 * @module
 */
import { kBrand, McpClientError } from './base.js';

/**
 * The server needs authorization that only a person can give (a browser sign-in), and this client has no way to
 * ask one: no `waitForAuthorizationCode` in the `auth` option, or the person did not answer in time. Nothing was
 * processed by the server for the request that failed (it was refused with HTTP 401 or 403).
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#authorization-flow-steps)
 */
export class AuthorizationRequiredError extends McpClientError {
  static override readonly [kBrand]: string = 'AuthorizationRequiredError';
  override readonly code = 'AUTHORIZATION_REQUIRED' as const;
  constructor(
    /** The MCP endpoint that asked for authorization (origin and path, no query). */
    readonly serverUrl: string,
    /** The JSON-RPC method of the refused request, when known. */
    readonly method: string | undefined,
    options?: ErrorOptions & { reason?: string },
  ) {
    super(
      `${method ?? 'request'} to ${serverUrl} needs authorization by a person${options?.reason ? ` (${options.reason})` : ''}`,
      options,
    );
  }
}

/** How the client came to fetch the protected resource metadata it checked (RFC 9728 § 3.1 and § 3.3). */
export type ResourceMetadataSource =
  /** The `resource_metadata` URL of the server's `WWW-Authenticate` challenge (or one remembered from it). */
  | 'challenge'
  /** The well-known URI built from the server URL: its path after `/.well-known/oauth-protected-resource`. */
  | 'path'
  /** The root well-known URI of the server's origin (`/.well-known/oauth-protected-resource`, no path). */
  | 'root';

/**
 * Why protected resource metadata was not used (RFC 9728 § 3.3): its `resource` is not the resource identifier its
 * URL was built from (the server URL for `path` and `challenge`, the origin for `root`).
 * (https://www.rfc-editor.org/rfc/rfc9728#section-3.3)
 */
export interface ResourceMismatch {
  /** The `resource` the metadata published, exactly as published. */
  readonly resource: string;
  /** The resource identifier RFC 9728 § 3.3 requires for that metadata URL. */
  readonly expectedResource: string;
  /** The URL the metadata was fetched from. */
  readonly metadataUrl: string;
  /** Why the client fetched that URL. */
  readonly source: ResourceMetadataSource;
}

/**
 * The OAuth flow failed: discovery, registration, token or refresh request, a metadata or `iss` mismatch
 * (RFC 8414 §3.3, RFC 9207), protected resource metadata that names another resource (RFC 9728 § 3.3, see
 * `resourceMismatch`), a resource mismatch (RFC 8707), or step-up that did not get the scope the server asks for.
 * The SDK's error is `cause`; `step` says where.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization)
 */
export class AuthorizationError extends McpClientError {
  static override readonly [kBrand]: string = 'AuthorizationError';
  override readonly code = 'AUTHORIZATION_FAILED' as const;
  /**
   * Set when the protected resource metadata named another resource than the one it describes, so it was not used:
   * no registration, authorization or token request was sent (RFC 9728 § 3.3).
   */
  readonly resourceMismatch?: ResourceMismatch;
  constructor(
    /** The MCP endpoint being authorized. */
    readonly serverUrl: string,
    /** `authorize` (discovery, registration, code exchange), `refresh`, or `step-up`. */
    readonly step: 'authorize' | 'refresh' | 'step-up',
    detail: string,
    options?: ErrorOptions & { resourceMismatch?: ResourceMismatch },
  ) {
    super(`authorization for ${serverUrl} failed (${step}): ${detail}`, options);
    if (options?.resourceMismatch) this.resourceMismatch = options.resourceMismatch;
  }
}
