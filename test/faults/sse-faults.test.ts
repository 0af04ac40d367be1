/**
 * SSE faults over real loopback HTTP (test/faults/catalogue/sse-faults.ts). The requests go through
 * `client.request(...)`: one POST, no creation re-send policy, so the transport's own outcome is what is pinned.
 */
import { describe, expect, it } from 'vitest';
import { isMcpClientError, StreamEndedError, type Progress } from '../../src/index.js';
import { sseFaults } from './catalogue/index.js';
import { rejectionOf, useFaultBench } from './setup.js';

const bench = useFaultBench();
const T = 5_000;
const ECHO = { name: 'echo', arguments: { text: 'hello' } };

async function echoWithProgress(): Promise<{ result: Record<string, unknown>; progress: Progress[] }> {
  const progress: Progress[] = [];
  const result = await bench.client().request('tools/call', ECHO, { onProgress: (p) => progress.push(p) });
  return { result, progress };
}

describe('SSE faults (2.8, 2.10)', () => {
  it(
    'comment lines and an event of another type are skipped; progress and the response arrive',
    async () => {
      bench.server.inject(sseFaults.sseWithComments(), { tool: 'echo' });
      const { result, progress } = await echoWithProgress();
      expect(result.content).toEqual([{ type: 'text', text: 'hello' }]);
      expect(progress.map((p) => p.progress)).toEqual([1]);
    },
    T,
  );

  it(
    'one response over many data: lines is joined and parsed',
    async () => {
      bench.server.inject(sseFaults.sseMultilineData(), { tool: 'echo' });
      const { result } = await echoWithProgress();
      expect(result.content).toEqual([{ type: 'text', text: 'hello' }]);
    },
    T,
  );

  it(
    'CRLF line ends, frames split mid-line and between CR and LF',
    async () => {
      bench.server.inject(sseFaults.sseCrlf(), { tool: 'echo' });
      const { result, progress } = await echoWithProgress();
      expect(result.structuredContent).toEqual({ text: 'hello' });
      expect(progress).toHaveLength(1);
    },
    T,
  );

  it(
    'progress notifications before the response reach onProgress in order',
    async () => {
      bench.server.inject(sseFaults.sseProgressBeforeResponse(), { tool: 'echo' });
      const { result, progress } = await echoWithProgress();
      expect(result.content).toEqual([{ type: 'text', text: 'hello' }]);
      expect(progress).toEqual([
        { progressToken: expect.any(String), progress: 1, total: 2, message: 'step 1' },
        { progressToken: expect.any(String), progress: 2, total: 2, message: 'step 2' },
      ]);
    },
    T,
  );

  it(
    'server requests and responses to other ids before the response: each a serverViolation naming it (escaped), none answered; the response still settles',
    async () => {
      bench.server.inject(sseFaults.sseStrayMessagesBeforeResponse(), { tool: 'echo' });
      const client = bench.client();
      const violations: string[] = [];
      client.on('serverViolation', (v) => violations.push(v));
      const before = bench.server.log.length;
      const result = await client.request('tools/call', ECHO);
      expect(result.content).toEqual([{ type: 'text', text: 'hello' }]);
      const id = bench.server.log.at(-1)?.id as number;
      const skipped = 'tools/call: skipped an SSE event on the response stream:';
      expect(violations).toEqual([
        `${skipped} a JSON-RPC request sampling/createMessage (id "srv-1"), which servers must not send on a response stream; not answered`,
        `${skipped} a JSON-RPC request elicit\\u001b[31m\\u202e (id 2), which servers must not send on a response stream; not answered`,
        `${skipped} a response for another request (id ${id + 1000})`,
        `${skipped} a response for another request (id "x\\u0007")`,
      ]);
      expect(violations.join('')).not.toMatch(/[\u0000-\u001f\u202e]/);
      expect(bench.server.log.slice(before).map((e) => e.method)).toEqual(['tools/call']); // nothing sent back
    },
    T,
  );

  it(
    'a stream that lingers after the response: the call settles at once and the client closes the stream',
    async () => {
      bench.server.inject(sseFaults.sseLingersAfterResponse(), { tool: 'echo' });
      const aborts = bench.server.clientAborts;
      const { result } = await echoWithProgress();
      expect(result.content).toEqual([{ type: 'text', text: 'hello' }]);
      expect(await bench.server.waitForClientAborts(aborts + 1)).toBe(true);
    },
    T,
  );

  it(
    'a stream that ends cleanly before the response: StreamEndedError (the request is lost), progress still delivered',
    async () => {
      bench.server.inject(sseFaults.sseCutBeforeResponse('end'), { tool: 'echo' });
      const progress: Progress[] = [];
      const error = await rejectionOf(
        bench.client().request('tools/call', ECHO, { onProgress: (p) => progress.push(p) }),
      );
      expect(error).toBeInstanceOf(StreamEndedError);
      expect(isMcpClientError(error, 'STREAM_ENDED')).toBe(true);
      expect(error.message).toBe('tools/call failed: the response stream ended before the response arrived');
      expect(progress).toHaveLength(1);
    },
    T,
  );

  it(
    'a connection cut mid-event before the response: StreamEndedError with the socket error as cause',
    async () => {
      bench.server.inject(sseFaults.sseCutBeforeResponse('destroy'), { tool: 'echo' });
      const error = await rejectionOf(bench.client().request('tools/call', ECHO));
      expect(error).toBeInstanceOf(StreamEndedError);
      expect(error.message).toBe('tools/call failed: the response stream ended before the response arrived');
      expect(error.cause).toBeInstanceOf(Error);
    },
    T,
  );
});
