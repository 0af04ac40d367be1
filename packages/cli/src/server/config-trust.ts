/**
 * Consent for project config files. A repository can ship `.mcp.json`, `.vscode/mcp.json` or `.cursor/mcp.json`; a
 * server in one of them runs a command on this machine or sends `${VAR}` values from this environment to a URL, so
 * its first use asks: the person sees every server of the file (the exact command line or URL as written, its
 * headers and `env`, and every environment variable it would read) and answers yes or no. A yes is remembered for
 * that file's content (a SHA-256 of its bytes) in `<data dir>/trusted-configs.json`; a changed file asks again.
 * Without a terminal the command is refused with {@link UntrustedConfigError}, which names the flag that trusts
 * the file as it is now. (https://modelcontextprotocol.io/specification/2026-07-28/basic/security_best_practices ,
 * "Local MCP Server Compromise")
 *
 * @module
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { confirm } from '@inquirer/prompts';
import writeFileAtomic from 'write-file-atomic';
import { dataDir } from '../data-dir.js';
import { safeLine } from 'mcp-tasks-client';
import type { LoadedConfig } from './mcp-config.js';

/** The flag that trusts a project config file as it is now, without asking. */
export const TRUST_FLAG = '--trust-project-config';

/**
 * A project config file that nobody trusted, in a run that cannot ask (no terminal, or `--json`). Exit code 10.
 */
export class UntrustedConfigError extends Error {
  override readonly name = 'UntrustedConfigError';
  constructor(
    /** The config file. */
    readonly path: string,
    /** The server name that was asked for. */
    readonly server: string,
    message: string,
  ) {
    super(message);
  }
}

/** How a run decides on an untrusted project file. */
export interface TrustOptions {
  /** `--trust-project-config` was given: trust the file as it is now (and remember it). */
  trust?: boolean;
  /** A person can answer (stdin and stdout are terminals, no `--json`). */
  interactive: boolean;
  /** Asks the person; resolves with the answer. @default a yes/no prompt on the terminal (default no) */
  ask?: (description: string) => Promise<boolean>;
  /** Where the remembered answers live. @default the CLI's data directory */
  dir?: string;
}

/** Every `${…}` environment variable a value reads (`${VAR}`, `${VAR:-default}`, `${env:VAR}`). */
function variablesIn(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') {
    for (const [, inner] of value.matchAll(/\$\{([^}]*)\}/g)) {
      if (inner === undefined || inner === 'workspaceFolder' || inner.startsWith('input:')) continue;
      const name = inner.startsWith('env:') ? inner.slice(4) : inner;
      const at = name.indexOf(':-');
      into.add(at >= 0 ? name.slice(0, at) : name);
    }
  } else if (Array.isArray(value)) for (const v of value) variablesIn(v, into);
  else if (value !== null && typeof value === 'object')
    for (const v of Object.values(value)) variablesIn(v, into);
}

const str = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
const quoteWord = (w: string): string => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/** What one entry would do, as written in the file (nothing expanded), one line per fact; all of it terminal-safe. */
export function describeEntry(name: string, entry: unknown): string[] {
  const e = (entry !== null && typeof entry === 'object' ? entry : {}) as Record<string, unknown>;
  const lines: string[] = [];
  if (typeof e.command === 'string' && e.type !== 'http') {
    const args = Array.isArray(e.args) ? e.args.map(str) : [];
    lines.push(`${name}: runs ${[e.command, ...args].map(quoteWord).join(' ')}`);
    if (e.cwd !== undefined) lines.push(`  in ${str(e.cwd)}`);
    for (const [k, v] of Object.entries((e.env ?? {}) as object)) lines.push(`  env ${k}=${str(v)}`);
  } else if (e.url !== undefined) {
    lines.push(`${name}: connects to ${str(e.url)}`);
    for (const [k, v] of Object.entries((e.headers ?? {}) as object)) lines.push(`  header ${k}: ${str(v)}`);
  } else lines.push(`${name}: ${JSON.stringify(entry)}`);
  const vars = new Set<string>();
  variablesIn(entry, vars);
  if (vars.size > 0) lines.push(`  reads your environment variables: ${[...vars].sort().join(', ')}`);
  return lines.map(safeLine);
}

/** The whole file's servers, described for consent. */
export function describeConfig(config: LoadedConfig): string {
  return Object.entries(config.servers)
    .flatMap(([name, entry]) => describeEntry(name, entry))
    .join('\n');
}

interface TrustFile {
  /** Config file path → SHA-256 (hex) of the content that was trusted. */
  files: Record<string, string>;
}

const trustPath = (dir: string): string => join(dir, 'trusted-configs.json');

async function readTrust(dir: string): Promise<TrustFile> {
  try {
    const parsed = JSON.parse(await readFile(trustPath(dir), 'utf8')) as Partial<TrustFile>;
    return { files: parsed.files !== null && typeof parsed.files === 'object' ? parsed.files : {} };
  } catch {
    return { files: {} };
  }
}

/** Remembers that `config`, as it is now, is trusted. */
export async function rememberTrust(config: LoadedConfig, dir: string = dataDir()): Promise<void> {
  const trust = await readTrust(dir);
  if (trust.files[config.path] === config.sha256) return;
  trust.files[config.path] = config.sha256;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(trustPath(dir), `${JSON.stringify(trust, null, 2)}\n`, { mode: 0o600 });
}

/** True when this file's current content was trusted before. */
export async function isTrusted(config: LoadedConfig, dir: string = dataDir()): Promise<boolean> {
  return (await readTrust(dir)).files[config.path] === config.sha256;
}

async function askOnTerminal(description: string): Promise<boolean> {
  process.stdout.write(`${description}\n`);
  return confirm({ message: 'Trust this file and run it?', default: false });
}

/**
 * Makes sure the project config file `config`, where server `name` was found, is trusted before anything of it is
 * expanded, started or contacted: remembered, `--trust-project-config`, or a yes from the person.
 *
 * @throws {@link UntrustedConfigError} when nobody can ask, or the person says no.
 */
export async function ensureTrusted(
  config: LoadedConfig,
  name: string,
  options: TrustOptions,
): Promise<void> {
  const dir = options.dir ?? dataDir();
  if (await isTrusted(config, dir)) return;
  const what = describeConfig(config);
  if (options.trust) return rememberTrust(config, dir);
  const header = `${safeLine(config.path)} is a project config file (it came with this directory, not from you). It defines:`;
  if (!options.interactive)
    throw new UntrustedConfigError(
      config.path,
      name,
      `${header}\n${what}\nserver "${safeLine(name)}" was not run: this file is not trusted yet (or changed since), and this run cannot ask ` +
        `(no terminal, or --json). Review it, then run once in a terminal to answer, or pass ${TRUST_FLAG} to trust it as it is now.`,
    );
  const yes = await (options.ask ?? askOnTerminal)(`${header}\n${what}`);
  if (!yes)
    throw new UntrustedConfigError(
      config.path,
      name,
      `server "${safeLine(name)}" was not run: you did not trust ${safeLine(config.path)}`,
    );
  await rememberTrust(config, dir);
}
