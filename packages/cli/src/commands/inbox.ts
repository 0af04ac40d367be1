/**
 * `mcp-tasks inbox`: a local web page where people answer the questions of running tasks, watch their tasks move,
 * cancel them and read how they ended. It serves the tasks of the CLI's record store (or `--store <dir>`), or of a
 * Redis fleet (`--redis`), on 127.0.0.1 at a random port, and prints a one-time sign-in link.
 *
 * @module
 */
import { FileTaskStore } from 'mcp-tasks-client/file-store';
import type { TaskStore } from 'mcp-tasks-client';
import { ExitCode, UsageError, type ExitCodeValue } from '../exit-codes.js';
import { FileDeliverer } from '../inbox/file-deliverer.js';
import { openFleetDeliverer } from '../inbox/fleet-deliverer.js';
import { InboxTasks, type Deliverer } from '../inbox/inbox-tasks.js';
import { startInboxServer } from '../inbox/inbox-server.js';
import { Output } from '../output.js';
import { recordsDir } from '../record-store.js';
import { runReporting } from '../session.js';

/** Options of `inbox`. */
export interface InboxCommandOptions {
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string;
  /** TCP port (0: a free one). @default '0' */
  port?: string;
  /** A FileTaskStore directory instead of the CLI's records. */
  store?: string;
  /** A Redis fleet's URL. */
  redis?: string;
  /** The fleet's key prefix. */
  prefix?: string;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Runs the inbox until SIGINT or SIGTERM; resolves with 0. */
export function inboxCommand(options: InboxCommandOptions): Promise<ExitCodeValue> {
  const output = new Output();
  return runReporting(output, async () => {
    const host = options.host ?? '127.0.0.1';
    const port = Number(options.port ?? '0');
    if (!Number.isInteger(port) || port < 0 || port > 65_535)
      throw new UsageError(`--port must be a port number (0 picks a free one); got ${options.port}`);
    if (options.redis !== undefined && options.store !== undefined)
      throw new UsageError('give --store or --redis, not both');
    if (!LOOPBACK.has(host))
      output.warn(
        `warning: the inbox listens on ${host}, beyond this machine. Anyone who reaches it and holds a sign-in link ` +
          'can answer and cancel tasks, over plain HTTP (no TLS): links and cookies can be read on the way. ' +
          'Prefer 127.0.0.1 and an SSH tunnel (ssh -L 8080:127.0.0.1:<port> host), see docs/inbox.md.',
      );
    let changed: () => void = () => undefined;
    let url: URL | undefined;
    let store: TaskStore;
    let deliverer: Deliverer;
    if (options.redis !== undefined) {
      try {
        url = new URL(options.redis);
      } catch {
        throw new UsageError(`--redis must be a redis:// or rediss:// URL; got ${options.redis}`);
      }
      if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
        throw new UsageError(`--redis must be a redis:// or rediss:// URL; got ${options.redis}`);
      const fleet = await openFleetDeliverer({
        url: url.href,
        prefix: options.prefix,
        onChange: () => changed(),
      });
      store = fleet.store;
      deliverer = fleet.deliverer;
    } else {
      const dir = options.store ?? recordsDir();
      store = new FileTaskStore(dir);
      deliverer = new FileDeliverer({ store, onChange: () => changed() });
    }
    const tasks = new InboxTasks({ store, deliverer, refreshMs: options.redis !== undefined ? 500 : 300 });
    changed = () => void tasks.refresh();
    const server = await startInboxServer({ tasks, host, port });
    output.text(
      `mcp-tasks inbox: ${options.redis !== undefined ? `the Redis fleet at ${url?.host ?? ''}` : 'task records'}`,
    );
    output.text(`Open (the link works once): ${server.signInLink()}`);
    output.text('Stop with Ctrl-C.');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await server.close();
    await tasks.close();
    return ExitCode.Completed;
  });
}
