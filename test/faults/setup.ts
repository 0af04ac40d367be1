/**
 * Shared set-up of the fault tests: one fault server per file (the reference server with fast polls), clients that
 * poll at small real intervals, and clean-up after each test so no rule, client or timer outlives it.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import {
  StreamableHttpTransport,
  TaskClient,
  type StreamableHttpTransportOptions,
  type TaskClientOptions,
} from '../../src/index.js';
import { createFaultServer, type FaultServer } from './catalogue/index.js';
import '../helpers/no-jitter.js';

/** The reference server's `pollIntervalMs` in these tests. */
export const SERVER_POLL_MS = 20;

export interface FaultBench {
  readonly server: FaultServer;
  /** A client of the fault server; closed after the test. */
  client(options?: Partial<TaskClientOptions>, transport?: StreamableHttpTransportOptions): TaskClient;
}

/** Registers the hooks and returns the bench (its server exists from `beforeAll` on). */
export function useFaultBench(): FaultBench {
  let server: FaultServer | undefined;
  const clients: TaskClient[] = [];
  beforeAll(async () => {
    server = await createFaultServer({
      core: { pollIntervalMs: SERVER_POLL_MS, ttlMs: 60_000, inputTimeoutMs: 600, inlineBudgetMs: 30 },
    });
  });
  afterEach(async () => {
    server?.clear();
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    get server() {
      if (!server) throw new Error('fault server not started');
      return server;
    },
    client(options = {}, transport = {}) {
      if (!server) throw new Error('fault server not started');
      const client = new TaskClient({
        transport: new StreamableHttpTransport(server.url, transport),
        timeoutMs: 5_000,
        handlers: { elicitation: () => ({ action: 'accept', content: { confirm: true } }) },
        ...options,
        polling: { minIntervalMs: 10, ...options.polling },
      });
      clients.push(client);
      return client;
    },
  };
}

/** Gaps in ms between consecutive entries' arrival times. */
export function gaps(entries: ReadonlyArray<{ at: number }>): number[] {
  return entries.slice(1).map((e, i) => e.at - entries[i]!.at);
}

/** Runs `promise` and returns its rejection (fails the test if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection, got a result');
}
