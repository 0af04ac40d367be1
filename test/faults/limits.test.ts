/**
 * Limits (issue 5): a body past `maxResponseBytes` and a stream past the per-request `timeoutMs` fail with a typed
 * error, and the client closes the connection (the fault server sees the response closed before it finished).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_RESPONSE_BYTES, isMcpClientError, RequestTimeoutError, ResponseTooLargeError } from '../../src/index.js';
import { httpFaults, sseFaults } from './catalogue/index.js';
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
    const small = await rejectionOf(bench.client({}, { maxResponseBytes: 1024 * 1024 }).request('tools/call', ECHO));
    expect(small).toBeInstanceOf(ResponseTooLargeError);
    expect((small as ResponseTooLargeError).limitBytes).toBe(1024 * 1024);
    const result = await bench.client({}, { maxResponseBytes: 4 * 1024 * 1024 }).request('tools/call', ECHO);
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text.length).toBeGreaterThan(2 * 1024 * 1024 - 100);
  }, 10_000);

  it('an SSE stream past the limit (progress forever): ResponseTooLargeError, connection closed', async () => {
    bench.server.inject(sseFaults.sseNeverEnds(0), { tool: 'echo' });
    const aborts = bench.server.clientAborts;
    const error = await rejectionOf(bench.client({}, { maxResponseBytes: 16 * 1024 }).request('tools/call', ECHO, { onProgress: () => {} }));
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(await bench.server.waitForClientAborts(aborts + 1)).toBe(true);
  }, 10_000);
});

describe('stream duration limit (per-request timeoutMs)', () => {
  it('a stream that never ends: RequestTimeoutError after timeoutMs, connection closed', async () => {
    bench.server.inject(sseFaults.sseNeverEnds(20), { tool: 'echo' });
    const aborts = bench.server.clientAborts;
    const started = Date.now();
    const progress: number[] = [];
    const error = await rejectionOf(bench.client().request('tools/call', ECHO, { timeoutMs: 300, onProgress: (p) => progress.push(p.progress) }));
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(isMcpClientError(error, 'REQUEST_TIMEOUT')).toBe(true);
    expect(error.message).toBe('tools/call timed out after 300 ms');
    expect(Date.now() - started).toBeGreaterThanOrEqual(295);
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
