/**
 * A misspelt option key (per call, on the client, on a task handle) is a TypeError naming the key and the closest
 * known one, thrown before anything is sent: a typo must never silently drop a timeout or a signal. Real HTTP on
 * loopback (the reference server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { createTaskServer, sleep, textResult, type TaskServer } from '../../src/testing/index.js';
import { AttachOptionsSchema, CallOptionsSchema, RequestOptionsSchema } from '../../src/tasks/config.js';

let server: TaskServer;
beforeAll(async () => {
  server = await createTaskServer({
    inlineBudgetMs: 20,
    pollIntervalMs: 100,
    catalog: {
      tools: [
        {
          name: 'echo',
          description: 'Echoes.',
          inputSchema: { type: 'object' },
          run: async () => textResult('ok'),
        },
        {
          name: 'slow',
          description: 'Becomes a task.',
          inputSchema: { type: 'object' },
          taskSupport: 'optional',
          run: async (ctx) => (await sleep(60_000, ctx.signal), textResult('late')),
        },
      ],
      resources: [
        { uri: 'mem://a', name: 'a', run: async () => ({ contents: [{ uri: 'mem://a', text: 'a' }] }) },
      ],
      prompts: [{ name: 'p', description: 'A prompt.', run: async () => ({ messages: [] }) }],
    },
  });
});
afterAll(() => server.close());

const newClient = (): TaskClient =>
  new TaskClient({ transport: new StreamableHttpTransport(server.url), era: 'modern' });
const sent = (): number =>
  server.stats.count('tools/call') +
  server.stats.count('resources/read') +
  server.stats.count('prompts/get') +
  server.stats.count('server/discover') +
  server.stats.count('tools/list');

describe('per-call options', () => {
  it.each([
    ['callTool', 'timeoutMS', 'timeoutMs'],
    ['callTool', 'signall', 'signal'],
    ['callTool', 'maxTotalTimeout', 'maxTotalTimeoutMs'],
    ['callTool', 'onabort', 'onAbort'],
    ['callTool', 'idempotencykey', 'idempotencyKey'],
    ['startTool', 'onTasks', 'onTask'],
    ['readResource', 'pollInterval', 'pollIntervalMs'],
    ['getPrompt', 'onprogress', 'onProgress'],
  ] as const)('%s({ %s }) → TypeError naming it and "%s"; nothing sent', async (method, key, closest) => {
    const client = newClient();
    const before = sent();
    const options = { [key]: 1_000 } as never;
    const call =
      method === 'readResource'
        ? client.readResource('mem://a', options)
        : method === 'getPrompt'
          ? client.getPrompt('p', {}, options)
          : client[method]('echo', {}, options);
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    const where = {
      callTool: 'tools/call',
      startTool: 'tools/call',
      readResource: 'resources/read',
      getPrompt: 'prompts/get',
    }[method];
    expect((error as Error).message).toBe(
      `TaskClient ${where}: unknown option "${key}"; did you mean "${closest}"?`,
    );
    expect(sent()).toBe(before);
    await client.close();
  });

  it('beforeWrite is not a request option (the fleet checks its lease through the engine): TypeError, nothing sent', async () => {
    const client = newClient();
    const before = sent();
    const error = await client
      .callTool('echo', {}, { beforeWrite: () => undefined } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^TaskClient tools\/call: unknown option "beforeWrite"/);
    expect(sent()).toBe(before);
    await client.close();
  });

  it.each([
    ['listTools', 'timeout', 'timeoutMs'],
    ['discover', 'header', 'headers'],
  ] as const)('%s({ %s }) → TypeError naming "%s"', async (method, key, closest) => {
    const client = newClient();
    await expect(client[method]({ [key]: 5 } as never)).rejects.toThrow(
      new TypeError(`TaskClient ${method}: unknown option "${key}"; did you mean "${closest}"?`),
    );
    await client.close();
  });

  it('request() knows only the request options (not onAbort)', async () => {
    const client = newClient();
    await expect(client.request('tools/list', {}, { onAbort: 'detach' } as never)).rejects.toThrow(
      /^TaskClient tools\/list: unknown option "onAbort"; did you mean "/,
    );
    await client.close();
  });

  it('task() knows the attach options', async () => {
    const client = newClient();
    await expect(client.task('t', { ttl: 5 } as never)).rejects.toThrow(
      new TypeError('TaskClient task: unknown option "ttl"; did you mean "ttlMs"?'),
    );
    await client.close();
  });

  it('every known key is accepted: the call runs', async () => {
    const client = newClient();
    const options = {
      signal: new AbortController().signal,
      timeoutMs: 5_000,
      onProgress: () => undefined,
      headers: {},
      meta: {},
      maxTotalTimeoutMs: 10_000,
      onTask: () => undefined,
      pollIntervalMs: 100,
      onAbort: 'cancel' as const,
      idempotencyKey: 'k-1',
    };
    await expect(client.callTool('echo', {}, options)).resolves.toMatchObject({
      content: [{ type: 'text', text: 'ok' }],
    });
    await client.close();
  });
});

describe('task handle options', () => {
  it('result({ signall }) and cancel({ waitMS }) → TypeError naming the closest; the task is still followed, then cancelled', async () => {
    const client = newClient();
    const start = await client.startTool('slow', {});
    if (start.resultType !== 'task') throw new Error('expected a task');
    const handle = start.task;
    await expect(handle.result({ signall: new AbortController().signal } as never)).rejects.toThrow(
      new TypeError('TaskHandle.result: unknown option "signall"; did you mean "signal"?'),
    );
    await expect(handle.cancel({ waitMS: 10 } as never)).rejects.toThrow(
      new TypeError('TaskHandle.cancel: unknown option "waitMS"; did you mean "waitMs"?'),
    );
    expect(server.stats.count('tasks/cancel')).toBe(0);
    expect(handle.done).toBe(false);
    await handle.cancel();
    await client.close();
  });
});

describe('client options', () => {
  const transport = new StreamableHttpTransport('http://127.0.0.1:9/mcp');
  it.each([
    [{ transport, timeoutMS: 5 }, 'TaskClient: unknown option "timeoutMS"; did you mean "timeoutMs"?'],
    [
      { transport, abortGrace: 5 },
      'TaskClient: unknown option "abortGrace"; did you mean "limits.abortGraceMs"?',
    ],
    [{ transport, mode: 'push' }, 'TaskClient: unknown option "mode"; did you mean "polling.mode"?'],
    [
      { transport, creationRetry: { retrys: 2 } },
      'TaskClient: unknown option "creationRetry.retrys"; did you mean "creationRetry.retries"?',
    ],
    [
      { transport, handlers: { elicit: () => undefined } },
      'TaskClient: unknown option "handlers.elicit"; did you mean "handlers.elicitation"?',
    ],
  ])('%j → TypeError naming the closest key', (options, message) => {
    expect(() => new TaskClient(options as never)).toThrow(new TypeError(message));
  });
});

describe('per-call options: none given', () => {
  // `{}` skips validation (the default of every call's options): each per-call schema must accept it.
  it.each([
    ['CallOptionsSchema', CallOptionsSchema],
    ['RequestOptionsSchema', RequestOptionsSchema],
    ['AttachOptionsSchema', AttachOptionsSchema],
  ])('%s accepts {}', (_, schema) => {
    expect(schema.safeParse({}).success).toBe(true);
  });
});
