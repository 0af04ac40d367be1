/**
 * Limits: one JSON-RPC message past `maxResponseBytes` (a JSON body, one SSE event) and a stream past the per-request
 * `timeoutMs` fail with a typed error, and the client closes the connection (the fault server sees the response closed
 * before it finished); a long stream of small messages is fine; `maxInputRounds` counts exactly.
 */
import { describe, expect, it } from 'vitest';
import {
  isMcpClientError,
  RequestTimeoutError,
  ResponseTooLargeError,
  TooManyRoundsError,
} from '../../src/index.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../src/transport/streamable-http.js';
import { httpFaults, sseFaults, volumeFaults } from './catalogue/index.js';
import { rejectionOf, useFaultBench } from './setup.js';

const bench = useFaultBench();
const ECHO = { name: 'echo', arguments: { text: 'x' } };

describe('response size limit (maxResponseBytes)', () => {
  it('a 50 MB JSON body: ResponseTooLargeError at the 16 MiB default, connection closed', async () => {
    bench.server.inject(httpFaults.hugeJsonBody(50 * 1024 * 1024), { tool: 'echo' });
    const aborts = bench.server.clientAborts;
    const error = await rejectionOf(bench.client().request('tools/call', ECHO));
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(isMcpClientError(error, 'RESPONSE_TOO_LARGE')).toBe(true);
    expect((error as ResponseTooLargeError).limitBytes).toBe(DEFAULT_MAX_RESPONSE_BYTES);
    expect(error.message).toBe(`tools/call failed: response exceeded ${DEFAULT_MAX_RESPONSE_BYTES} bytes`);
    expect(await bench.server.waitForClientAborts(aborts + 1)).toBe(true);
  }, 10_000);

  it('the limit is configurable: 1 MiB rejects a 2 MB body; 4 MiB accepts it', async () => {
    bench.server.inject(httpFaults.hugeJsonBody(2 * 1024 * 1024), { tool: 'echo' });
    const small = await rejectionOf(
      bench.client({}, { maxResponseBytes: 1024 * 1024 }).request('tools/call', ECHO),
    );
    expect(small).toBeInstanceOf(ResponseTooLargeError);
    expect((small as ResponseTooLargeError).limitBytes).toBe(1024 * 1024);
    const result = await bench.client({}, { maxResponseBytes: 4 * 1024 * 1024 }).request('tools/call', ECHO);
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text.length).toBeGreaterThan(2 * 1024 * 1024 - 100);
  }, 10_000);

  it('maxResponseBytes is per message: 50,000 small SSE notifications (≈6 MB) before the response, with a 64 KiB limit, succeed', async () => {
    bench.server.inject(volumeFaults.sseManySmallEvents(50_000), { tool: 'echo' });
    let seen = 0;
    const result = await bench
      .client({}, { maxResponseBytes: 64 * 1024 })
      .request('tools/call', ECHO, { onProgress: () => seen++ });
    expect(seen).toBe(50_000);
    expect((result.content as Array<{ text: string }>)[0]!.text).toBe('x');
  }, 30_000);

  it('maxResponseBytes is per message: one SSE event past it → ResponseTooLargeError, connection closed', async () => {
    bench.server.inject(volumeFaults.sseOversizeEvent(4 * 1024 * 1024), { tool: 'echo' });
    const aborts = bench.server.clientAborts;
    const error = await rejectionOf(
      bench.client({}, { maxResponseBytes: 64 * 1024 }).request('tools/call', ECHO, { onProgress: () => {} }),
    );
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).limitBytes).toBe(64 * 1024);
    expect(await bench.server.waitForClientAborts(aborts + 1)).toBe(true);
  }, 10_000);

  it('progress forever with a small maxResponseBytes: bounded by timeoutMs (RequestTimeoutError), not by the size limit', async () => {
    bench.server.inject(sseFaults.sseNeverEnds(0), { tool: 'echo' });
    const aborts = bench.server.clientAborts;
    const client = bench.client({}, { maxResponseBytes: 2 * 1024 }); // a few dozen progress events pass it in total
    const error = await rejectionOf(
      client.request('tools/call', ECHO, { timeoutMs: 300, onProgress: () => {} }),
    );
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(await bench.server.waitForClientAborts(aborts + 1)).toBe(true);
  }, 10_000);
});

describe('stream duration limit (per-request timeoutMs)', () => {
  // When the timeout fires (exactly at timeoutMs, not before) is pinned on fake timers in
  // test/transport/streamable-http.test.ts; here, over a real socket, the outcome: the typed error with its budget,
  // progress that kept arriving did not extend it (else the call would never end), and the connection closed.
  it('a stream that never ends: RequestTimeoutError after timeoutMs, connection closed', async () => {
    bench.server.inject(sseFaults.sseNeverEnds(20), { tool: 'echo' });
    const aborts = bench.server.clientAborts;
    const progress: number[] = [];
    const error = await rejectionOf(
      bench
        .client()
        .request('tools/call', ECHO, { timeoutMs: 300, onProgress: (p) => progress.push(p.progress) }),
    );
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(isMcpClientError(error, 'REQUEST_TIMEOUT')).toBe(true);
    expect(error.message).toBe('tools/call timed out after 300 ms');
    expect((error as RequestTimeoutError).timeoutMs).toBe(300);
    expect(progress.length).toBeGreaterThan(0); // progress kept coming; it does not extend the budget
    expect(await bench.server.waitForClientAborts(aborts + 1)).toBe(true);
  }, 5_000);

  it('the client-wide timeoutMs applies when the call sets none', async () => {
    bench.server.inject(sseFaults.sseNeverEnds(20), { tool: 'echo' });
    const error = await rejectionOf(bench.client({ timeoutMs: 200 }).request('tools/call', ECHO));
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect((error as RequestTimeoutError).timeoutMs).toBe(200);
  }, 5_000);
});

describe('MRTR round limit (maxInputRounds)', () => {
  it('maxInputRounds: 10 answers 10 rounds: exactly 11 POSTs (first + 10 re-sends), then TooManyRoundsError without asking again', async () => {
    bench.server.inject(volumeFaults.endlessInputRounds(), { tool: 'echo', method: 'tools/call' });
    const asked: string[] = [];
    const before = bench.server.requests('tools/call').length;
    const client = bench.client({ limits: { maxInputRounds: 10 } });
    client.on('inputRequired', (e) => asked.push(e.key));
    const error = await rejectionOf(client.callTool('echo', { text: 'x' }));
    expect(error).toBeInstanceOf(TooManyRoundsError);
    expect((error as TooManyRoundsError).rounds).toBe(10);
    expect(error.message).toBe(
      'tools/call failed: the server asked for input again after 10 answered rounds (limits.maxInputRounds: 10)',
    );
    expect(bench.server.requests('tools/call').length - before).toBe(11);
    expect(asked).toEqual(['q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7', 'q8', 'q9', 'q10']);
  }, 10_000);
});
