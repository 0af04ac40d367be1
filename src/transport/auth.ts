/**
 * MCP authorization for the Streamable HTTP transport: a `fetch` wrapper that puts the bearer token on every POST,
 * and on HTTP 401 runs the official SDK's OAuth flow (`auth()` of `@modelcontextprotocol/client`: protected
 * resource metadata, authorization server discovery, client ID metadata documents or dynamic registration, PKCE,
 * token and refresh requests, `iss` and resource checks) and retries once; on 403 `insufficient_scope` it steps up
 * to the union of the granted and the challenged scopes, a bounded number of times. Tokens live only in the
 * provider; nothing here logs them or puts them in an error.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization)
 *
 * @module
 */
import type { OAuthClientProvider, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';
import { AuthorizationError, AuthorizationRequiredError, McpClientError } from '../errors.js';
import { importClientSdk, type ClientSdk } from '../internal/optional-client-sdk.js';
import { abortRequested } from '../internal/abort.js';
import { raceAbort } from '../internal/race-abort.js';
import { redactSecrets } from '../protocol/redact.js';
import { guardedAuthFetch } from './auth-targets.js';
import { checkPublishedResource, RootMetadataWatch } from './resource-identity.js';

/** Default number of step-up re-authorizations for one request refused with 403 `insufficient_scope`. */
export const DEFAULT_MAX_STEP_UPS = 1;
/** Default lead time for refreshing an access token before its known expiry, in milliseconds (capped at a quarter of its lifetime). */
export const DEFAULT_REFRESH_SKEW_MS = 30_000;

/** What the authorization server sent back to the redirect URI. */
export interface AuthorizationCallback {
  /** The `code` query parameter. */
  code: string;
  /** The `iss` query parameter (RFC 9207), when present; checked against the authorization server's issuer. */
  iss?: string;
}

/**
 * The OAuth client the `auth` option takes: any `OAuthClientProvider` of the official SDK
 * (`@modelcontextprotocol/client`), described here by the members every provider has, so that the main entry's
 * types never need that optional peer. The transport hands the provider to the SDK's `auth()` as it is.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization)
 */
export interface OAuthClientProviderLike {
  /** The redirect URI of the flow (`undefined` for non-interactive grants). */
  readonly redirectUrl: string | URL | undefined;
  /** The client metadata (RFC 7591) to register or to publish as a client ID metadata document. */
  readonly clientMetadata: object;
  /** The stored client information, if any. */
  clientInformation(...args: never[]): unknown;
  /** The stored tokens, if any. */
  tokens(...args: never[]): unknown;
  /** Stores new tokens. */
  saveTokens(...args: never[]): unknown;
  /** Sends a person to the authorization URL. */
  redirectToAuthorization(...args: never[]): unknown;
  /** Stores the PKCE code verifier. */
  saveCodeVerifier(...args: never[]): unknown;
  /** The stored PKCE code verifier. */
  codeVerifier(...args: never[]): unknown;
}

/**
 * The `auth` option of {@link StreamableHttpTransport}.
 *
 * @example
 * const transport = new StreamableHttpTransport(url, {
 *   auth: { provider: myProvider, waitForAuthorizationCode: (signal) => myRedirectListener.next(signal) },
 * });
 */
export interface HttpAuthOptions {
  /**
   * The OAuth client: the official SDK's `OAuthClientProvider` interface (`@modelcontextprotocol/client`). It keeps
   * tokens, client information, the PKCE verifier and discovery state wherever the host wants them.
   */
  provider: OAuthClientProviderLike;
  /**
   * For flows that need a person: called after `provider.redirectToAuthorization(url)`; resolves with the `code`
   * (and `iss`) that reached the redirect URI. Without it, a flow that needs a person fails with
   * {@link AuthorizationRequiredError}. The signal aborts when the transport closes.
   */
  waitForAuthorizationCode?: (signal: AbortSignal) => Promise<AuthorizationCallback>;
  /** Step-up re-authorizations per request refused with 403 `insufficient_scope`. @default DEFAULT_MAX_STEP_UPS */
  maxStepUps?: number;
  /** Refresh this long before a known expiry, in milliseconds. @default DEFAULT_REFRESH_SKEW_MS */
  refreshSkewMs?: number;
  /**
   * Runs each authorization (refresh, sign-in, step-up) inside `run`, for a provider whose storage other processes
   * share: take a lock there, reload the stored credentials, call `run`, release. Inside it the transport first
   * looks whether the refused token was already replaced (by another process) and then uses the new one instead of
   * refreshing again, so two processes never spend one rotating refresh token twice. @default runs `run` directly
   */
  exclusive?: <T>(run: () => Promise<T>) => Promise<T>;
}

/** What one refused response asked for. */
interface Challenge {
  scope?: string;
  resourceMetadataUrl?: URL;
  error?: string;
}

/** How the next authorization runs. */
interface AuthorizeInput extends Challenge {
  step: 'authorize' | 'refresh' | 'step-up';
  forceReauthorization?: boolean;
  /** A token was presented and refused: the discovery state may be stale (the server may have moved). */
  rejected?: boolean;
  /** The access token this authorization replaces; when the provider already holds another, nothing is asked. */
  replaces?: string;
  method: string | undefined;
}

function methodOf(init: RequestInit | undefined): string | undefined {
  const headers = new Headers(init?.headers);
  return headers.get('mcp-method') ?? undefined;
}

/** A short, safe description of an SDK error for a message (the error itself stays `cause`). */
function describe(error: unknown): string {
  const name = error instanceof Error ? error.name : typeof error;
  // An `iss` mismatch carries attacker-controlled values: name it without echoing them (RFC 9207 §2.4).
  if (name === 'IssuerMismatchError') return "the authorization server's issuer did not match";
  // The SDK checks OAuth metadata and token responses with zod: name the fields, not the issues' JSON dump.
  const issues = (error as { issues?: unknown } | null)?.issues;
  if (name === 'ZodError' && Array.isArray(issues))
    return `a response of the authorization server (OAuth metadata, registration or token) is not valid: ${issues
      .slice(0, 3)
      .map((i: { path?: unknown[]; message?: unknown }) =>
        `${(i.path ?? []).map(String).join('.') || '(top level)'}: ${String(i.message)}`.replace(
          /[\u0000-\u001f\u007f-\u009f]/g,
          ' ',
        ),
      )
      .join('; ')
      .slice(0, 300)}`;
  const text = error instanceof Error ? error.message : String(error);
  // An error page may echo the token request: codes, tokens and secrets are taken out before anything is kept
  return `${name}: ${redactSecrets(text)
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
    .slice(0, 200)}`;
}

async function discard(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => undefined);
}

/**
 * One server's authorization state for one transport: one authorization in flight at a time (concurrent refusals
 * share it), the known expiry of the access token, and step-up scopes that did not help.
 *
 * @internal
 */
export class AuthSession {
  readonly #serverUrl: URL;
  readonly #options: HttpAuthOptions;
  readonly #next: typeof fetch;
  readonly #provider: OAuthClientProvider;
  readonly #closed = new AbortController();
  #inflight: Promise<void> | undefined;
  /** When the current access token expires (epoch ms), if the token response said. */
  #expiresAtMs: number | undefined;
  #lifetimeMs = 0;
  /** The scope last asked for (initial authorization or step-up), for the union on the next step-up. */
  #requestedScope: string | undefined;
  /** Step-up scopes that were granted and still refused: never asked again (bounded across requests). */
  readonly #exhaustedScopes = new Set<string>();
  /** The authorization running now: its step, and the watch that tells root from path metadata discovery. */
  #running: { step: AuthorizeInput['step']; watch: RootMetadataWatch } | undefined;
  /** `resource` values of protected resource metadata this session checked (RFC 9728 § 3.3). */
  readonly #checkedResources = new Set<string>();

  constructor(serverUrl: URL, options: HttpAuthOptions, next: typeof fetch) {
    this.#serverUrl = serverUrl;
    this.#options = options;
    this.#next = next;
    this.#provider = this.#track(options.provider as OAuthClientProvider);
  }

  /** The wrapped fetch: bearer header, 401 → authorize + one retry, 403 `insufficient_scope` → bounded step-up. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const method = methodOf(init);
    const signal = init?.signal;
    await this.#refreshIfExpiring(method, signal);
    let used = await this.#accessToken();
    const send = (token: string | undefined): Promise<Response> => {
      const headers = new Headers(init?.headers);
      if (token !== undefined) headers.set('Authorization', `Bearer ${token}`);
      return this.#next(input, { ...init, headers });
    };
    let res = await send(used);
    let retried401 = false;
    let stepUps = 0;
    for (;;) {
      // The caller gave up (an abort held back while a creation's answer is read): the refusal stands, no flow runs
      // and nothing is sent again.
      if ((res.status === 401 || res.status === 403) && abortRequested(signal)) return res;
      if (res.status === 401 && !retried401) {
        retried401 = true;
        const challenge = await this.#challenge(res);
        await discard(res);
        const current = await this.#accessToken();
        // Another request may have refreshed meanwhile: then the new token is tried without a second flow.
        if (current === undefined || current === used) {
          const scope = (await this.#sdk()).computeScopeUnion(this.#requestedScope, challenge.scope);
          await this.#authorize(
            {
              ...challenge,
              scope,
              step: used === undefined ? 'authorize' : 'refresh',
              rejected: used !== undefined,
              replaces: used,
              method,
            },
            signal,
          );
        }
        used = await this.#accessToken();
        res = await send(used);
        continue;
      }
      if (res.status === 403 && used !== undefined) {
        const challenge = await this.#challenge(res);
        const maxStepUps = this.#options.maxStepUps ?? DEFAULT_MAX_STEP_UPS;
        if (challenge.error !== 'insufficient_scope' || stepUps >= maxStepUps) return res;
        const sdk = await this.#sdk();
        const granted = (await this.#provider.tokens())?.scope;
        const scope = sdk.computeScopeUnion(this.#requestedScope, granted, challenge.scope);
        if (scope === undefined || this.#exhaustedScopes.has(scope)) return res;
        stepUps += 1;
        await discard(res);
        await this.#authorize(
          {
            ...challenge,
            scope,
            step: 'step-up',
            forceReauthorization: sdk.isStrictScopeSuperset(scope, granted),
            method,
          },
          signal,
        );
        used = await this.#accessToken();
        res = await send(used);
        if (res.status === 403) this.#exhaustedScopes.add(scope);
        continue;
      }
      return res;
    }
  };

  /** Stops waiting for a person; pending authorizations reject. */
  close(): void {
    this.#closed.abort(
      new AuthorizationRequiredError(this.#serverUrl.href, undefined, { reason: 'the transport closed' }),
    );
  }

  async #sdk(): Promise<ClientSdk> {
    try {
      return await importClientSdk();
    } catch (error) {
      throw new AuthorizationError(this.#serverUrl.href, 'authorize', (error as Error).message, {
        cause: error,
      });
    }
  }

  async #challenge(res: Response): Promise<Challenge> {
    if (!res.headers.has('www-authenticate')) return {};
    return (await this.#sdk()).extractWWWAuthenticateParams(res);
  }

  async #accessToken(): Promise<string | undefined> {
    return (await this.#provider.tokens())?.access_token;
  }

  /** Refreshes before the next request when the token's known expiry is near (and a refresh token exists). */
  async #refreshIfExpiring(
    method: string | undefined,
    signal: AbortSignal | null | undefined,
  ): Promise<void> {
    if (this.#expiresAtMs === undefined) return;
    const lead = Math.min(this.#options.refreshSkewMs ?? DEFAULT_REFRESH_SKEW_MS, this.#lifetimeMs / 4);
    if (Date.now() < this.#expiresAtMs - lead) return;
    const tokens = await this.#provider.tokens();
    if (!tokens?.refresh_token) return; // the server's 401 will start a new authorization
    await this.#authorize({ step: 'refresh', replaces: tokens.access_token, method }, signal);
  }

  /** Runs one authorization; concurrent callers share it. The caller's signal stops only its own wait. */
  async #authorize(input: AuthorizeInput, signal: AbortSignal | null | undefined): Promise<void> {
    this.#inflight ??= this.#runAuthorize(input).finally(() => {
      this.#inflight = undefined;
    });
    await raceAbort(this.#inflight, signal ?? undefined); // the one raceAbort, not a copy
  }

  async #runAuthorize(input: AuthorizeInput): Promise<void> {
    const sdk = await this.#sdk();
    const serverUrl = this.#serverUrl;
    // The server names where authorization goes: never link-local or metadata addresses (see auth-targets.ts)
    const guard = guardedAuthFetch(serverUrl, this.#next);
    const watch = new RootMetadataWatch(serverUrl, guard.fetch);
    this.#running = { step: input.step, watch };
    const base = {
      serverUrl,
      resourceMetadataUrl: input.resourceMetadataUrl,
      scope: input.scope,
      fetchFn: watch.fetch,
    };
    const exclusive = this.#options.exclusive ?? (<T>(run: () => Promise<T>) => run());
    try {
      await exclusive(() => this.#authorizeOnce(sdk, input, base));
      if (guard.refused) throw guard.refused; // the SDK swallowed it and carried on elsewhere
    } catch (caught) {
      const error = guard.refused ?? caught;
      if (error instanceof McpClientError) throw error;
      throw new AuthorizationError(serverUrl.href, input.step, describe(error), { cause: error });
    } finally {
      this.#running = undefined;
    }
  }

  async #authorizeOnce(
    sdk: ClientSdk,
    input: AuthorizeInput,
    base: { serverUrl: URL; resourceMetadataUrl?: URL; scope?: string; fetchFn: typeof fetch },
  ): Promise<void> {
    const serverUrl = this.#serverUrl;
    // Another process may have replaced the refused token while this one waited for `exclusive`
    if (input.replaces !== undefined) {
      const current = await this.#accessToken();
      if (current !== undefined && current !== input.replaces) {
        this.#expiresAtMs = undefined; // replaced elsewhere: its expiry is learnt from the server's next 401
        return;
      }
    }
    // A refused token may mean the server moved to another authorization server: discover again.
    if (input.rejected) {
      await this.#provider.invalidateCredentials?.('discovery');
      this.#checkedResources.clear();
    }
    this.#running?.watch.reset();
    let result = await sdk.auth(this.#provider, {
      ...base,
      forceReauthorization: input.forceReauthorization,
    });
    if (result === 'REDIRECT') {
      const wait = this.#options.waitForAuthorizationCode;
      if (!wait) throw new AuthorizationRequiredError(serverUrl.href, input.method);
      const callback = await wait(this.#closed.signal);
      this.#running?.watch.reset();
      result = await sdk.auth(this.#provider, {
        ...base,
        authorizationCode: callback.code,
        iss: callback.iss,
      });
    }
    if (result !== 'AUTHORIZED')
      throw new AuthorizationError(serverUrl.href, input.step, `unexpected result ${String(result)}`);
    if (input.scope !== undefined) this.#requestedScope = input.scope;
  }

  /**
   * Wraps the provider (which stays the owner of every credential) so that: saved tokens teach this session their
   * expiry; the authorization server's metadata is seen on its way through the discovery state, and a person is
   * never sent to one that does not list `S256` in `code_challenge_methods_supported` (the MCP authorization
   * specification: clients MUST refuse); and, unless the provider checks the resource itself
   * (`validateResourceURL`), protected resource metadata is used only when its `resource` is the identifier its URL
   * was built from (RFC 9728 § 3.3, see resource-identity.ts). That check runs when the SDK saves what it discovered,
   * before any registration, authorization or token request; metadata remembered by the provider from before this
   * session is handed to the SDK without it, so the SDK fetches it again and the new copy is checked.
   */
  #track(provider: OAuthClientProvider): OAuthClientProvider {
    const onSaved = (tokens: OAuthTokens): void => {
      const seconds = tokens.expires_in;
      this.#lifetimeMs = typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : 0;
      this.#expiresAtMs = this.#lifetimeMs > 0 ? Date.now() + this.#lifetimeMs : undefined;
    };
    let metadata: { code_challenge_methods_supported?: unknown } | undefined;
    const seen = (state: OAuthDiscoveryState | undefined): void => {
      if (state) metadata = state.authorizationServerMetadata as typeof metadata;
    };
    const checks = (target: OAuthClientProvider): boolean => !target.validateResourceURL;
    /** Metadata remembered from before this session is not handed out unchecked: the SDK then fetches it again. */
    const withoutUnchecked = (state: OAuthDiscoveryState | undefined): OAuthDiscoveryState | undefined => {
      const resource = state?.resourceMetadata?.resource;
      if (state === undefined || resource === undefined || this.#checkedResources.has(resource)) return state;
      return { ...state, resourceMetadata: undefined };
    };
    const check = (state: OAuthDiscoveryState): void => {
      const resource = state.resourceMetadata?.resource;
      if (resource === undefined || this.#checkedResources.has(resource)) return;
      checkPublishedResource(this.#serverUrl, this.#running?.step ?? 'authorize', {
        resource,
        resourceMetadataUrl: state.resourceMetadataUrl,
        rootRequested: this.#running?.watch.rootRequested ?? false,
      });
      this.#checkedResources.add(resource);
    };
    const checkPkce = (): void => {
      const methods = metadata?.code_challenge_methods_supported;
      if (!Array.isArray(methods) || !methods.includes('S256'))
        throw new Error(
          'the authorization server does not list S256 in code_challenge_methods_supported, so PKCE cannot be relied on; not signing in there',
        );
    };
    return new Proxy(provider, {
      get(target, property) {
        if (property === 'saveTokens') {
          return async (tokens: OAuthTokens, ctx?: unknown) => {
            await target.saveTokens(tokens, ctx as never);
            onSaved(tokens);
          };
        }
        if (property === 'saveDiscoveryState') {
          return async (state: OAuthDiscoveryState) => {
            if (checks(target)) check(state);
            seen(state);
            await target.saveDiscoveryState?.(state);
          };
        }
        if (property === 'discoveryState' && target.discoveryState) {
          return async () => {
            const stored = await target.discoveryState?.();
            const state = checks(target) ? withoutUnchecked(stored) : stored;
            seen(state);
            return state;
          };
        }
        if (property === 'redirectToAuthorization') {
          return async (url: URL) => {
            checkPkce();
            await target.redirectToAuthorization(url);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }
}

/**
 * Wraps `next` with MCP authorization for requests to `serverUrl` (see {@link HttpAuthOptions}).
 *
 * @throws TypeError when `options.provider` is missing or `maxStepUps` is not a non-negative integer.
 * @internal
 */
export function createAuthSession(serverUrl: URL, options: HttpAuthOptions, next: typeof fetch): AuthSession {
  if (
    options === null ||
    typeof options !== 'object' ||
    options.provider === null ||
    typeof options.provider !== 'object'
  ) {
    throw new TypeError('StreamableHttpTransport: auth.provider must be an OAuthClientProvider object');
  }
  const max = options.maxStepUps ?? DEFAULT_MAX_STEP_UPS;
  if (!Number.isInteger(max) || max < 0)
    throw new TypeError(
      `StreamableHttpTransport: auth.maxStepUps must be an integer >= 0, got ${String(max)}`,
    );
  return new AuthSession(serverUrl, options, next);
}
