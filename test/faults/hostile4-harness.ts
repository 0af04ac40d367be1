/**
 * Set-up of the hostile4 fault tests: a {@link startHostile4} server per test, clients through the Node entry
 * (undici), fake timers for the client's clock (never for I/O), and a check that no test leaves an unhandled
 * rejection or a process warning behind.
 */
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { StreamableHttpTransport, TaskClient, type TaskClientOptions } from '../../src/node.js';
import { type Hostile4, startHostile4, turn } from './hostile4-server.js';
import { settledBox } from './hostile3-harness.js';
import '../helpers/no-jitter.js';

export interface Bench4 {
  readonly server: Hostile4;
  client(options?: Partial<TaskClientOptions>): TaskClient;
  readonly unhandled: unknown[];
}

/** A promise's outcome, readable at any time (never an unhandled rejection). */
export const box = settledBox;

/** Moves the fake clock by `ms` in `step`s, letting real I/O run between them. */
export async function advance(ms: number, step = 100): Promise<void> {
  for (let left = ms; left > 0; left -= step) {
    await vi.advanceTimersByTimeAsync(Math.min(step, left));
    await turn();
  }
}

export function useBench4(): Bench4 {
  let server: Hostile4 | undefined;
  let clients: TaskClient[] = [];
  const unhandled: unknown[] = [];
  const warnings: string[] = [];
  const onUnhandled = (e: unknown): void => void unhandled.push(e);
  const onWarning = (w: Error): void => void warnings.push(String(w));
  beforeEach(async () => {
    server = await startHostile4();
    process.on('unhandledRejection', onUnhandled);
    process.on('warning', onWarning);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  });
  afterEach(async () => {
    const closing = box(Promise.all(clients.map((c) => c.close())));
    clients = [];
    for (let i = 0; i < 200 && !closing.settled; i++) await advance(100);
    vi.useRealTimers();
    await server?.close();
    process.off('unhandledRejection', onUnhandled);
    process.off('warning', onWarning);
    const seen = { closed: closing.settled, unhandled: [...unhandled], warnings: [...warnings] };
    unhandled.length = 0;
    warnings.length = 0;
    expect(seen).toEqual({ closed: true, unhandled: [], warnings: [] });
  });
  return {
    get server() {
      if (!server) throw new Error('no server');
      return server;
    },
    unhandled,
    client(options = {}) {
      const client = new TaskClient({
        transport: new StreamableHttpTransport(this.server.url),
        era: 'modern',
        timeoutMs: 60_000,
        ...options,
        limits: { abortGraceMs: 1_000, ...options.limits },
      });
      clients.push(client);
      return client;
    },
  };
}
