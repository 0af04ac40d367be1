/**
 * Tools the official conformance suite's server scenarios call (`@modelcontextprotocol/conformance`, scenarios
 * `tasks-*` and `server-stateless`), enabled with the server option `fixtures: "conformance"`. Durations are nominal
 * milliseconds multiplied by `timeScale` (keep it 1 for the suite: it waits in real seconds).
 *
 * | tool | behaviour |
 * | --- | --- |
 * | `greet {name}` | inline "Hello, {name}!" |
 * | `slow_compute {seconds, label?}` | sleeps `seconds` s, then a result; `cancelled` if cancelled meanwhile |
 * | `failing_job` | task-only; after 1 s `completed` with `isError: true` |
 * | `protocol_error_job` | after 500 ms `failed` with JSON-RPC error -32603 |
 * | `confirm_delete {filename}` | task-only; asks one elicitation, completes when answered |
 * | `multi_input` | task-only; asks two elicitations at once (partial answers keep the other pending) |
 * | `test_tool_with_task` | task-only; MRTR round asking `user_name`, then a 500 ms task greeting that name |
 * | `test_missing_capability` | needs `sampling` (else -32021 naming it) |
 * | `test_streaming_elicitation` | needs `elicitation`; answers with an MRTR `input_required` result |
 * | `test_logging_tool` | inline; never logs without `io.modelcontextprotocol/logLevel` |
 *
 * @module
 */
import {
  elicitForm,
  numberArg,
  readElicitAnswer,
  stringArg,
  textResult,
  type Catalog,
  type ToolDefinition,
} from './catalog.js';
import { JobError } from './job.js';

const emptySchema = { type: 'object', properties: {} } as const;

const tools: ToolDefinition[] = [
  {
    name: 'greet',
    description: 'Greets someone (always inline).',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    annotations: { readOnlyHint: true, idempotentHint: true },
    run: async (ctx) => textResult(`Hello, ${stringArg(ctx.args, 'name', 'World')}!`),
  },
  {
    name: 'slow_compute',
    description: 'Sleeps for `seconds` seconds, then returns a result.',
    inputSchema: {
      type: 'object',
      properties: { seconds: { type: 'number', minimum: 0, maximum: 3600 }, label: { type: 'string' } },
      required: ['seconds'],
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
    run: async (ctx) => {
      const seconds = numberArg(ctx.args, 'seconds', { min: 0, max: 3600 });
      const label = stringArg(ctx.args, 'label', 'slow_compute');
      ctx.report(`computing ${label}`);
      await ctx.sleep(seconds * 1000);
      return textResult(`Computed ${label} after ${seconds} s`);
    },
  },
  {
    name: 'failing_job',
    description: 'Task-only. After 1 s, ends with a tool execution error (isError: true).',
    inputSchema: emptySchema,
    taskSupport: 'required',
    run: async (ctx) => {
      await ctx.sleep(1000);
      return textResult('failing_job: the job ran and reported an error', { isError: true });
    },
  },
  {
    name: 'protocol_error_job',
    description: 'After 500 ms, fails with a JSON-RPC internal error (-32603).',
    inputSchema: emptySchema,
    run: async (ctx) => {
      await ctx.sleep(500);
      throw new JobError(-32603, 'protocol_error_job: internal failure during execution');
    },
  },
  {
    name: 'confirm_delete',
    description: 'Task-only. Asks for confirmation (elicitation) before deleting a file.',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
    annotations: { destructiveHint: true },
    taskSupport: 'required',
    requiredCapabilities: ['elicitation'],
    run: async (ctx) => {
      const filename = stringArg(ctx.args, 'filename', 'file');
      const answers = await ctx.input({
        'confirm-delete': elicitForm(`Delete ${filename}?`, { confirm: { type: 'boolean' } }, ['confirm']),
      });
      const { action, content } = readElicitAnswer(answers['confirm-delete']);
      const deleted = action === 'accept' && content.confirm !== false;
      return textResult(deleted ? `Deleted ${filename}` : `Kept ${filename} (${action})`);
    },
  },
  {
    name: 'multi_input',
    description: 'Task-only. Asks two questions at once; completes when both are answered.',
    inputSchema: emptySchema,
    taskSupport: 'required',
    requiredCapabilities: ['elicitation'],
    run: async (ctx) => {
      const [first, second] = await Promise.all([
        ctx.input({ 'multi-name': elicitForm('Your name?', { name: { type: 'string' } }, ['name']) }),
        ctx.input({ 'multi-confirm': elicitForm('Proceed?', { confirm: { type: 'boolean' } }, ['confirm']) }),
      ]);
      const name = readElicitAnswer(first['multi-name']).content.name;
      const confirm = readElicitAnswer(second['multi-confirm']).content.confirm;
      return textResult(`multi_input done: name=${String(name)}, confirm=${String(confirm)}`);
    },
  },
  {
    name: 'test_tool_with_task',
    description: 'Task-only. Asks `user_name` through an MRTR round, then finishes as a task.',
    inputSchema: emptySchema,
    taskSupport: 'required',
    requiredCapabilities: ['elicitation'],
    run: async (ctx) => {
      const answer = readElicitAnswer(ctx.inputResponses?.user_name);
      const name = answer.content.name ?? answer.content.user_name;
      if (answer.action !== 'accept' || typeof name !== 'string') {
        return ctx.inputRequired(
          { user_name: elicitForm('What is your name?', { name: { type: 'string' } }, ['name']) },
          { round: 1 },
        );
      }
      ctx.report(`working for ${name}`);
      await ctx.sleep(500);
      return textResult(`Hello, ${name}! Your task is complete.`);
    },
  },
  {
    name: 'test_missing_capability',
    description: 'Needs the sampling capability; without it the server answers -32021.',
    inputSchema: emptySchema,
    requiredCapabilities: ['sampling'],
    run: async () => textResult('sampling capability declared'),
  },
  {
    name: 'test_streaming_elicitation',
    description:
      'Needs elicitation; answers with an input_required result (never a server-to-client request).',
    inputSchema: emptySchema,
    requiredCapabilities: ['elicitation'],
    run: async (ctx) => {
      const answer = readElicitAnswer(ctx.inputResponses?.confirm);
      if (answer.action === 'missing') {
        return ctx.inputRequired(
          { confirm: elicitForm('Continue?', { confirm: { type: 'boolean' } }, ['confirm']) },
          {},
        );
      }
      return textResult(`streaming elicitation answered: ${answer.action}`);
    },
  },
  {
    name: 'test_logging_tool',
    description: 'Returns a result; sends no log notifications (none were requested).',
    inputSchema: emptySchema,
    run: async () => textResult('logging tool done'),
  },
];

/** The conformance fixtures as a catalog (tools only). */
export function conformanceCatalog(): Catalog {
  return { tools: [...tools], resources: [], prompts: [] };
}
