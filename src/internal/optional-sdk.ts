/**
 * Loading the optional peer dependency `@modelcontextprotocol/sdk` (1.x), used only for 2025-11-25 servers.
 *
 * @module
 * @internal
 */

/**
 * Imports a module of the optional SDK. The specifier is not a literal on purpose: bundlers then leave the import
 * alone, so a browser bundle neither carries the SDK nor breaks where it is not installed.
 */
export function importSdkModule<T = Record<string, unknown>>(subpath: string): Promise<T> {
  const specifier = `@modelcontextprotocol/sdk/${subpath}`;
  return import(/* @vite-ignore */ /* webpackIgnore: true */ specifier) as Promise<T>;
}
