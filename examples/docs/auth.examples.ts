/**
 * docs/auth.md's host provider, type-checked. Not run here: it signs a person in through a browser;
 * test/integration/auth-*.test.ts and the CLI's auth tests run the same flows against a loopback authorization server.
 */
interface Keychain {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  clear(scope: string): Promise<void>;
}
interface RedirectListener {
  readonly url: string;
  newState(): string;
  next(signal: AbortSignal): Promise<{ code: string; iss?: string }>;
}
declare const keychain: Keychain;
declare const redirect: RedirectListener;
declare function openBrowser(url: URL): void;

// #region keychain-provider
import type {
  OAuthClientProvider,
  OAuthClientMetadata,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { StreamableHttpTransport, TaskClient, type AuthorizationCallback } from 'mcp-tasks-client';

class KeychainProvider implements OAuthClientProvider {
  constructor(
    private readonly keychain: Keychain,
    private readonly redirect: RedirectListener,
  ) {}
  get redirectUrl() {
    return this.redirect.url;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'my-host',
      redirect_uris: [this.redirect.url],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return this.redirect.newState();
  }
  clientInformation() {
    return this.keychain.get<StoredOAuthClientInformation>('client');
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    return this.keychain.set('client', info);
  }
  tokens() {
    return this.keychain.get<StoredOAuthTokens>('tokens');
  }
  saveTokens(tokens: StoredOAuthTokens) {
    return this.keychain.set('tokens', tokens);
  }
  saveCodeVerifier(v: string) {
    return this.keychain.set('verifier', v);
  }
  async codeVerifier() {
    return (await this.keychain.get<string>('verifier'))!;
  }
  saveDiscoveryState(s: OAuthDiscoveryState) {
    return this.keychain.set('discovery', s);
  }
  discoveryState() {
    return this.keychain.get<OAuthDiscoveryState>('discovery');
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    return this.keychain.clear(scope);
  }
  redirectToAuthorization(url: URL) {
    openBrowser(url);
  }
}

const provider = new KeychainProvider(keychain, redirect);
const client = new TaskClient({
  transport: new StreamableHttpTransport('https://mcp.example.com/mcp', {
    auth: {
      provider,
      // Resolves with the code (and iss) your redirect URI received; the signal aborts when the transport closes.
      waitForAuthorizationCode: (signal): Promise<AuthorizationCallback> => redirect.next(signal),
    },
  }),
});
// #endregion keychain-provider
export { client };
