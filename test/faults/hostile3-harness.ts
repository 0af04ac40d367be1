/**
 * Shared set-up of the hostile3 fault tests: one hostile server per test (test/faults/hostile3-server.ts), a client
 * of it through the Node entry (undici, as Node users get it), fake timers for every client timer (never for I/O:
 * `setImmediate` stays real), and a check that no test left an unhandled rejection or a process warning behind.
 */
import { afterEach, beforeEach, expect, vi } from 'vitest';
import {
  StreamableHttpTransport,
  TaskClient,
  type StreamableHttpTransportOptions,
  type TaskClientOptions,
} from '../../src/node.js';
import { ioTurn, startHostile, wireTask, type HostileServer } from './hostile3-server.js';
import '../helpers/no-jitter.js';

/** The abort grace of these clients, in ms. */
export const GRACE_MS = 1_000;

export interface HostileBench {
  readonly server: HostileServer;
  client(options?: Partial<TaskClientOptions>, transport?: StreamableHttpTransportOptions): TaskClient;
  /** Unhandled rejections and process warnings seen during the test (checked empty after each). */
  readonly unhandled: unknown[];
  readonly warnings: Error[];
}

/** Registers the hooks; the server exists from `beforeEach` on. `tasks/cancel` is answered `{}` unless a test says otherwise. */
export function useHostile(): HostileBench {
  let server: HostileServer | undefined;
  let clients: TaskClient[] = [];
  const unhandled: unknown[] = [];
  const warnings: Error[] = [];
  const onUnhandled = (error: unknown): void => void unhandled.push(error);
  const onWarning = (warning: Error): void => void warnings.push(warning);
  beforeEach(async () => {
    server = await startHostile();
    server.auto = (held) => {
      if (held.method !== 'tasks/cancel') return undefined;
      held.result({
        resultType: 'complete',
        ...wireTask(String(held.params.taskId), { status: 'cancelled' }),
      });
      return true;
    };
    process.on('unhandledRejection', onUnhandled);
    process.on('warning', onWarning);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  });
  afterEach(async () => {
    const closing = settledBox(Promise.all(clients.map((client) => client.close())));
    clients = [];
    // close() waits (bounded) on the client's own fake timers: move the clock until it is done
    for (let i = 0; i < 100 && !closing.settled; i++) {
      await vi.advanceTimersByTimeAsync(GRACE_MS / 10);
      await ioTurn();
    }
    vi.useRealTimers();
    expect([closing.settled, closing.error]).toEqual([true, undefined]);
    await server?.close();
    process.off('unhandledRejection', onUnhandled);
    process.off('warning', onWarning);
    const seen = { unhandled: [...unhandled], warnings: warnings.map(String) };
    unhandled.length = 0;
    warnings.length = 0;
    expect(seen).toEqual({ unhandled: [], warnings: [] });
  });
  return {
    get server() {
      if (!server) throw new Error('hostile server not started');
      return server;
    },
    unhandled,
    warnings,
    client(options = {}, transport = {}) {
      if (!server) throw new Error('hostile server not started');
      const client = new TaskClient({
        transport: new StreamableHttpTransport(server.url, transport),
        era: 'modern',
        timeoutMs: 60_000,
        ...options,
        limits: { abortGraceMs: GRACE_MS, ...options.limits },
      });
      clients.push(client);
      return client;
    },
  };
}

/** A promise's outcome, readable at any time, never an unhandled rejection. */
export function settledBox<T>(promise: Promise<T>): { settled: boolean; value?: T; error?: unknown } {
  const box: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(box, { settled: true, value }),
    (error: unknown) => Object.assign(box, { settled: true, error }),
  );
  return box;
}

/** A flat CreateTaskResult for `taskId`. */
export function createdTask(
  taskId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return { resultType: 'task', ...wireTask(taskId, overrides) };
}
