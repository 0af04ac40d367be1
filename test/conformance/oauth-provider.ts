/**
 * The conformance client's OAuth provider: the official SDK's `OAuthClientProvider` kept in memory, with a
 * "browser" that follows the authorization endpoint's redirect itself (the suite's authorization servers approve at
 * once and redirect with `code`, `state` and maybe `iss`). Nothing here is printed: tokens stay in this object.
 *
 * @module
 */
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { randomBytes } from 'node:crypto';
import type { AuthorizationCallback } from '../../src/index.js';

/** The redirect URI registered by the conformance client; nothing listens there (the redirect is read, not followed). */
export const CONFORMANCE_REDIRECT_URL = 'http://localhost:3000/callback';

export class ConformanceOAuthProvider implements OAuthClientProvider {
  clientMetadataUrl?: string;
  #client: StoredOAuthClientInformation | undefined;
  #tokens: StoredOAuthTokens | undefined;
  #verifier: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;
  #state: string | undefined;
  #callback: AuthorizationCallback | undefined;

  constructor(options: { clientMetadataUrl?: string; preRegistered?: StoredOAuthClientInformation } = {}) {
    this.clientMetadataUrl = options.clientMetadataUrl;
    this.#client = options.preRegistered;
  }

  get redirectUrl(): string {
    return CONFORMANCE_REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'mcp-tasks-client-conformance',
      redirect_uris: [CONFORMANCE_REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.#client?.client_secret ? 'client_secret_basic' : 'none',
      application_type: 'native',
    } as OAuthClientMetadata;
  }

  state(): string {
    this.#state = randomBytes(16).toString('hex');
    return this.#state;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.#client;
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.#client = info;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.#tokens = tokens;
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error('no PKCE code verifier was saved');
    return this.#verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') this.#tokens = undefined;
    if (scope === 'all' || scope === 'client') this.#client = undefined;
    if (scope === 'all' || scope === 'verifier') this.#verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.#discovery = undefined;
  }

  /** The "person": asks the authorization endpoint and reads its redirect (only loopback URLs are fetched). */
  async redirectToAuthorization(url: URL): Promise<void> {
    if (!['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))
      throw new Error(`refusing to open a non-loopback authorization URL (${url.origin})`);
    const res = await fetch(url, { redirect: 'manual' });
    await res.body?.cancel();
    const location = res.headers.get('location');
    if (!location) throw new Error(`the authorization endpoint did not redirect (HTTP ${res.status})`);
    const back = new URL(location);
    if (this.#state !== undefined && back.searchParams.get('state') !== this.#state)
      throw new Error('the authorization response has the wrong state');
    const code = back.searchParams.get('code');
    if (!code)
      throw new Error(
        `the authorization response has no code (error: ${back.searchParams.get('error') ?? 'none'})`,
      );
    const iss = back.searchParams.get('iss');
    this.#callback = iss === null ? { code } : { code, iss };
  }

  /** For `auth.waitForAuthorizationCode`: the callback read by {@link redirectToAuthorization}. */
  async waitForAuthorizationCode(): Promise<AuthorizationCallback> {
    const callback = this.#callback;
    this.#callback = undefined;
    if (!callback) throw new Error('no authorization response was received');
    return callback;
  }
}
