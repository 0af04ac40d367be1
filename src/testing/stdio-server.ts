/**
 * stdio front end of the reference server (MCP 2026-07-28): one JSON-RPC message per line on stdin, replies and
 * notifications one per line on stdout, nothing else on stdout. Requests are handled concurrently; a request the
 * client cancelled with `notifications/cancelled` gets no reply. Header checks are skipped (stdio has none).
 * When its input ends, the server answers the requests still in flight (not the cancelled ones), then stops every
 * job and resolves `closed`.
 *
 * @module
 */
import type { Readable, Writable } from 'node:stream';
import { ErrorCode, type JsonRpcNotification, type RequestId } from '../protocol/index.js';
import type { TaskServerCoreOptions } from './options.js';
import { TaskServerCore } from './server-core.js';
import type { ServerStats } from './stats.js';

/**
 * The test-only method that reads the server's {@link ServerStats} over stdio (with `exposeStats`):
 * `params: {taskId?}` → `{counts, taskGetTimes, taskUpdates, taskCancels}` (the last three for `taskId` when given).
 * Not counted in the stats. Without `exposeStats` it is an unknown method (-32601) like any other.
 */
export const STATS_METHOD = 'reference/stats';

/** Options of {@link runStdioServer}: the core's options plus the stdio ones. */
export interface StdioServerOptions extends TaskServerCoreOptions {
  /** Where messages come from. @default process.stdin */
  input?: Readable;
  /** Where replies go. @default process.stdout */
  output?: Writable;
  /** Answer {@link STATS_METHOD} (a side channel for tests; stats are per process). @default false */
  exposeStats?: boolean;
}

/** A running stdio reference server. */
export interface StdioTaskServer {
  /** The transport-independent core. */
  readonly core: TaskServerCore;
  /** Shortcut for `core.stats`. */
  readonly stats: ServerStats;
  /** Resolves once the input has ended and the requests in flight (bar cancelled ones) have been answered. */
  readonly closed: Promise<void>;
}

/** What {@link STATS_METHOD} returns. */
export interface StatsSnapshot {
  counts: Record<string, number>;
  taskGetTimes: number[];
  taskUpdates: ReturnType<ServerStats['taskUpdates']>;
  taskCancels: ReturnType<ServerStats['taskCancels']>;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const isRequestId = (v: unknown): v is RequestId => typeof v === 'string' || typeof v === 'number';

/**
 * Serves the reference task server over a pair of streams (stdin/stdout by default).
 *
 * @throws {TypeError} when a core option is invalid.
 * @example
 * ```ts
 * const server = runStdioServer({ pollIntervalMs: 100 });
 * await server.closed; // stdin ended
 * ```
 */
export function runStdioServer(options: StdioServerOptions = {}): StdioTaskServer {
  const { input = process.stdin, output = process.stdout, exposeStats = false, ...coreOptions } = options;
  const core = new TaskServerCore(coreOptions);
  const cancelled = new Set<RequestId>();
  /** Requests being handled, by id; a cancelled one leaves this map (nobody waits for it any more). */
  const inflight = new Map<RequestId, Promise<void>>();
  let ended = false;

  output.on('error', () => undefined); // the client went away; the input end follows
  const send = (message: unknown): void => {
    if (output.writableEnded || output.destroyed) return;
    output.write(`${JSON.stringify(message)}\n`);
  };

  const onMessage = async (message: unknown): Promise<void> => {
    if (
      isObject(message) &&
      message.method === 'notifications/cancelled' &&
      isObject(message.params) &&
      isRequestId(message.params.requestId)
    ) {
      cancelled.add(message.params.requestId);
      inflight.delete(message.params.requestId);
    }
    if (exposeStats && isObject(message) && message.method === STATS_METHOD && isRequestId(message.id)) {
      return send({ jsonrpc: '2.0', id: message.id, result: snapshot(core.stats, message.params) });
    }
    const reply = await core.handle(message, undefined, {
      onNotification: (n: JsonRpcNotification) => send(n),
    });
    const id = reply.response?.id;
    if (isRequestId(id) && cancelled.delete(id)) return; // the client gave up on it: no reply
    if (reply.response !== undefined) send(reply.response);
  };

  const onLine = (line: string): void => {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return send({
        jsonrpc: '2.0',
        id: null,
        error: { code: ErrorCode.ParseError, message: 'Parse error: line is not valid JSON' },
      });
    }
    const work = onMessage(message).catch(() => undefined);
    const id = isObject(message) ? message.id : undefined;
    if (isRequestId(id) && !inflight.has(id)) {
      inflight.set(id, work);
      void work.then(() => inflight.get(id) === work && inflight.delete(id));
    }
  };

  const closed = new Promise<void>((resolve) => {
    let buffered = '';
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => {
      buffered += chunk;
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        onLine(buffered.slice(0, newline).replace(/\r$/, ''));
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
      }
    });
    const finish = (): void => {
      if (ended) return;
      ended = true;
      if (buffered.trim() !== '') onLine(buffered);
      // Answer what is still being handled (inline work is bounded by inlineBudgetMs), then stop every job.
      void Promise.allSettled([...inflight.values()]).then(() => {
        core.close();
        resolve();
      });
    };
    input.once('end', finish);
    input.once('close', finish);
    input.once('error', finish);
  });

  return { core, stats: core.stats, closed };
}

function snapshot(stats: ServerStats, params: unknown): StatsSnapshot {
  const taskId = isObject(params) && typeof params.taskId === 'string' ? params.taskId : undefined;
  return {
    counts: stats.counts(),
    taskGetTimes: taskId === undefined ? [] : stats.taskGetTimes(taskId),
    taskUpdates: stats.taskUpdates(taskId),
    taskCancels: stats.taskCancels(taskId),
  };
}
