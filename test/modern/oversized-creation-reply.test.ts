/**
 * A reply over the response size limit to a creation request (`tools/call`, `resources/read`, `prompts/get`: each
 * may create a task) was never read, so it may have named a task: the call rejects with `OutcomeUnknownError`, the
 * size error as `cause`, like any creation reply that could not be read. Over real loopback HTTP (the fault server)
 * and a real stdio child process. CLIENT-REQUIREMENTS 1.2 "never orphan work" (the caller can tell "outcome unknown"
 * from "not created") and 1.3.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { OutcomeUnknownError, ResponseTooLargeError, TaskClient } from '../../src/index.js';
import { StdioTransport } from '../../src/stdio.js';
import { httpFaults } from '../faults/catalogue/index.js';
import { rejectionOf, useFaultBench } from '../faults/setup.js';

const bench = useFaultBench();
const LIMIT = 64 * 1024;

describe('an oversized reply to a creation request', () => {
  it('HTTP, tools/call: OutcomeUnknownError (OUTCOME_UNKNOWN) with the ResponseTooLargeError as cause', async () => {
    bench.server.inject(httpFaults.hugeJsonBody(1024 * 1024), { tool: 'echo' });
    const client = bench.client({}, { maxResponseBytes: LIMIT });
    const error = await rejectionOf(client.callTool('echo', { text: 'x' }));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    const e = error as OutcomeUnknownError;
    expect(e.code).toBe('OUTCOME_UNKNOWN');
    expect(e.method).toBe('tools/call');
    expect(e.unreadableReply).toBe(`the response exceeded the ${LIMIT}-byte limit`);
    expect(e.message).toBe(
      `tools/call: a reply arrived but could not be read (the response exceeded the ${LIMIT}-byte limit); the work may or may not have started on the server`,
    );
    expect(e.cause).toBeInstanceOf(ResponseTooLargeError);
    expect((e.cause as ResponseTooLargeError).limitBytes).toBe(LIMIT);
    expect(bench.server.requests('tools/call').filter((r) => r.tool === 'echo').length).toBeGreaterThan(0);
  }, 10_000);

  it('the raw request() (no task dispatch) keeps ResponseTooLargeError', async () => {
    bench.server.inject(httpFaults.hugeJsonBody(1024 * 1024), { tool: 'echo' });
    const client = bench.client({}, { maxResponseBytes: LIMIT });
    const error = await rejectionOf(client.request('tools/call', { name: 'echo', arguments: { text: 'x' } }));
    expect(error).toBeInstanceOf(ResponseTooLargeError);
  }, 10_000);
});

describe('an oversized stdout line answering a creation request (stdio)', () => {
  let client: TaskClient | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it('tools/call: OutcomeUnknownError with the ResponseTooLargeError as cause', async () => {
    // A minimal 2026-07-28 server on stdin/stdout whose tools/call answer is one 256 KiB line.
    const server = `
      const rl = require('node:readline').createInterface({ input: process.stdin });
      const out = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
      rl.on('line', (line) => {
        const m = JSON.parse(line);
        if (m.id === undefined) return;
        if (m.method === 'server/discover')
          return out({ jsonrpc: '2.0', id: m.id, result: { supportedVersions: ['2026-07-28'],
            capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
            serverInfo: { name: 'big', version: '1' } } });
        if (m.method === 'tools/call')
          return out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'A'.repeat(256 * 1024) }] } });
        out({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } });
      });`;
    client = new TaskClient({
      transport: new StdioTransport({
        command: process.execPath,
        args: ['-e', server],
        maxLineBytes: LIMIT,
        onWarning: () => undefined,
      }),
    });
    const error = await rejectionOf(client.callTool('go', {}));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).method).toBe('tools/call');
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(ResponseTooLargeError);
    expect(((error as OutcomeUnknownError).cause as ResponseTooLargeError).limitBytes).toBe(LIMIT);
  }, 15_000);
});
