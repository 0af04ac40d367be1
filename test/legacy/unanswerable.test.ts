/**
 * A 2025-11-25 server's elicitation that nobody in the client can answer (no `handlers.elicitation`, no
 * `inputRequired` listener) is answered at once with a JSON-RPC error, never left waiting: against the real
 * `@modelcontextprotocol/server-everything` over stdio, whose research task then goes on with its default
 * ("elicitation unavailable") and completes. The caller hears of it: one `warning` on the client naming the task and
 * the question, and one `error` event on the task's handle carrying an `InputRequiredError` with the `taskId`.
 * (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation)
 */
import { afterEach, expect, it } from 'vitest';
import {
  InputRequiredError,
  redactTaskId,
  TaskClient,
  type CallToolResult,
  type TaskHandle,
} from '../../src/index.js';
import { everythingStdio } from './servers.js';
import '../helpers/no-jitter.js';

let client: TaskClient | undefined;
afterEach(async () => {
  await client?.close();
});

const text = (result: CallToolResult): string =>
  result.content.map((c) => String((c as { text?: unknown }).text ?? '')).join('');

it('nobody to answer: the server gets an error at once, the task completes, a warning and a typed error say so', {
  timeout: 30_000,
}, async () => {
  client = new TaskClient({ transport: everythingStdio(), era: 'legacy' });
  const warnings: string[] = [];
  client.on('warning', (w) => warnings.push(w));
  const errors: unknown[] = [];
  let handle: TaskHandle<unknown> | undefined;
  const result = await client.callTool(
    'simulate-research-query',
    { topic: 'python', ambiguous: true },
    {
      onTask: (h) => {
        handle = h;
        h.on('error', (e) => errors.push(e));
      },
    },
  );
  expect(result.isError).toBeFalsy();
  expect(text(result)).toContain('elicitation unavailable');
  const taskId = handle?.taskId ?? '';
  expect(warnings).toEqual([
    `elicitation/create [elicitation/create#1] for task ${redactTaskId(taskId)}: no handler and no inputRequired listener can answer it; the server was answered with an error at once`,
  ]);
  expect(errors).toHaveLength(1);
  const [error] = errors as InputRequiredError[];
  expect(error).toBeInstanceOf(InputRequiredError);
  expect(error?.code).toBe('INPUT_REQUIRED');
  expect(error?.taskId).toBe(taskId);
  expect(error?.requests).toEqual({ 'elicitation/create#1': { method: 'elicitation/create' } });
});
