/**
 * MCP server configuration files, in the shape the ecosystem already writes: `{"mcpServers": {name: entry}}`
 * (Claude Desktop, Claude Code's `.mcp.json` and `~/.claude.json`, Cursor's `mcp.json`) or `{"servers": {name:
 * entry}}` (VS Code's `.vscode/mcp.json`). An entry is a local command (`command`, `args`, `env`, `cwd`) or a remote
 * server (`url`, `headers`; VS Code also writes `type: "stdio" | "http"`). `${VAR}`, `${VAR:-default}`, `${env:VAR}`
 * and `${workspaceFolder}` are expanded in strings; VS Code's `${input:…}` prompts are not supported.
 *
 * Formats: https://modelcontextprotocol.io/quickstart/user , https://docs.anthropic.com/en/docs/claude-code/mcp ,
 * https://code.visualstudio.com/docs/copilot/chat/mcp-servers , https://docs.cursor.com/context/model-context-protocol
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../exit-codes.js';
import { closestNames } from '../suggest.js';

/** One server entry of a config file, after validation and expansion. */
export type ConfigServer =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { kind: 'http'; url: string; headers: Record<string, string> };

const Strings = z.record(z.string(), z.string());
const Entry = z.looseObject({
  type: z.string().optional(),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: Strings.optional(),
  cwd: z.string().optional(),
  url: z.string().min(1).optional(),
  headers: Strings.optional(),
});
const ConfigFile = z.looseObject({
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  servers: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The places searched when `--config` is not given, in order: the project's files (relative to `cwd`), then the
 * user's own. A name defined both in a project file and in a user file is an error naming both (a repository never
 * replaces the user's server of the same name); otherwise the first file that defines it is used.
 */
export function defaultConfigPaths(
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string[] {
  return [...projectConfigPaths(cwd), ...userConfigPaths(env, platform)];
}

/** The project's config files: they come with the directory (a cloned repository), so their use needs consent. */
export function projectConfigPaths(cwd: string = process.cwd()): string[] {
  return [join(cwd, '.mcp.json'), join(cwd, '.vscode', 'mcp.json'), join(cwd, '.cursor', 'mcp.json')];
}

/** The user's own config files. */
export function userConfigPaths(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string[] {
  const home = env.HOME ?? env.USERPROFILE ?? homedir();
  const claudeDesktop =
    platform === 'darwin'
      ? join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json')
      : platform === 'win32'
        ? join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json')
        : join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Claude', 'claude_desktop_config.json');
  return [join(home, '.claude.json'), join(home, '.cursor', 'mcp.json'), claudeDesktop];
}

/** A config file read and parsed: its server entries (unvalidated) by name. */
export interface LoadedConfig {
  path: string;
  servers: Record<string, unknown>;
  /** SHA-256 (hex) of the file's bytes: what a trust decision is remembered for. */
  sha256: string;
}

/**
 * Reads a config file. Returns `undefined` when it does not exist (and `required` is false).
 *
 * @throws {@link UsageError} when it cannot be read or is not a config file.
 */
export async function loadConfig(path: string, required: boolean): Promise<LoadedConfig | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read the config file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const file = ConfigFile.safeParse(parsed);
  if (!file.success)
    throw new UsageError(
      `the config file ${path} is not an MCP config ({"mcpServers": {…}} or {"servers": {…}})`,
    );
  return {
    path,
    servers: { ...file.data.servers, ...file.data.mcpServers },
    sha256: createHash('sha256').update(text).digest('hex'),
  };
}

/** Expands `${VAR}`, `${VAR:-default}`, `${env:VAR}` and `${workspaceFolder}` in one string. */
function expand(text: string, where: string, workspace: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([^}]*)\}/g, (whole, inner: string) => {
    if (inner === 'workspaceFolder') return workspace;
    if (inner.startsWith('input:'))
      throw new UsageError(
        `${where}: VS Code's ${whole} prompts are not supported; put the value in the file or use \${env:NAME}`,
      );
    const name = inner.startsWith('env:') ? inner.slice(4) : inner;
    const at = name.indexOf(':-');
    const key = at >= 0 ? name.slice(0, at) : name;
    const value = env[key];
    if (value !== undefined && value !== '') return value;
    if (at >= 0) return name.slice(at + 2);
    throw new UsageError(`${where}: ${whole} is not set in the environment`);
  });
}

/**
 * Validates and expands the entry `name` of a loaded config file.
 *
 * @throws {@link UsageError} naming the file and the entry when it is neither a command nor an http(s) URL.
 */
export function readConfigServer(
  config: LoadedConfig,
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): ConfigServer {
  const where = `server "${name}" in ${config.path}`;
  const entry = Entry.safeParse(config.servers[name]);
  if (!entry.success)
    throw new UsageError(`${where}: expected {"command", "args", "env"} or {"url", "headers"}`);
  const e = entry.data;
  // `.vscode/mcp.json` lives one level below the workspace folder; the other files sit in it (or in the home dir).
  const dir = dirname(resolve(config.path));
  const workspace = dir.endsWith('.vscode') || dir.endsWith('.cursor') ? dirname(dir) : dir;
  const x = (s: string): string => expand(s, where, workspace, env);
  const values = (r: Record<string, string> | undefined): Record<string, string> =>
    Object.fromEntries(Object.entries(r ?? {}).map(([k, v]) => [k, x(v)]));
  if (e.type === 'sse')
    throw new UsageError(
      `${where}: "type": "sse" (the 2024-11-05 HTTP+SSE transport) is not supported; use a Streamable HTTP endpoint`,
    );
  if (e.command !== undefined && e.type !== 'http') {
    return {
      kind: 'stdio',
      command: x(e.command),
      args: (e.args ?? []).map(x),
      env: values(e.env),
      cwd: e.cwd !== undefined ? resolve(workspace, x(e.cwd)) : undefined,
    };
  }
  if (e.url !== undefined) return { kind: 'http', url: x(e.url), headers: values(e.headers) };
  throw new UsageError(`${where}: expected {"command", "args", "env"} or {"url", "headers"}`);
}

/** Where a server name was found. */
export interface FoundServer {
  path: string;
  server: ConfigServer;
}

/**
 * Called with the file a name was found in when that file is not one of the user's own, before any `${VAR}` of it
 * is expanded: `named` is true when the person named the file with `--config` on this command line (that is
 * consent), false when it was found in the project or read back from a task record. Throws to refuse.
 */
export type ConfigConsent = (config: LoadedConfig, name: string, named: boolean) => Promise<void>;

/** A host and port (`localhost:3000`, `127.0.0.1:3000/mcp`): a URL whose `http://` was left out. */
const HOST_AND_PORT = /^[A-Za-z0-9.-]+:\d{1,5}(?:[/?#]|$)/;

/**
 * Finds server `name`: in `configPath` only when given, else in {@link defaultConfigPaths}. Any file that is not
 * one of the user's own goes through `consent` first.
 *
 * @param fromRecord - `configPath` was read back from a task record, not given by the person.
 * @throws {@link UsageError} when no file defines it (listing the files searched and the names they define), or
 *   when a project file and a user file both define it (naming both).
 */
export async function findConfigServer(
  name: string,
  configPath: string | undefined,
  consent: ConfigConsent,
  { env = process.env, fromRecord = false }: { env?: NodeJS.ProcessEnv; fromRecord?: boolean } = {},
): Promise<FoundServer> {
  const user = new Set(userConfigPaths(env));
  const paths = configPath !== undefined ? [resolve(configPath)] : defaultConfigPaths(process.cwd(), env);
  const known: string[] = [];
  const allNames: string[] = [];
  const defining: LoadedConfig[] = [];
  for (const path of paths) {
    const config = await loadConfig(path, configPath !== undefined);
    if (!config) continue;
    if (Object.hasOwn(config.servers, name)) defining.push(config);
    known.push(...Object.keys(config.servers).map((n) => `${n} (${path})`));
    allNames.push(...Object.keys(config.servers));
  }
  const project = defining.find((c) => !user.has(c.path));
  const own = defining.find((c) => user.has(c.path));
  if (configPath === undefined && project && own)
    throw new UsageError(
      `server "${name}" is defined both in the project file ${project.path} and in your own ${own.path}; ` +
        'a project file never replaces your server of the same name: pick one with --config <file>',
    );
  const chosen = defining[0];
  if (chosen) {
    if (!user.has(chosen.path)) await consent(chosen, name, configPath !== undefined && !fromRecord);
    return { path: chosen.path, server: readConfigServer(chosen, name, env) };
  }
  const searched = configPath !== undefined ? paths[0] : `any of:\n  ${paths.join('\n  ')}`;
  // "localhost:3000/mcp" is a URL without its scheme far more often than a server's name.
  const asUrl = HOST_AND_PORT.test(name) ? [`http://${name}`] : [];
  const close = [...asUrl, ...closestNames(name, [...new Set(allNames)])];
  const hint = close.length > 0 ? `; did you mean ${close.map((n) => JSON.stringify(n)).join(', ')}?` : '';
  const names = known.length > 0 ? `\nservers found: ${known.join(', ')}` : '';
  throw new UsageError(
    `"${name}" is not an http(s) URL, and no server of that name is in ${searched}${hint}${names}`,
  );
}
