/**
 * Where `mcp-tasks` keeps what it needs to stay authorized to a server: one JSON file per server under
 * `$MCP_TASKS_HOME/auth` (default: the user data directory of "mcp-tasks"), mode 0600 in a 0700 directory, written
 * atomically. It holds the OAuth client registration, the tokens, the discovery state and, during a sign-in, the
 * PKCE verifier. `mcp-tasks logout <server>` deletes it. Nothing else (task records, logs) holds a token.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#token-handling)
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { serverIdentity } from '../../index.js';
import { dataDir } from '../data-dir.js';

/** The contents of one server's file. */
export interface AuthFileData {
  /** The server this file is for (origin and path). */
  server: string;
  client?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  discovery?: OAuthDiscoveryState;
  codeVerifier?: string;
}

/** The directory of the authorization files: `$MCP_TASKS_HOME/auth`, else `<user data dir>/mcp-tasks/auth`. */
export function authDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDir(env), 'auth');
}

/** One server's authorization file. Reads once, then serves from memory; every change is written through. */
export class AuthFile {
  readonly path: string;
  readonly server: string;
  #data: AuthFileData | undefined;

  constructor(serverUrl: string | URL, dir: string = authDir()) {
    this.server = serverIdentity(serverUrl);
    this.path = join(dir, `${createHash('sha256').update(this.server).digest('hex').slice(0, 32)}.json`);
  }

  /** The stored data (an empty record when there is no file or it cannot be parsed). */
  async read(): Promise<AuthFileData> {
    if (this.#data) return this.#data;
    try {
      const parsed = JSON.parse(await readFile(this.path, 'utf8')) as AuthFileData;
      this.#data =
        parsed && typeof parsed === 'object' && parsed.server === this.server
          ? parsed
          : { server: this.server };
    } catch {
      this.#data = { server: this.server };
    }
    return this.#data;
  }

  /** Applies `change` and, unless `persist` is false (memory only), writes the file (0600; its directory 0700). */
  async update(change: (data: AuthFileData) => void, persist = true): Promise<void> {
    const data = await this.read();
    change(data);
    if (!persist) return;
    const dir = join(this.path, '..');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700).catch(() => undefined);
    await writeFileAtomic(this.path, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, fsync: true });
  }

  /** Deletes the file. Resolves `true` when there was one. */
  async remove(): Promise<boolean> {
    this.#data = undefined;
    try {
      await readFile(this.path);
    } catch {
      return false;
    }
    await rm(this.path, { force: true });
    return true;
  }
}
