/**
 * Which server a command talks to: an http(s) URL, a local command (`--stdio "<command line>"` with `--env K=V`
 * and `--cwd`), or a server named in an MCP config file (see {@link findConfigServer}). Also how a target is kept
 * in a task record (without secrets: no `--env` values, no headers) and the command-line flags that reach it again.
 *
 * Transports: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports
 *
 * @module
 */
import { resolve } from 'node:path';
import { parse as parseShell } from 'shell-quote';
import { StreamableHttpTransport, type HttpAuthOptions, type Transport } from 'mcp-tasks-client';
import { StdioTransport } from 'mcp-tasks-client/stdio';
import { InterruptedError, UsageError } from '../exit-codes.js';
import { ensureTrusted, rememberTrust } from './config-trust.js';
import { findConfigServer, type ConfigConsent, type ConfigServer } from './mcp-config.js';

/** The server options every command that talks to a server accepts. */
export interface ServerOptions {
  /** `--stdio "<command line>"`: start this command and speak MCP over its stdin/stdout. */
  stdio?: string;
  /** `--env K=V`, repeatable: environment entries for the `--stdio` command. */
  env?: string[];
  /** `--cwd <dir>`: working directory of the `--stdio` command. */
  cwd?: string;
  /** `--config <file>`: the MCP config file to find server names in. */
  config?: string;
  /** `--header "Name: value"`, repeatable: sent on every HTTP request. */
  header?: string[];
  /** `--trust-project-config`: trust the project config file the server name is found in, as it is now. */
  trustProjectConfig?: boolean;
  /** `--inherit-env`: a stdio server gets all of this environment, not only HOME, PATH, USER, SHELL, TERM, LOGNAME. */
  inheritEnv?: boolean;
  /** `--json`: no person answers questions (a project config file cannot be trusted by asking). */
  json?: boolean;
  /** `--era auto|modern|legacy`: the MCP version to speak (the client's `era` option). */
  era?: string;
}

/** How a run consents to a config file that is not the user's own (see {@link ensureTrusted}). */
function configConsent(options: ServerOptions): ConfigConsent {
  return (config, name, named) =>
    named
      ? rememberTrust(config) // naming the file with --config is consent
      : ensureTrusted(config, name, {
          trust: options.trustProjectConfig,
          interactive: options.json !== true && process.stdin.isTTY === true && process.stdout.isTTY === true,
        }).catch((error: unknown) => {
          // Ctrl-C at the trust question (the prompt library's ExitPromptError): an interruption (exit 130), not a
          // server error; nothing of the file was started or contacted.
          if ((error as Error | undefined)?.name !== 'ExitPromptError') throw error;
          throw new InterruptedError(
            `interrupted at the question whether to trust ${config.path}: server "${name}" was not run, nothing was started or contacted`,
          );
        });
}

interface TargetBase {
  /** What task records store to find the server again (never secrets). */
  readonly identity: string;
  /** How the server is shown to the person. */
  readonly label: string;
  /** The flags that reach the server again, as shell words (values of `--env`/`--header` left as placeholders). */
  readonly flags: readonly string[];
  /** `--era`: the MCP version to speak; absent means `auto` (detect on first contact). */
  readonly era?: 'auto' | 'modern' | 'legacy';
}

/** A resolved server. */
export type ServerTarget =
  | (TargetBase & {
      readonly kind: 'http';
      readonly url: URL;
      readonly headers: Readonly<Record<string, string>>;
    })
  | (TargetBase & {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string | undefined;
      /** Pass all of this environment to the server (`--inherit-env`), not only the allowlist. */
      readonly inheritEnv: boolean;
    });

const STDIO_SCHEME = 'stdio:';
const CONFIG_SCHEME = 'mcp-config:';

/**
 * Shell words as a POSIX shell reads them back: plain when safe, else in single quotes; a word with a control
 * character (a newline, an escape) in ANSI-C quotes (`$'id\nforged line'`, as bash, zsh and ksh read them), so the
 * line printed stays one line and pastes back to the same word.
 */
export function shellWords(words: readonly string[]): string {
  return words
    .map((w) =>
      /^[\w@%+=:,./-]+$/.test(w)
        ? w
        : /[\u0000-\u001f\u007f-\u009f]/.test(w)
          ? `$'${w.replace(/[\\']/g, '\\$&').replace(/[\u0000-\u001f\u007f-\u009f]/g, ansiC)}'`
          : `'${w.replace(/'/g, `'\\''`)}'`,
    )
    .join(' ');
}

/** One control character as ANSI-C quoting writes it: `\n`, `\t`, else `\xNN`. */
const ansiC = (c: string): string =>
  c === '\n' ? '\\n' : c === '\t' ? '\\t' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/**
 * Splits a command line into argv like a POSIX shell would (quotes, backslashes, `$VAR` from the environment), but
 * runs no shell: pipes, redirections, globs and `;` are refused.
 *
 * @throws {@link UsageError} for an empty line or a shell operator.
 */
export function splitCommandLine(line: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const words: string[] = [];
  for (const token of parseShell(line, (name) => env[name] ?? '')) {
    if (typeof token !== 'string') {
      const shown = 'comment' in token ? `#${token.comment}` : token.op === 'glob' ? token.pattern : token.op;
      throw new UsageError(
        `--stdio runs one command without a shell; "${String(shown)}" is not supported (wrap it: --stdio "sh -c '…'")`,
      );
    }
    words.push(token);
  }
  if (words.length === 0 || words[0] === '')
    throw new UsageError(
      '--stdio needs a command line, e.g. --stdio "npx mcp-tasks-reference-server --stdio"',
    );
  return words;
}

/** `K=V` pairs into an object. @throws {@link UsageError} for a pair without `=`. */
function parsePairs(pairs: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--env expects KEY=VALUE, got ${JSON.stringify(pair)}`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** `Name: value` headers into an object. @throws {@link UsageError} for a line without `:`. */
function parseHeaders(lines: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines ?? []) {
    const at = line.indexOf(':');
    if (at <= 0) throw new UsageError(`--header expects "Name: value", got ${JSON.stringify(line)}`);
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

/**
 * Checks an http(s) server URL. Credentials in it (`https://user:pass@host/mcp`) are refused: `fetch` would not
 * send them, so the server would answer 401 (or nothing useful).
 *
 * @throws {@link UsageError} for another scheme, or credentials in the URL.
 */
export function parseHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(
      `server must be an http(s) URL, a server name from an MCP config file, or --stdio "<command>"; got ${JSON.stringify(raw)}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`server must be an http(s) URL, got ${JSON.stringify(raw)}`);
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(
      `the server URL contains credentials (${url.username ? 'user' : ''}${url.password ? ':password' : ''}@); they are not sent from a URL. ` +
        `Pass them as a header instead, e.g. --header "Authorization: Basic <base64 of user:password>", or put "headers" in an MCP config file`,
    );
  }
  return url;
}

const headerFlags = (headers: Record<string, string>): string[] =>
  Object.keys(headers).flatMap((name) => ['--header', `${name}: <value>`]);

function httpTarget(
  url: URL,
  headers: Record<string, string>,
  identity?: string,
  flags?: string[],
  label?: string,
): ServerTarget {
  const plain = `${url.protocol}//${url.host}${url.pathname}`;
  return {
    kind: 'http',
    url,
    headers,
    identity: identity ?? plain,
    label: label ?? plain,
    flags: flags ?? ['--server', plain, ...headerFlags(headers)],
  };
}

function stdioTarget(
  line: string,
  words: string[],
  env: Record<string, string>,
  cwd: string | undefined,
  more: { identity?: string; flags?: string[]; label?: string; inheritEnv?: boolean } = {},
): ServerTarget {
  const [command, ...args] = words as [string, ...string[]];
  const inheritEnv = more.inheritEnv === true;
  const ownFlags = [
    '--stdio',
    line,
    ...(cwd !== undefined ? ['--cwd', cwd] : []),
    ...Object.keys(env).flatMap((k) => ['--env', `${k}=<value>`]),
    ...(inheritEnv ? ['--inherit-env'] : []),
  ];
  return {
    kind: 'stdio',
    command,
    args,
    env,
    cwd,
    inheritEnv,
    identity:
      more.identity ??
      `${STDIO_SCHEME}///${encodeURIComponent(cwd ?? process.cwd())}/${encodeURIComponent(line)}`,
    label: more.label ?? `stdio: ${line}`,
    flags: more.flags ?? ownFlags,
  };
}

function fromConfig(
  name: string,
  path: string,
  server: ConfigServer,
  explicitConfig: boolean,
  inheritEnv: boolean | undefined,
): ServerTarget {
  const identity = `${CONFIG_SCHEME}///${encodeURIComponent(path)}/${encodeURIComponent(name)}`;
  const flags = ['--server', name, ...(explicitConfig ? ['--config', path] : [])];
  const label = `${name} (${path})`;
  if (server.kind === 'http')
    return httpTarget(parseHttpUrl(server.url), server.headers, identity, flags, label);
  return stdioTarget(
    shellWords([server.command, ...server.args]),
    [server.command, ...server.args],
    server.env,
    server.cwd,
    { identity, flags: inheritEnv ? [...flags, '--inherit-env'] : flags, label, inheritEnv },
  );
}

/**
 * Resolves the server of a command: `--stdio` (then `server` must be absent), else `server` as an http(s) URL, else
 * as a name in an MCP config file.
 *
 * @throws {@link UsageError} for a missing or contradictory server, a bad URL, command line, `--env` or config.
 */
export async function resolveTarget(
  server: string | undefined,
  options: ServerOptions,
): Promise<ServerTarget> {
  const era = parseEra(options.era);
  const target = await resolveServer(server, options);
  // The resume commands printed later (status, watch, cancel) speak the same version.
  return era === undefined || era === 'auto'
    ? target
    : { ...target, era, flags: [...target.flags, '--era', era] };
}

/** `--era`'s value, checked. @throws {@link UsageError} for anything but auto, modern, legacy. */
function parseEra(value: string | undefined): 'auto' | 'modern' | 'legacy' | undefined {
  if (value === undefined) return undefined;
  if (value === 'auto' || value === 'modern' || value === 'legacy') return value;
  throw new UsageError(`--era must be auto, modern or legacy, not ${JSON.stringify(value)}`);
}

async function resolveServer(server: string | undefined, options: ServerOptions): Promise<ServerTarget> {
  const env = parsePairs(options.env);
  const headers = parseHeaders(options.header);
  if (options.stdio !== undefined) {
    if (server !== undefined)
      throw new UsageError(`give either a server (${JSON.stringify(server)}) or --stdio, not both`);
    if (options.header?.length)
      throw new UsageError('--header is for HTTP servers; a --stdio server gets --env');
    return stdioTarget(
      options.stdio,
      splitCommandLine(options.stdio),
      env,
      options.cwd !== undefined ? resolve(options.cwd) : undefined,
      { inheritEnv: options.inheritEnv },
    );
  }
  if (options.env?.length || options.cwd !== undefined)
    throw new UsageError('--env and --cwd go with --stdio "<command line>"');
  if (server === undefined || server === '')
    throw new UsageError(
      'which server? give an http(s) URL, a server name from an MCP config file, or --stdio "<command line>"',
    );
  if (server.includes('://')) return httpTarget(parseHttpUrl(server), headers);
  if (options.header?.length)
    throw new UsageError('--header is for an http(s) URL; a config file entry has its own "headers"');
  const found = await findConfigServer(server, options.config, configConsent(options));
  return fromConfig(server, found.path, found.server, options.config !== undefined, options.inheritEnv);
}

/** The two parts of a stored identity after its scheme (`///<directory or config path>/<command line or name>`). */
function identityParts(rest: string): [string, string] | undefined {
  if (!rest.startsWith('///')) return undefined;
  const split = rest.slice(3).split('/');
  if (split.length !== 2) return undefined;
  try {
    return [decodeURIComponent(split[0]!), decodeURIComponent(split[1]!)];
  } catch {
    return undefined;
  }
}

/**
 * A recorded server as the person named it, for `ls`: the config name, the `--stdio` command line, or the URL;
 * the stored identity itself when it cannot be read. Reads no file and starts nothing.
 */
export function identityName(identity: string): string {
  if (identity.startsWith(STDIO_SCHEME)) {
    const rest = identity.slice(STDIO_SCHEME.length);
    return `stdio: ${identityParts(rest)?.[1] ?? rest}`;
  }
  if (identity.startsWith(CONFIG_SCHEME))
    return identityParts(identity.slice(CONFIG_SCHEME.length))?.[1] ?? identity;
  return identity;
}

/**
 * The target a task record points at (see {@link TargetBase.identity}). A `--stdio` record restarts the same command
 * line in the same directory (without its `--env` values); a config record reads the config file again. A record
 * written by `StdioTransport`'s default key (`stdio:<command line>`, no directory) restarts the command line in the
 * current directory, and keeps that key so the same record is continued.
 *
 * @throws {@link UsageError} when the identity cannot be read back.
 */
export async function targetFromIdentity(
  identity: string,
  options: ServerOptions = {},
): Promise<ServerTarget> {
  const unreadable = () => new UsageError(`cannot read the recorded server ${JSON.stringify(identity)}`);
  if (identity.startsWith(STDIO_SCHEME)) {
    const ours = identityParts(identity.slice(STDIO_SCHEME.length));
    const more = { identity, inheritEnv: options.inheritEnv };
    if (ours) return stdioTarget(ours[1], splitCommandLine(ours[1]), {}, ours[0], more);
    const line = identity.slice(STDIO_SCHEME.length); // StdioTransport's default key: the command line alone
    return stdioTarget(line, splitCommandLine(line), {}, undefined, more);
  }
  if (identity.startsWith(CONFIG_SCHEME)) {
    const ours = identityParts(identity.slice(CONFIG_SCHEME.length));
    if (!ours) throw unreadable();
    const [path, name] = ours;
    const found = await findConfigServer(name, path, configConsent(options), { fromRecord: true });
    return fromConfig(name, found.path, found.server, true, options.inheritEnv);
  }
  return httpTarget(parseHttpUrl(identity), {});
}

/** Whether a record's identity names this target (records of the same server). */
export function isStoredIdentity(identity: string): boolean {
  return identity.startsWith(STDIO_SCHEME) || identity.startsWith(CONFIG_SCHEME);
}

/**
 * The transport for a target. Its `serverKey` is the target's identity, so the task records the client writes name
 * the server the way {@link targetFromIdentity} reads back. A stdio server's stderr is dropped (its last lines are
 * kept in `ServerExitedError` when it dies).
 */
export function openTransport(target: ServerTarget, auth?: HttpAuthOptions): Transport {
  const serverKey = target.identity;
  if (target.kind === 'http')
    return new StreamableHttpTransport(target.url.href, { headers: { ...target.headers }, serverKey, auth });
  return new StdioTransport({
    command: target.command,
    args: [...target.args],
    env: { ...target.env },
    inheritEnv: target.inheritEnv ? true : undefined,
    cwd: target.cwd,
    restart: false,
    serverKey,
  });
}

/** `mcp-tasks <command> <taskId> <flags>`, shell-quoted, to reach this task's server again. */
export function commandFor(command: string, taskId: string, target: ServerTarget): string {
  return `mcp-tasks ${command} ${shellWords([taskId, ...target.flags])}`;
}
