/**
 * Loading the optional peer dependency `@modelcontextprotocol/client` (the official SDK v2), used only for MCP
 * authorization (its OAuth client: discovery, registration, PKCE, token and refresh requests).
 *
 * @module
 * @internal
 */

/** The SDK module's shape, as far as this package uses it. */
export type ClientSdk = typeof import('@modelcontextprotocol/client');

let loading: Promise<ClientSdk> | undefined;

/**
 * Imports `@modelcontextprotocol/client` once. The specifier is not a literal on purpose: bundlers then leave the
 * import alone, so a browser bundle of the main entry neither carries the SDK nor breaks where it is not installed.
 *
 * @throws TypeError (rejects) when the package is not installed, naming the package to install.
 */
export function importClientSdk(): Promise<ClientSdk> {
  const specifier = ['@modelcontextprotocol', 'client'].join('/');
  loading ??= (import(/* @vite-ignore */ /* webpackIgnore: true */ specifier) as Promise<ClientSdk>).catch(
    (error: unknown) => {
      loading = undefined;
      throw new TypeError(
        'the auth option needs the optional peer dependency @modelcontextprotocol/client (npm install @modelcontextprotocol/client)',
        {
          cause: error,
        },
      );
    },
  );
  return loading;
}
