/**
 * Typed results against the reference server over loopback HTTP: `structuredContent` is checked against the tool's
 * declared `outputSchema` (from `listTools`) and against a Standard Schema validator (zod) given to the call, for an
 * inline result and for a task's result; a mismatch is `OutputValidationError` carrying the result and the issues.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { OutputValidationError, StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { createTaskServer, numberArg, textResult, type TaskServer } from '../../src/testing/index.js';

const Weather = z.object({ city: z.string(), celsius: z.number() });

describe('typed tool results over loopback HTTP', () => {
  let server: TaskServer;
  beforeAll(async () => {
    server = await createTaskServer({
      pollIntervalMs: 20,
      inlineBudgetMs: 20,
      catalog: {
        tools: [
          {
            name: 'weather',
            description:
              'Weather; `celsius: "hot"` breaks the declared outputSchema; `waitMs` makes it a task.',
            inputSchema: { type: 'object', properties: { waitMs: { type: 'integer' } } },
            outputSchema: {
              type: 'object',
              properties: { city: { type: 'string' }, celsius: { type: 'number' } },
              required: ['city', 'celsius'],
            },
            run: async (ctx) => {
              await ctx.sleep(numberArg(ctx.args, 'waitMs', { min: 0, max: 10_000, fallback: 0 }));
              const celsius = ctx.args.broken === true ? 'hot' : 21;
              if (ctx.args.fail === true) return textResult('no forecast', { isError: true });
              return textResult('21 C in Paris', { structuredContent: { city: 'Paris', celsius } });
            },
          },
        ],
      },
    });
  });
  afterAll(() => server.close());

  const withClient = async (run: (client: TaskClient) => Promise<void>) => {
    const client = new TaskClient({ transport: new StreamableHttpTransport(server.url) });
    try {
      await run(client);
    } finally {
      await client.close();
    }
  };

  it('an inline result breaking the listed outputSchema rejects with OutputValidationError carrying the result and issues', () =>
    withClient(async (client) => {
      await client.listTools();
      const error = await client.callTool('weather', { broken: true }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutputValidationError);
      const e = error as OutputValidationError;
      expect(e.code).toBe('INVALID_OUTPUT');
      expect(e.toolName).toBe('weather');
      expect(e.against).toBe('outputSchema');
      expect(e.result.structuredContent).toEqual({ city: 'Paris', celsius: 'hot' });
      expect(e.issues).toEqual([
        { path: '/celsius', message: 'Instance type "string" is invalid. Expected "number".' },
      ]);
    }));

  it('a task whose result breaks the outputSchema settles handle.result() with OutputValidationError', () =>
    withClient(async (client) => {
      await client.listTools();
      const started = await client.startTool('weather', { broken: true, waitMs: 100 });
      expect(started.resultType).toBe('task');
      if (started.resultType !== 'task') return;
      const error = await started.task.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutputValidationError);
      expect((error as OutputValidationError).issues[0]?.path).toBe('/celsius');
    }));

  it('validateOutput: false, or a tool not listed yet, resolves with the result as the server sent it', () =>
    withClient(async (client) => {
      const unlisted = await client.callTool('weather', { broken: true });
      expect(unlisted.structuredContent).toEqual({ city: 'Paris', celsius: 'hot' });
      await client.listTools();
      const off = await client.callTool('weather', { broken: true }, { validateOutput: false });
      expect(off.structuredContent).toEqual({ city: 'Paris', celsius: 'hot' });
    }));

  it('a tool error (isError) is returned, not checked', () =>
    withClient(async (client) => {
      await client.listTools();
      const result = await client.callTool('weather', { fail: true });
      expect(result.isError).toBe(true);
    }));

  it('callTool, startTool and handle.result() with a zod schema resolve with typed structuredContent', () =>
    withClient(async (client) => {
      const inline = await client.callTool('weather', {}, { schema: Weather });
      if (inline.isError) throw new Error('unexpected tool error');
      expectTypeOf(inline.structuredContent).toEqualTypeOf<{ city: string; celsius: number }>();
      expect(inline.structuredContent).toEqual({ city: 'Paris', celsius: 21 });

      const started = await client.startTool('weather', { waitMs: 100 }, { schema: Weather });
      if (started.resultType !== 'task') throw new Error('expected a task');
      const result = await started.task.result();
      if (result.isError) throw new Error('unexpected tool error');
      expectTypeOf(result.structuredContent).toEqualTypeOf<{ city: string; celsius: number }>();
      expect(result.structuredContent).toEqual({ city: 'Paris', celsius: 21 });
    }));

  it('a result the call schema refuses rejects with OutputValidationError (against: schema) and zod issues as JSON Pointers', () =>
    withClient(async (client) => {
      const error = await client
        .callTool('weather', { broken: true }, { schema: Weather })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutputValidationError);
      const e = error as OutputValidationError;
      expect(e.against).toBe('schema');
      expect(e.issues.map((i) => i.path)).toEqual(['/celsius']);
      expect(e.result.structuredContent).toEqual({ city: 'Paris', celsius: 'hot' });
    }));
});
