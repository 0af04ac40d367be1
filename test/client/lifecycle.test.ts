/**
 * What a user hits at the edges: closing the client, a server that is not there, bad options, odd task ids, answers
 * for questions never asked.
 */
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ClientClosedError,
  NetworkError,
  OutcomeUnknownError,
  redactTaskId,
  StreamableHttpTransport,
  TaskClient,
  type TaskHandle,
} from '../../src/index.js';
import { ScriptedTransport } from '../helpers/scripted-transport.js';
import { created, detailed, elicit } from '../helpers/unit-fixtures.js';
import '../helpers/no-jitter.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('close()', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('rejects waiting calls and later calls with ClientClosedError, and sends nothing more', async () => {
    const transport = new ScriptedTransport((m) => (m === 'tools/call' ? created() : detailed()));
    const client = new TaskClient({ transport });
    const waiting = client.callTool('slow', {}).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1_500);
    const sent = transport.sent.length;
    await client.close();
    expect(await waiting).toBeInstanceOf(ClientClosedError);
    await expect(client.callTool('echo', {})).rejects.toBeInstanceOf(ClientClosedError);
    await expect(client.listTools()).rejects.toBeInstanceOf(ClientClosedError);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(transport.sent).toHaveLength(sent);
  });
});

describe('a server that is not there', () => {
  it('is a NetworkError saying nothing was sent (after a few quick re-sends), not OutcomeUnknownError', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const client = new TaskClient({
      transport: new StreamableHttpTransport(url),
      creationRetry: { minTimeoutMs: 2 }, // a never-sent request is re-sent after 1 ms
    });
    const error = await client.callTool('deploy', {}, { idempotencyKey: 'k' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect((error as Error).message).toMatch(/^tools\/call failed: network error: .*nothing was sent/);
  });
});

describe('options at the boundary', () => {
  const transport = new ScriptedTransport(() => ({}));
  it.each([
    [undefined, 'TaskClient: options are required: new TaskClient({ transport })'],
    [
      { transport, polling: { intervalMS: 5 } },
      'TaskClient: unknown option "polling.intervalMS"; did you mean "polling.intervalMs"?',
    ],
    [
      { transport, timeoutMs: '100' },
      'TaskClient: option "timeoutMs" must be a number of milliseconds; got "100"',
    ],
    [{ transport: {} }, 'TaskClient: option "transport" must implement request; got an object with keys []'],
    [
      { transport, polling: { intervalMs: -1 } },
      'TaskClient: option "polling.intervalMs" must be greater than 0; got -1',
    ],
  ])('%j → TypeError', (options, message) => {
    expect(() => new TaskClient(options as never)).toThrow(new TypeError(message));
  });

  it('a transport URL that is not one is a TypeError naming it', () => {
    expect(() => new StreamableHttpTransport('notaurl')).toThrow(
      new TypeError('StreamableHttpTransport: url must be an absolute http(s) URL, got "notaurl"'),
    );
  });

  it('task("") is a TypeError, before any request', async () => {
    const t = new ScriptedTransport(() => ({}));
    await expect(new TaskClient({ transport: t }).task('')).rejects.toThrow(
      new TypeError('TaskClient.task: taskId must be a non-empty string, got ""'),
    );
    expect(t.sent).toHaveLength(0);
  });
});

describe('redactTaskId', () => {
  it.each([
    ['t-4f9c', 't-4f9c'],
    ['3d9b37cb-a828-4235-9a5b-068bfc12d851', '3d9b37…(36)'],
    ['täsk-🚀-ü-and-more', 'täsk-🚀…(17)'],
    ['x\ny', 'x\\u000ay'],
  ])('%j → %j (whole code points, control characters visible)', (id, shown) => {
    expect(redactTaskId(id)).toBe(shown);
  });
});

describe('handle.respond()', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('sends only keys the server asked (5.11) and returns them', async () => {
    const transport = new ScriptedTransport((m) => {
      if (m === 'tools/call') return created();
      if (m === 'tasks/get')
        return detailed({ status: 'input_required', inputRequests: { q: elicit('Go?') } });
      return { resultType: 'complete' };
    });
    const client = new TaskClient({ transport, capabilities: { elicitation: { form: {} } } });
    const start = await client.startTool('deploy', {});
    const handle = (start as { task: TaskHandle<unknown> }).task;
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(
      handle.respond({ q: { action: 'decline' }, stranger: { action: 'decline' } }),
    ).resolves.toEqual(['q']);
    expect(
      transport
        .of('tasks/update')
        .map((s) => (s.message.params as { inputResponses: unknown }).inputResponses),
    ).toEqual([{ q: { action: 'decline' } }]);
    await client.close();
  });
});
