/**
 * HTTP faults over real loopback HTTP (test/faults/catalogue/http-faults.ts): HTML pages, 404, 405, and a 502 in the
 * middle of polling. Each client first makes one good request, so the server is known to be modern before the fault.
 */
import { describe, expect, it } from 'vitest';
import {
  HttpError,
  InvalidResponseError,
  isMcpClientError,
  OutcomeUnknownError,
  type CallToolResult,
} from '../../src/index.js';
import { httpFaults, sseFaults } from './catalogue/index.js';
import { rejectionOf, useFaultBench } from './setup.js';

const bench = useFaultBench();
const T = 5_000;

async function warmClient(options = {}) {
  const client = bench.client(options);
  await client.discover();
  return client;
}

describe('HTTP faults (2.12, 7.1)', () => {
  it(
    '200 with an HTML page: InvalidResponseError naming the content type and the page',
    async () => {
      const client = await warmClient();
      bench.server.inject(httpFaults.html200(), { method: 'tools/list' });
      const error = await rejectionOf(client.listTools());
      expect(error).toBeInstanceOf(InvalidResponseError);
      expect(error.message).toMatch(
        /^tools\/list failed: invalid response: unexpected content-type "text\/html; charset=utf-8": <!DOCTYPE html> <html><head><title>Sign in/,
      );
    },
    T,
  );

  it(
    '502 with an HTML page: HttpError with status and a short excerpt',
    async () => {
      const client = await warmClient();
      bench.server.inject(httpFaults.html502(), { method: 'tools/list' });
      const error = await rejectionOf(client.listTools());
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).status).toBe(502);
      expect((error as HttpError).bodyExcerpt).toContain('<h1>502 Bad Gateway</h1>');
      expect((error as HttpError).bodyExcerpt.length).toBeLessThanOrEqual(201);
      expect(error.message).toMatch(/^tools\/list failed: HTTP 502: <!DOCTYPE html>/);
    },
    T,
  );

  it(
    '502 while polling a task: transient, retried with backoff; the task completes',
    async () => {
      const client = await warmClient();
      bench.server.inject(httpFaults.html502(), { method: 'tasks/get', times: 2 });
      const errors: unknown[] = [];
      let taskId = '';
      const result: CallToolResult = await client.callTool(
        'reindex_corpus',
        { documents: 40 },
        {
          onTask: (h) => {
            taskId = h.taskId;
            h.on('error', (e) => errors.push(e));
          },
        },
      );
      expect(result.content).toEqual([{ type: 'text', text: 'Indexed 40 documents' }]);
      expect(errors).toHaveLength(2);
      expect(errors.every((e) => e instanceof HttpError && e.status === 502)).toBe(true);
      expect(bench.server.requests('tasks/get', taskId).length).toBeGreaterThanOrEqual(3);
    },
    T,
  );

  it(
    '404 without a JSON-RPC body: HttpError 404',
    async () => {
      const client = await warmClient();
      bench.server.inject(httpFaults.status404(), { method: 'tools/list' });
      const error = await rejectionOf(client.listTools());
      expect(isMcpClientError(error, 'HTTP_ERROR')).toBe(true);
      expect((error as HttpError).status).toBe(404);
      expect(error.message).toBe('tools/list failed: HTTP 404: Not Found');
    },
    T,
  );

  it(
    '405 without a body: HttpError 405',
    async () => {
      const client = await warmClient();
      bench.server.inject(httpFaults.status405(), { method: 'tools/list' });
      const error = await rejectionOf(client.listTools());
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).status).toBe(405);
      expect(error.message).toBe('tools/list failed: HTTP 405');
    },
    T,
  );
});

describe('a creation reply whose body breaks after the response (rule: never orphan work)', () => {
  const TOOL = 'deploy_release'; // not idempotent: a lost creation is never re-sent
  const creation = { tool: TOOL, method: 'tools/call', times: 1 };

  async function call(version: string) {
    const client = bench.client();
    const violations: string[] = [];
    client.on('serverViolation', (v) => violations.push(v));
    let taskId: string | undefined;
    const from = bench.server.log.length;
    const outcome = client.callTool(TOOL, { version }, { onTask: (h) => (taskId = h.taskId) });
    /** The methods the server received since the call began. */
    const sent = () => [...new Set(bench.server.log.slice(from).map((e) => e.method))];
    return { outcome, violations, taskId: () => taskId, sent };
  }

  it(
    'JSON: the whole CreateTaskResult, then the connection is cut short of its Content-Length: the task is followed to its result; a serverViolation says so',
    async () => {
      bench.server.inject(httpFaults.contentLengthTooLong(), creation);
      const { outcome, violations, taskId, sent } = await call('4.0.0');
      const result = (await outcome) as CallToolResult;
      expect(result.content).toEqual([{ type: 'text', text: 'deployed 4.0.0' }]);
      expect(taskId()).toMatch(/./);
      expect(sent()).toEqual(['tools/call', 'tasks/get', 'tasks/update']); // one creation, no cancel
      expect(violations).toHaveLength(1);
      expect(violations[0]).toMatch(
        /^tools\/call: the connection broke after the whole response had arrived \(.+\); the response is used$/,
      );
    },
    T,
  );

  it(
    'SSE: the CreateTaskResult event complete, then the connection is cut: the task is followed to its result',
    async () => {
      bench.server.inject(sseFaults.sseCutAfterResponse(), creation);
      const { outcome, taskId, sent, violations } = await call('4.0.1');
      const result = (await outcome) as CallToolResult;
      expect(result.content).toEqual([{ type: 'text', text: 'deployed 4.0.1' }]);
      expect(taskId()).toMatch(/./);
      expect(sent()).toEqual(['tools/call', 'tasks/get', 'tasks/update']);
      expect(violations).toEqual([]); // the stream was left once the response arrived: the cut is never read
    },
    T,
  );

  it(
    'JSON cut mid-body, after the taskId but before the end: OutcomeUnknownError without a guessed taskId, nothing cancelled',
    async () => {
      bench.server.inject(httpFaults.jsonCutAfterField('taskId'), creation);
      const { outcome, taskId, sent } = await call('4.0.2');
      const error = await rejectionOf(outcome);
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect((error as OutcomeUnknownError).taskId).toBeUndefined();
      expect(taskId()).toBeUndefined();
      expect(sent()).toEqual(['tools/call', 'tools/list']); // tools/list: may it be re-sent? No: no re-send, no cancel
    },
    T,
  );
});
