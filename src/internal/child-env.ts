/**
 * The environment of a server child process (Node only).
 *
 * @module
 * @internal
 */

/** `env` laid over `process.env` (over nothing when `inheritEnv` is false); entries set to `undefined` are dropped. */
export function childEnv(options: {
  env?: Record<string, string | undefined>;
  inheritEnv?: boolean;
}): Record<string, string> {
  const merged = { ...(options.inheritEnv === false ? {} : process.env), ...options.env };
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(merged)) if (value !== undefined) env[key] = value;
  return env;
}
