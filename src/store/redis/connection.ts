/**
 * The one seam to the Redis client: raw commands (`sendCommand`, as node-redis offers it), scripts by SHA with a
 * fallback after a restart wiped the script cache, and a count of commands sent.
 *
 * @module
 * @internal
 */
import { createHash } from 'node:crypto';
import { StoreUnavailableError } from './errors.js';

/**
 * What the store needs from a Redis client: node-redis's `sendCommand` (RESP2 replies) and `duplicate()` for the
 * blocking stream reader. A `createClient()` from the `redis` package fits as it is.
 */
export interface RedisClientLike {
  /** Sends one raw command (`['XADD', key, …]`) and resolves with its RESP2 reply. */
  sendCommand(args: string[]): Promise<unknown>;
  /** A new client with the same settings, for the blocking stream reader. */
  duplicate(): RedisClientLike;
  /** Opens the connection. */
  connect(): Promise<unknown>;
  /** node-redis ≥ 5 closes with `close()`; older ones with `quit()`. */
  close?(): Promise<unknown>;
  /** Closes the connection gracefully (node-redis < 5). */
  quit?(): Promise<unknown>;
  /** Closes the connection at once. */
  destroy?(): unknown;
  /** Whether the connection is open. */
  readonly isOpen?: boolean;
  /** Listens for connection errors. */
  on?(event: 'error', listener: (error: unknown) => void): unknown;
}

/** Sends commands and scripts; counts them. */
export class RedisConnection {
  readonly #client: RedisClientLike;
  readonly #shas = new Map<string, string>();
  /** Commands sent so far (a script counts as one). */
  commands = 0;

  constructor(client: RedisClientLike) {
    this.#client = client;
  }

  get client(): RedisClientLike {
    return this.#client;
  }

  /** @throws {@link StoreUnavailableError} when the command fails. */
  async send(args: string[]): Promise<unknown> {
    this.commands++;
    try {
      return await this.#client.sendCommand(args);
    } catch (error) {
      throw new StoreUnavailableError(args[0] ?? 'command', { cause: error });
    }
  }

  /**
   * Runs `script` by SHA (EVALSHA), loading it with EVAL when Redis does not know it (first use, or after a
   * restart emptied the script cache).
   *
   * @throws {@link StoreUnavailableError} when Redis fails or the script raised an error.
   */
  async eval(script: string, keys: string[], args: Array<string | number>): Promise<unknown> {
    let sha = this.#shas.get(script);
    if (sha === undefined) {
      sha = createHash('sha1').update(script).digest('hex');
      this.#shas.set(script, sha);
    }
    const rest = [String(keys.length), ...keys, ...args.map(String)];
    this.commands++;
    try {
      return await this.#client.sendCommand(['EVALSHA', sha, ...rest]);
    } catch (error) {
      if (!String((error as Error)?.message ?? error).includes('NOSCRIPT'))
        throw new StoreUnavailableError('EVALSHA', { cause: error });
    }
    return this.send(['EVAL', script, ...rest]);
  }
}

/** Closes a node-redis client, whichever generation it is. */
export async function closeClient(client: RedisClientLike): Promise<void> {
  try {
    if (client.close) await client.close();
    else if (client.quit) await client.quit();
    else client.destroy?.();
  } catch {
    client.destroy?.();
  }
}
