/**
 * The environment of a server child process (Node only). By default a child gets only the variables a program needs
 * to run (the same list as the official MCP SDK's `getDefaultEnvironment`), never the parent's secrets (cloud keys,
 * tokens) that happen to be exported in the shell, plus the entries the caller gives.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/security_best_practices#local-mcp-server-compromise)
 *
 * @module
 * @internal
 */

/** The variables a stdio server inherits by default on POSIX systems. */
export const DEFAULT_INHERITED_ENV_POSIX: readonly string[] = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
];

/** The variables a stdio server inherits by default on Windows. */
export const DEFAULT_INHERITED_ENV_WIN32: readonly string[] = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'USERNAME',
  'USERPROFILE',
  'PROGRAMFILES',
];

/**
 * `env` laid over what the child inherits: `inheritEnv: true` passes all of `parent`, `false` nothing, and the
 * default only the names in {@link DEFAULT_INHERITED_ENV_POSIX} (or the Windows list), skipping values that start
 * with `()` (exported shell functions). Entries set to `undefined` are dropped.
 */
export function childEnv(
  options: { env?: Record<string, string | undefined>; inheritEnv?: boolean },
  parent: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  let inherited: NodeJS.ProcessEnv = {};
  if (options.inheritEnv === true) inherited = parent;
  else if (options.inheritEnv === undefined) {
    const names = platform === 'win32' ? DEFAULT_INHERITED_ENV_WIN32 : DEFAULT_INHERITED_ENV_POSIX;
    for (const name of names) {
      // Windows names are case-insensitive: find `Path` for `PATH`
      const key =
        platform === 'win32' ? Object.keys(parent).find((k) => k.toUpperCase() === name.toUpperCase()) : name;
      const value = key !== undefined ? parent[key] : undefined;
      if (value !== undefined && !value.startsWith('()')) inherited[name] = value;
    }
  }
  const merged = { ...inherited, ...options.env };
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(merged)) if (value !== undefined) env[key] = value;
  return env;
}
