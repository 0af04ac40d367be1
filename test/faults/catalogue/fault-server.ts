/**
 * A loopback Streamable HTTP server that is the reference server ({@link TaskServerCore}) until told to misbehave:
 * `inject(fault, target)` makes it answer the matching requests (one tool's calls and the tasks they create, one
 * task, one method, or everything) through a {@link Fault}, for a number of times or for good. It logs every
 * request and counts responses the client closed before they finished (to prove a limit closed the connection).
 *
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestId } from '../../../src/protocol/index.js';
import type { TaskServerCoreOptions } from '../../../src/testing/options.js';
import { TaskServerCore } from '../../../src/testing/server-core.js';
import { isTaskResult, resultOf, type Fault, type FaultRequest } from './fault.js';
import { jsonReply, writeWireReply, type WireReply } from './wire-reply.js';

/** Which requests a fault answers. Every given field must match; none given = every request. */
export interface FaultTarget {
  /** A tool name: its `tools/call` requests and the `tasks/*` requests of the tasks they created. */
  tool?: string;
  /** One task id. */
  taskId?: string;
  /** One JSON-RPC method, e.g. `tasks/get`. */
  method?: string;
  /** How many requests the fault answers before it retires. @default Infinity */
  times?: number;
}

/** One logged request. */
export interface FaultLogEntry {
  method: string;
  id: RequestId | undefined;
  tool: string | undefined;
  taskId: string | undefined;
  /** `Date.now()` when the request arrived. */
  at: number;
  /** The fault that answered, if any. */
  fault: string | undefined;
}

/** Options of {@link createFaultServer}. */
export interface FaultServerOptions {
  /** Options of the wrapped reference server core. */
  core?: TaskServerCoreOptions;
  /** The MCP endpoint path. @default '/mcp' */
  path?: string;
}

/** A running fault-injecting server. */
export interface FaultServer {
  /** The endpoint, e.g. `http://127.0.0.1:49152/mcp`. */
  readonly url: string;
  /** The wrapped reference server core. */
  readonly core: TaskServerCore;
  /** Every request, in arrival order. */
  readonly log: readonly FaultLogEntry[];
  /** Responses the client closed before they finished (a cut stream, an aborted or timed-out request). */
  readonly clientAborts: number;
  /** Answers matching requests through `fault`. Rules are tried in injection order. */
  inject(fault: Fault, target?: FaultTarget): void;
  /** Removes every rule. */
  clear(): void;
  /** Log entries of one method (and task, when given). */
  requests(method: string, taskId?: string): FaultLogEntry[];
  /** Resolves once `clientAborts` reached `n` (or after `timeoutMs`, resolving `false`). */
  waitForClientAborts(n: number, timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

interface Rule {
  fault: Fault;
  target: FaultTarget;
  used: number;
  perTarget: Map<string, number>;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Starts a fault server on 127.0.0.1 (a free port).
 *
 * @example
 * ```ts
 * const server = await createFaultServer({ core: { pollIntervalMs: 20 } });
 * server.inject(taskFaults.completedWithoutResult(), { tool: 'reindex_corpus' });
 * ```
 */
export async function createFaultServer(options: FaultServerOptions = {}): Promise<FaultServer> {
  const path = options.path ?? '/mcp';
  const core = new TaskServerCore(options.core);
  const rules: Rule[] = [];
  const log: FaultLogEntry[] = [];
  const taskTools = new Map<string, string>();
  let clientAborts = 0;
  const abortWaiters = new Set<() => void>();

  const honest = async (message: unknown, req: IncomingMessage, signal: AbortSignal): Promise<WireReply> => {
    if (req.method !== 'POST')
      return jsonReply({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'POST only' } }, 405, {
        Allow: 'POST',
      });
    const reply = await core.handle(message, req.headers, { signal });
    if (reply.response === undefined) return { kind: 'raw', status: reply.status, chunks: [] };
    return jsonReply(reply.response, reply.status);
  };

  const pick = (
    request: Omit<FaultRequest, 'count' | 'countForTarget'>,
  ): { rule: Rule; request: FaultRequest } | undefined => {
    for (const rule of rules) {
      const t = rule.target;
      if (rule.used >= (t.times ?? Infinity)) continue;
      if (t.tool !== undefined && t.tool !== request.tool) continue;
      if (t.taskId !== undefined && t.taskId !== request.taskId) continue;
      if (t.method !== undefined && t.method !== request.method) continue;
      const key = `${request.method} ${request.taskId ?? request.tool ?? ''}`;
      const countForTarget = rule.perTarget.get(key) ?? 0;
      rule.perTarget.set(key, countForTarget + 1);
      return { rule, request: { ...request, count: rule.used++, countForTarget } };
    }
    return undefined;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const closed = new AbortController();
    res.on('close', () => {
      if (res.writableFinished) return;
      clientAborts++;
      closed.abort();
      for (const wake of abortWaiters) wake();
    });
    const url = new URL(req.url ?? '/', 'http://localhost');
    const text = await readBody(req);
    let message: unknown;
    try {
      message = text ? JSON.parse(text) : undefined;
    } catch {
      message = undefined;
    }
    const m = isObject(message) ? message : {};
    const params = isObject(m.params) ? m.params : {};
    const method = typeof m.method === 'string' ? m.method : '';
    const taskId = typeof params.taskId === 'string' ? params.taskId : undefined;
    const tool =
      method === 'tools/call' && typeof params.name === 'string'
        ? params.name
        : taskId !== undefined
          ? taskTools.get(taskId)
          : undefined;
    const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
    const base = { method, id, params, tool, taskId, headers: req.headers };
    const picked = url.pathname === path ? pick(base) : undefined;
    log.push({ method, id, tool, taskId, at: Date.now(), fault: picked?.rule.fault.name });

    const next = (): Promise<WireReply> =>
      url.pathname === path
        ? honest(message, req, closed.signal)
        : Promise.resolve(jsonReply({ error: 'not found' }, 404));
    const reply = picked ? await picked.rule.fault.reply(picked.request, next) : await next();
    // Learn which tool created which task, so tool-targeted faults follow the task (also through a nested wrapper).
    const result = resultOf(reply);
    const nested: unknown = result?.task;
    const created = isTaskResult(result)
      ? result
      : isObject(nested) && isTaskResult(nested)
        ? nested
        : undefined;
    if (method === 'tools/call' && tool !== undefined && created) taskTools.set(String(created.taskId), tool);
    if (closed.signal.aborted) return;
    await writeWireReply(res, reply, closed.signal);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${path}`,
    core,
    log,
    get clientAborts() {
      return clientAborts;
    },
    inject(fault, target = {}) {
      rules.push({ fault, target, used: 0, perTarget: new Map() });
    },
    clear() {
      rules.length = 0;
    },
    requests(method, taskId) {
      return log.filter((e) => e.method === method && (taskId === undefined || e.taskId === taskId));
    },
    waitForClientAborts(n, timeoutMs = 5_000) {
      return new Promise((resolve) => {
        const check = (): void => {
          if (clientAborts < n) return;
          clearTimeout(timer);
          abortWaiters.delete(check);
          resolve(true);
        };
        const timer = setTimeout(() => {
          abortWaiters.delete(check);
          resolve(false);
        }, timeoutMs);
        abortWaiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        core.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
