/**
 * The CLI's OAuth client: the official SDK's `OAuthClientProvider` interface, backed by one {@link AuthFile} per
 * server. With a {@link LoopbackRedirect} it can sign a person in (the authorization URL is printed; the browser
 * comes back to the loopback port); without one, a flow that needs a person ends in `AuthorizationRequiredError`.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization)
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { AuthFile } from './token-file.js';
import type { LoopbackRedirect } from './loopback-redirect.js';

/** Redirect URI registered when no sign-in can happen in this run (never visited). */
const NO_REDIRECT = 'http://127.0.0.1/callback';

export class CliOAuthProvider implements OAuthClientProvider {
  readonly #file: AuthFile;
  readonly #redirect: LoopbackRedirect | undefined;
  readonly #show: (line: string) => void;
  readonly #persist: boolean;

  /**
   * @param persist - write changes to the file; false keeps them in memory (a run that cannot sign in and had no
   *   tokens leaves no file behind, not even a client registration).
   */
  constructor(
    file: AuthFile,
    options: { redirect?: LoopbackRedirect; show?: (line: string) => void; persist?: boolean } = {},
  ) {
    this.#file = file;
    this.#redirect = options.redirect;
    this.#show = options.show ?? (() => undefined);
    this.#persist = options.persist ?? true;
  }

  #update(change: Parameters<AuthFile['update']>[0]): Promise<void> {
    return this.#file.update(change, this.#persist);
  }

  get redirectUrl(): string {
    return this.#redirect?.url ?? NO_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'mcp-tasks',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    } as OAuthClientMetadata;
  }

  state(): string {
    const state = randomBytes(16).toString('base64url');
    this.#redirect?.expectState(state);
    return state;
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    const client = (await this.#file.read()).client;
    // A registration for another redirect port cannot be used for this sign-in: register again.
    const uris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    if (this.#redirect && Array.isArray(uris) && uris.length > 0 && !uris.includes(this.redirectUrl))
      return undefined;
    return client;
  }

  async saveClientInformation(info: StoredOAuthClientInformation): Promise<void> {
    await this.#update((d) => void (d.client = info));
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    return (await this.#file.read()).tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    await this.#update((d) => {
      d.tokens = tokens;
      delete d.codeVerifier;
    });
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    await this.#update((d) => void (d.codeVerifier = verifier));
  }

  async codeVerifier(): Promise<string> {
    const verifier = (await this.#file.read()).codeVerifier;
    if (verifier === undefined) throw new Error('no PKCE code verifier is stored for this sign-in');
    return verifier;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.#update((d) => void (d.discovery = state));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.#file.read()).discovery;
  }

  /** Forgets what the SDK found invalid; tokens only when they are still the ones this process knew. */
  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const mine = (await this.#file.read()).tokens;
    await this.#update((d) => {
      // Another process may have written new tokens since this one read them: those stay.
      const same =
        d.tokens?.access_token === mine?.access_token && d.tokens?.refresh_token === mine?.refresh_token;
      if ((scope === 'all' || scope === 'tokens') && same) delete d.tokens;
      if (scope === 'all' || scope === 'client') delete d.client;
      if (scope === 'all' || scope === 'verifier') delete d.codeVerifier;
      if (scope === 'all' || scope === 'discovery') delete d.discovery;
    });
  }

  /** Shows the person where to sign in (without a redirect listener, nothing: the run cannot sign in). */
  redirectToAuthorization(url: URL): void {
    if (!this.#redirect) return;
    this.#show(
      `Sign in to ${this.#file.server}: open this address in a browser (waiting on ${this.#redirect.url}):`,
    );
    this.#show(url.href);
  }
}
