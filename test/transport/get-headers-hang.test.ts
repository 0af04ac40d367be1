/**
 * A `getHeaders()` that never resolves cannot hang a request: it is raced against the request's abort, so the
 * request's `timeoutMs` and the caller's signal still end it (nothing is written). Fake timers pin the budget; the
 * transport points at a loopback server that is never reached.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  GetHeadersError,
  OutcomeUnknownError,
  RequestTimeoutError,
  StreamableHttpTransport,
  TaskClient,
} from '../../src/index.js';

let server: Server;
let url: string;
let requests = 0;
beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const hangingClient = (): TaskClient =>
  new TaskClient({
    transport: new StreamableHttpTransport(url, { getHeaders: () => new Promise(() => {}) }),
    era: 'modern',
    timeoutMs: 60_000,
  });

describe('getHeaders() that never resolves', () => {
  it('timeoutMs ends the request at its budget with RequestTimeoutError', async () => {
    const client = hangingClient();
    const settled = vi.fn();
    const listing = client.listTools({ timeoutMs: 500 }).catch((e: unknown) => {
      settled();
      return e;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(settled).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    const error = (await listing) as RequestTimeoutError;
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error.notSent).toBe(true);
    expect(error.message).toBe(
      'tools/list timed out after 500 ms; nothing was sent (getHeaders() did not resolve in time)',
    );
    expect(requests).toBe(0);
  });

  it('a creation (tools/call) timing out there is RequestTimeoutError with notSent, never OutcomeUnknownError, never re-sent', async () => {
    const client = hangingClient();
    const call = client
      .callTool('deploy', {}, { timeoutMs: 500, idempotencyKey: 'k-1' })
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(500);
    const error = await call;
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect((error as RequestTimeoutError).notSent).toBe(true);
    await vi.advanceTimersByTimeAsync(120_000); // no re-send comes later either
    expect(requests).toBe(0);
  });

  it("the caller's signal ends it with the abort reason", async () => {
    const client = hangingClient();
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const listing = client.listTools({ signal: controller.signal }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort(reason);
    expect(await listing).toBe(reason);
    expect(requests).toBe(0);
  });

  it("a creation (tools/call) aborted by the caller's signal there rejects at once with the abort reason: never OutcomeUnknownError, nothing sent, no re-send", async () => {
    let release: ((headers: Record<string, string>) => void) | undefined;
    const client = new TaskClient({
      transport: new StreamableHttpTransport(url, {
        getHeaders: () => new Promise((resolve) => (release = resolve)),
      }),
      era: 'modern',
      timeoutMs: 60_000,
    });
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const settled = vi.fn();
    const call = client
      .callTool('deploy', {}, { signal: controller.signal, idempotencyKey: 'k-2' })
      .catch((e: unknown) => {
        settled();
        return e;
      });
    await vi.advanceTimersByTimeAsync(10);
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(0); // not after the abort grace (5 s): nothing was written, so nothing can answer
    expect(settled).toHaveBeenCalled();
    const error = await call;
    expect(error).toBe(reason);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    release?.({}); // the headers arriving late write nothing
    await vi.advanceTimersByTimeAsync(120_000);
    expect(requests).toBe(0);
    await client.close();
  });

  it('a creation whose maxTotalTimeoutMs runs out there rejects at once with that RequestTimeoutError, never OutcomeUnknownError', async () => {
    const client = hangingClient();
    const call = client.callTool('deploy', {}, { maxTotalTimeoutMs: 300 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(300);
    const error = await call;
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect((error as RequestTimeoutError).timeoutMs).toBe(300);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(requests).toBe(0);
    await client.close();
  });
});

describe('getHeaders() that throws or rejects', () => {
  beforeEach(() => vi.useRealTimers());

  const cases: Array<[string, () => Record<string, string> | Promise<Record<string, string>>, unknown]> = [];
  const rejection = new Error('token fail');
  cases.push(['rejects with an Error', () => Promise.reject(rejection), rejection]);
  cases.push([
    'throws a string synchronously',
    () => {
      throw 'string thrown';
    },
    'string thrown',
  ]);

  for (const [name, getHeaders, cause] of cases) {
    it(`${name}: GetHeadersError (GET_HEADERS_FAILED, notSent, the original as cause), nothing sent, never re-sent`, async () => {
      const before = requests;
      let calls = 0;
      const client = new TaskClient({
        transport: new StreamableHttpTransport(url, { getHeaders: () => (calls++, getHeaders()) }),
        era: 'modern',
      });
      const error = await client.callTool('x', {}, { idempotencyKey: 'k' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GetHeadersError);
      expect(error).toMatchObject({ code: 'GET_HEADERS_FAILED', notSent: true, method: 'tools/call' });
      expect((error as Error).cause).toBe(cause);
      expect((error as Error).message).toBe(
        `tools/call failed: getHeaders() failed: ${cause instanceof Error ? cause.message : String(cause)}; nothing was sent`,
      );
      expect(calls).toBe(1);
      expect(requests).toBe(before);
      await client.close();
    });
  }
});
