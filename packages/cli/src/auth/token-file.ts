/**
 * Where `mcp-tasks` keeps what it needs to stay authorized to a server: one JSON file per server URL (its query
 * included: `?tenant=a` and `?tenant=b` are two servers) under `$MCP_TASKS_HOME/auth` (default: the user data
 * directory of "mcp-tasks"), mode 0600 in a 0700 directory, written atomically. It holds the OAuth client
 * registration, the tokens, the discovery state and, during a sign-in, the PKCE verifier. `mcp-tasks logout
 * <server>` deletes it. Nothing else (task records, logs) holds a token.
 *
 * The file is never read or written through a symbolic link, and a directory or file owned by another user is
 * refused; a file others can read is made private again (a failed `chmod` is an error). Processes that share the file
 * take a lock (proper-lockfile: `<file>.lock`) around every change and every authorization, and read the file again
 * once they hold it, so a refresh token that rotates is spent once and tokens another process wrote are never lost.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#token-handling)
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { chmod, lstat, mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { lock } from 'proper-lockfile';
import writeFileAtomic from 'write-file-atomic';
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { dataDir } from '../data-dir.js';

/** The contents of one server's file. */
export interface AuthFileData {
  /** The server this file is for (origin, path and query). */
  server: string;
  client?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  discovery?: OAuthDiscoveryState;
  codeVerifier?: string;
}

/** A token file or its directory that is not safe to use (a symlink, another user's, or its mode cannot be fixed). */
export class TokenFileError extends Error {
  override readonly name = 'TokenFileError';
}

/** The directory of the authorization files: `$MCP_TASKS_HOME/auth`, else `<user data dir>/mcp-tasks/auth`. */
export function authDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDir(env), 'auth');
}

/** What the credentials of a server are kept under: the URL without its fragment (scheme, host, path, query). */
export function authKey(serverUrl: string | URL): string {
  const u = new URL(serverUrl);
  return `${u.protocol}//${u.host}${u.pathname}${u.search}`;
}

/** How long another process may hold the lock before this one gives up, in milliseconds (a sign-in can hold it). */
const LOCK_WAIT_MS = 6 * 60_000;
const POSIX = process.platform !== 'win32';

/** Refuses what another user owns; makes a group- or world-accessible entry private. */
async function checkOwnerAndMode(path: string, stats: Stats, mode: number, what: string): Promise<void> {
  if (!POSIX) return;
  if (stats.isSymbolicLink())
    throw new TokenFileError(`${what} ${path} is a symbolic link; refusing to follow it with credentials`);
  if (process.getuid && stats.uid !== process.getuid())
    throw new TokenFileError(
      `${what} ${path} belongs to another user (uid ${stats.uid}); refusing to use it`,
    );
  if ((stats.mode & 0o077) !== 0) {
    try {
      await chmod(path, mode);
    } catch (error) {
      throw new TokenFileError(
        `${what} ${path} can be read by others and its mode could not be set to ${mode.toString(8)}: ${(error as Error).message}`,
      );
    }
  }
}

/** One server's authorization file. Reads once, then serves from memory; every change is written through. */
export class AuthFile {
  readonly path: string;
  readonly server: string;
  readonly #dir: string;
  #data: AuthFileData | undefined;
  #holding = false;

  constructor(serverUrl: string | URL, dir: string = authDir()) {
    this.server = authKey(serverUrl);
    this.#dir = dir;
    this.path = join(dir, `${createHash('sha256').update(this.server).digest('hex').slice(0, 32)}.json`);
  }

  /**
   * The stored data (an empty record when there is no file or it cannot be parsed).
   *
   * @throws {@link TokenFileError} when the file is a symlink or another user's, or its mode cannot be fixed.
   */
  async read(): Promise<AuthFileData> {
    if (this.#data) return this.#data;
    const empty = { server: this.server };
    let text: string;
    try {
      const handle = await open(this.path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
      try {
        await checkOwnerAndMode(this.path, await handle.stat(), 0o600, 'the token file');
        text = await handle.readFile('utf8');
      } finally {
        await handle.close();
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return (this.#data = empty);
      if (code === 'ELOOP')
        throw new TokenFileError(`the token file ${this.path} is a symbolic link; refusing to follow it`);
      throw error;
    }
    try {
      const parsed = JSON.parse(text) as AuthFileData;
      this.#data = parsed && typeof parsed === 'object' && parsed.server === this.server ? parsed : empty;
    } catch {
      this.#data = empty;
    }
    return this.#data;
  }

  /** Creates the directory (0700) and checks it is ours and private. */
  async #ensureDir(): Promise<void> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    await checkOwnerAndMode(this.#dir, await lstat(this.#dir), 0o700, 'the token directory');
  }

  /**
   * Runs `run` holding this file's lock (other `mcp-tasks` processes wait), with the file read again first. Nested
   * calls share the lock.
   */
  async exclusive<T>(run: () => Promise<T>): Promise<T> {
    if (this.#holding) return run();
    await this.#ensureDir();
    const release = await lock(this.path, {
      realpath: false,
      stale: 20_000,
      update: 5_000,
      retries: { retries: Math.ceil(LOCK_WAIT_MS / 500), minTimeout: 20, maxTimeout: 500, factor: 1.5 },
      onCompromised: () => undefined, // the lock went stale under us: the atomic writes still keep the file whole
    });
    this.#holding = true;
    this.#data = undefined;
    try {
      return await run();
    } finally {
      this.#holding = false;
      await release().catch(() => undefined);
    }
  }

  /**
   * Applies `change` and, unless `persist` is false (memory only), writes the file (0600; its directory 0700) under
   * the lock, to the file as it is on disk then (another process may have written it meanwhile).
   */
  async update(change: (data: AuthFileData) => void, persist = true): Promise<void> {
    if (!persist) {
      change(await this.read());
      return;
    }
    await this.exclusive(async () => {
      const data = await this.read();
      change(data);
      const existing = await lstat(this.path).catch(() => undefined);
      if (existing?.isSymbolicLink())
        throw new TokenFileError(
          `the token file ${this.path} is a symbolic link; refusing to write through it`,
        );
      await writeFileAtomic(this.path, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, fsync: true });
    });
  }

  /** Deletes the file. Resolves `true` when there was one. */
  async remove(): Promise<boolean> {
    this.#data = undefined;
    const existing = await lstat(this.path).catch(() => undefined);
    if (!existing) return false;
    await rm(this.path, { force: true });
    return true;
  }
}
