/**
 * Over loopback HTTP: a creation whose connection is refused (nothing reached the server) is re-sent, whatever the
 * key, and succeeds once the server listens; a server that never listens ends in a NetworkError that says nothing was
 * sent. The server is started from inside the client's fetch right after the refused attempt, so the order is certain
 * without any timing assumption. (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#streamable-http)
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { NetworkError, OutcomeUnknownError, StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A fetch that records each attempt's outcome and runs `afterRefused` once, after the first refused attempt. */
function recordingFetch(afterRefused?: () => Promise<void>): { fetch: typeof fetch; outcomes: string[] } {
  const outcomes: string[] = [];
  let started = false;
  const wrapped: typeof fetch = async (input, init) => {
    try {
      const res = await fetch(input, init);
      outcomes.push(String(res.status));
      return res;
    } catch (error) {
      outcomes.push('refused');
      if (afterRefused && !started) {
        started = true;
        await afterRefused();
      }
      throw error;
    }
  };
  return { fetch: wrapped, outcomes };
}

function client(url: string, fetchImpl: typeof fetch): TaskClient {
  const c = new TaskClient({
    transport: new StreamableHttpTransport(url, { fetch: fetchImpl }),
    creationRetry: { minTimeoutMs: 10 }, // a never-sent request is re-sent after 5 ms
    polling: { minIntervalMs: 10 },
    handlers: { elicitation: () => ({ action: 'accept', content: { confirm: true } }) },
  });
  closers.push(() => c.close());
  return c;
}

describe('a refused creation is re-sent (issue behaviour 11, docs/durability.md)', () => {
  it('connection refused, then the server starts: a non-idempotent tool without a key is re-sent once and completes', async () => {
    const port = await freePort();
    let server: TaskServer | undefined;
    const { fetch: fetchImpl, outcomes } = recordingFetch(async () => {
      server = await createTaskServer({ port, pollIntervalMs: 20, inlineBudgetMs: 20, timeScale: 0.1 });
      closers.push(() => server!.close());
    });
    const result = await client(`http://127.0.0.1:${port}/mcp`, fetchImpl).callTool('deploy_release', {
      version: '2.0.0',
    });
    expect(result.content[0]?.text).toBe('deployed 2.0.0');
    expect(outcomes[0]).toBe('refused');
    expect(outcomes[1]).toBe('200');
    expect(server!.stats.count('tools/call')).toBe(1); // exactly one creation reached the server: one deployment
  }, 10_000);

  it('nothing ever listens: NetworkError after 4 attempts saying nothing was sent, not OutcomeUnknownError', async () => {
    const port = await freePort();
    const { fetch: fetchImpl, outcomes } = recordingFetch();
    const error = await client(`http://127.0.0.1:${port}/mcp`, fetchImpl)
      .callTool('deploy_release', { version: '2.0.0' }, { idempotencyKey: 'k' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect(error).toMatchObject({ notSent: true, attempts: 4 });
    expect((error as Error).message).toMatch(
      /^tools\/call failed: network error: fetch failed \(ECONNREFUSED\); nothing was sent: the server could not be reached in 4 attempts$/,
    );
    expect(outcomes).toEqual(['refused', 'refused', 'refused', 'refused']);
  }, 10_000);
});
