/**
 * A real `redis-server` (Debian's package) on a random loopback port with a temporary directory, for the fleet
 * tests. `--port 0` is not supported, so a free port is found by binding port 0 in Node first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';

/** A running redis-server. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  /** Stops it (SIGTERM; with persistence on, the AOF is flushed) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and directory. */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

/** Options of {@link startRedis}. */
export interface RedisServerOptions {
  /** Append-only file with fsync on every write: nothing acknowledged is lost across a restart. @default false */
  persistence?: boolean;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 500 } });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.sendCommand(['PING']);
      await client.close();
      return;
    } catch {
      client.destroy();
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  throw new Error('redis-server did not start');
}

/** Starts redis-server on 127.0.0.1 and a free port. */
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--daemonize',
    'no',
    '--logfile',
    join(dir, 'redis.log'),
  ];
  args.push(
    ...(options.persistence ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
  );
  let child: ChildProcess;
  const start = async (): Promise<void> => {
    child = spawn('redis-server', args, { stdio: 'ignore' });
    await waitReady(url, child);
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  };
  await start();
  return {
    port,
    url,
    dir,
    stop,
    restart: start,
    close: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
