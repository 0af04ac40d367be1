/**
 * Runs the integration suite over both transports: the reference server over loopback HTTP (one server per suite,
 * read in-process), or over stdio (one child process per client, running the CLI bundled from source with esbuild once
 * per suite: plain `node` starts in ~0.1 s where `node --import tsx` takes ~0.5 s). Server stats
 * are per process, so over stdio they are read through the server's test-only `reference/stats` method on the
 * client's own transport (`--expose-stats`); both harnesses return the same {@link StatsSnapshot}.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { StreamableHttpTransport, type Transport } from '../../src/index.js';
import { StdioTransport } from '../../src/stdio.js';
import {
  createTaskServer,
  STATS_METHOD,
  type StatsSnapshot,
  type TaskServer,
  type TaskServerCoreOptions,
} from '../../src/testing/index.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = fileURLToPath(new URL('../../src/testing/reference-server-cli.ts', import.meta.url));

/** Server options the suite may set; each maps to a CLI flag for stdio. */
export type SuiteServerOptions = Pick<
  TaskServerCoreOptions,
  'pollIntervalMs' | 'ttlMs' | 'inputTimeoutMs' | 'inlineBudgetMs' | 'timeScale'
>;

/** One way of reaching a reference server. */
export interface Harness {
  readonly name: 'http' | 'stdio';
  /** Starts what the whole suite shares (HTTP: the server). */
  setup(options: SuiteServerOptions): Promise<void>;
  /** A transport for one new client; `overrides` asks for a server with other options. Closed with the client. */
  transport(overrides?: SuiteServerOptions): Promise<Transport>;
  /** The stats of the server behind `transport`; the task lists are for `taskId`. */
  stats(transport: Transport, taskId?: string): Promise<StatsSnapshot>;
  teardown(): Promise<void>;
}

function snapshotOf(server: TaskServer, taskId: string | undefined): StatsSnapshot {
  const { stats } = server;
  return {
    counts: stats.counts(),
    taskGetTimes: taskId === undefined ? [] : stats.taskGetTimes(taskId),
    taskUpdates: stats.taskUpdates(taskId),
    taskCancels: stats.taskCancels(taskId),
  };
}

/** The reference server over Streamable HTTP on loopback, stats read in-process. */
export function httpHarness(): Harness {
  let base: SuiteServerOptions = {};
  let shared: TaskServer | undefined;
  const extra: TaskServer[] = [];
  const serverOf = new WeakMap<Transport, TaskServer>();
  return {
    name: 'http',
    async setup(options) {
      base = options;
      shared = await createTaskServer(options);
    },
    async transport(overrides) {
      let server = shared as TaskServer;
      if (overrides !== undefined) {
        server = await createTaskServer({ ...base, ...overrides });
        extra.push(server);
      }
      const transport = new StreamableHttpTransport(server.url);
      serverOf.set(transport, server);
      return transport;
    },
    async stats(transport, taskId) {
      const server = serverOf.get(transport);
      if (server === undefined) throw new Error('stats: unknown transport');
      return snapshotOf(server, taskId);
    },
    async teardown() {
      await Promise.all([shared, ...extra.splice(0)].map((s) => s?.close()));
    },
  };
}

/** CLI flags for the server options. */
export function cliFlags(options: SuiteServerOptions): string[] {
  const flags: string[] = [];
  if (options.pollIntervalMs !== undefined) flags.push('--poll-interval-ms', String(options.pollIntervalMs));
  if (options.ttlMs !== undefined)
    flags.push('--ttl-ms', options.ttlMs === null ? 'none' : String(options.ttlMs));
  if (options.inputTimeoutMs !== undefined) flags.push('--input-timeout-ms', String(options.inputTimeoutMs));
  if (options.inlineBudgetMs !== undefined) flags.push('--inline-budget-ms', String(options.inlineBudgetMs));
  if (options.timeScale !== undefined) flags.push('--time-scale', String(options.timeScale));
  return flags;
}

/** The reference server as a child process per client, over stdio, stats through `reference/stats`. */
export function stdioHarness(): Harness {
  let base: SuiteServerOptions = {};
  let nextStatsId = 1;
  let dir = '';
  let script = '';
  return {
    name: 'stdio',
    async setup(options) {
      base = options;
      dir = await mkdtemp(join(tmpdir(), 'mcp-tasks-stdio-'));
      script = join(dir, 'reference-server.mjs');
      await build({
        entryPoints: [CLI],
        outfile: script,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        logLevel: 'error',
      });
    },
    async transport(overrides) {
      const transport = new StdioTransport({
        command: process.execPath,
        args: [script, '--stdio', '--expose-stats', ...cliFlags({ ...base, ...overrides })],
        cwd: ROOT,
        // The server's logs: discarded unless MCP_TEST_STDERR=1.
        onStderr: process.env.MCP_TEST_STDERR === '1' ? (text) => void process.stderr.write(text) : undefined,
        closeGraceMs: 1_000,
      });
      // Wait until the server answers, so timing assertions do not include its start-up.
      await transport.request({ jsonrpc: '2.0', id: `ready-${nextStatsId++}`, method: STATS_METHOD });
      return transport;
    },
    async stats(transport, taskId) {
      const result = await transport.request({
        jsonrpc: '2.0',
        id: `stats-${nextStatsId++}`,
        method: STATS_METHOD,
        params: taskId === undefined ? {} : { taskId },
      });
      return result as unknown as StatsSnapshot;
    },
    async teardown() {
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
