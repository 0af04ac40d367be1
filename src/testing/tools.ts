/**
 * The demo catalog of the reference server: tools, resources and prompts that exercise every path of the client
 * (inline, task, progress, input through `tasks/update`, MRTR, tool error, protocol failure). Durations below are
 * nominal milliseconds, multiplied by the server's `timeScale`.
 *
 * | name | kind | behaviour |
 * | --- | --- | --- |
 * | `echo` | tool | inline: returns `text` |
 * | `reindex_corpus` | tool | 2 ms per document, `statusMessage` "indexed 400/1000"; inline when fast enough |
 * | `deploy_release` | tool | task-only: 100 ms, asks `confirm` (form `{confirm: boolean, note?: string}`), 100 ms |
 * | `flaky_job` | tool | 200 ms, then `failed` with JSON-RPC error -32603 |
 * | `lint_file` | tool | 150 ms, then `completed` with `isError: true` |
 * | `confirm_action` | tool | MRTR: asks a yes/no form first, then answers inline |
 * | `demo://readme` | resource | inline text |
 * | `demo://slow-report` | resource | 300 ms, so a task when the extension is declared |
 * | `summarize` | prompt | inline |
 * | `slow_briefing` | prompt | 300 ms, so a task when the extension is declared |
 *
 * @module
 */
import { JobError } from './job.js';
import {
  elicitForm,
  numberArg,
  readElicitAnswer,
  stringArg,
  textResult,
  type Catalog,
  type ToolDefinition,
} from './catalog.js';

/** Nominal cost of one document in `reindex_corpus`, in ms (before `timeScale`). */
export const REINDEX_MS_PER_DOCUMENT = 2;

const echo: ToolDefinition = {
  name: 'echo',
  description: 'Returns the given text. Always inline.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: async (ctx) => {
    const text = stringArg(ctx.args, 'text');
    ctx.report('echoed', { progress: 1, total: 1 });
    return textResult(text, { structuredContent: { text } });
  },
};

const reindexCorpus: ToolDefinition = {
  name: 'reindex_corpus',
  description: `Re-indexes N documents (${REINDEX_MS_PER_DOCUMENT} ms each). Reports "indexed k/N" as statusMessage and progress.`,
  inputSchema: {
    type: 'object',
    properties: { documents: { type: 'integer', minimum: 0, maximum: 1_000_000 } },
    required: ['documents'],
  },
  annotations: { idempotentHint: true, openWorldHint: false },
  run: async (ctx) => {
    const total = Math.floor(numberArg(ctx.args, 'documents', { min: 0, max: 1_000_000 }));
    const step = Math.max(1, Math.ceil(total / 10));
    for (let done = 0; done < total; ) {
      const batch = Math.min(step, total - done);
      await ctx.sleep(batch * REINDEX_MS_PER_DOCUMENT);
      done += batch;
      ctx.report(`indexed ${done}/${total}`, { progress: done, total });
    }
    return textResult(`Indexed ${total} documents`, { structuredContent: { documents: total } });
  },
};

/**
 * `deploy_release {version}`: task-only (-32021 without the extension). Outcomes: accept with `confirm: true` →
 * `completed` "Deployed <version>"; decline, cancel or `confirm: false` → `completed` with `isError: true` (the
 * user's refusal is a tool-level outcome, and `failed` is reserved for JSON-RPC errors, ext-tasks § Task Execution
 * Errors); no answer within `inputTimeoutMs` → `failed` with -32603.
 */
const deployRelease: ToolDefinition = {
  name: 'deploy_release',
  description: 'Deploys a release after asking for confirmation (as a task).',
  inputSchema: { type: 'object', properties: { version: { type: 'string' } }, required: ['version'] },
  annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
  taskSupport: 'required',
  requiredCapabilities: ['elicitation'],
  run: async (ctx) => {
    const version = stringArg(ctx.args, 'version');
    ctx.report(`preparing ${version}`);
    await ctx.sleep(100);
    ctx.report(`waiting for confirmation of ${version}`);
    const answers = await ctx.input({
      confirm: elicitForm(
        `Deploy ${version} to production?`,
        {
          confirm: { type: 'boolean', title: 'Deploy now' },
          note: { type: 'string', title: 'Release note' },
        },
        ['confirm'],
      ),
    });
    const { action, content } = readElicitAnswer(answers.confirm);
    if (action !== 'accept' || content.confirm !== true) {
      return textResult(`Deployment of ${version} was not confirmed (${action}); nothing deployed`, {
        isError: true,
      });
    }
    ctx.report(`deploying ${version}`);
    await ctx.sleep(100);
    const note = typeof content.note === 'string' && content.note !== '' ? ` (${content.note})` : '';
    return textResult(`deployed ${version}${note}`, { structuredContent: { version, deployed: true } });
  },
};

const flakyJob: ToolDefinition = {
  name: 'flaky_job',
  description: 'Works for 200 ms, then fails with a JSON-RPC error (-32603).',
  inputSchema: { type: 'object', properties: {} },
  annotations: { idempotentHint: true, openWorldHint: true },
  run: async (ctx) => {
    ctx.report('contacting upstream');
    await ctx.sleep(200);
    throw new JobError(-32603, 'flaky_job: upstream service unavailable', { retryable: true });
  },
};

const lintFile: ToolDefinition = {
  name: 'lint_file',
  description: 'Lints a file for 150 ms and reports problems as a tool error (isError: true).',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: async (ctx) => {
    const path = stringArg(ctx.args, 'path');
    await ctx.sleep(150);
    return textResult(`${path}: 3 problems (2 errors, 1 warning)`, { isError: true });
  },
};

/** `confirm_action {action}`: MRTR. Round 1 asks `confirm` (form `{confirm: boolean}`); the retry answers inline. */
const confirmAction: ToolDefinition = {
  name: 'confirm_action',
  description: 'Asks for a yes/no confirmation (multi round-trip request) before doing anything.',
  inputSchema: { type: 'object', properties: { action: { type: 'string' } }, required: ['action'] },
  annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
  requiredCapabilities: ['elicitation'],
  run: async (ctx) => {
    const action = stringArg(ctx.args, 'action');
    const state = ctx.requestState as { action?: unknown } | undefined;
    const answer = readElicitAnswer(ctx.inputResponses?.confirm);
    if (state?.action !== action || answer.action === 'missing') {
      return ctx.inputRequired(
        {
          confirm: elicitForm(`Perform "${action}"?`, { confirm: { type: 'boolean', title: 'Confirm' } }, [
            'confirm',
          ]),
        },
        { action },
      );
    }
    if (answer.action === 'accept' && answer.content.confirm === true) {
      return textResult(`Performed "${action}"`, { structuredContent: { action, performed: true } });
    }
    return textResult(`"${action}" was not performed (${answer.action})`, {
      structuredContent: { action, performed: false },
    });
  },
};

/** The demo catalog (a fresh copy per call). */
export function demoCatalog(): Catalog {
  return {
    tools: [echo, reindexCorpus, deployRelease, flakyJob, lintFile, confirmAction],
    resources: [
      {
        uri: 'demo://readme',
        name: 'readme',
        description: 'What this server is.',
        mimeType: 'text/plain',
        run: async () => ({
          contents: [
            {
              uri: 'demo://readme',
              mimeType: 'text/plain',
              text: 'Reference MCP task server (mcp-tasks-client/testing).',
            },
          ],
        }),
      },
      {
        uri: 'demo://slow-report',
        name: 'slow-report',
        description: 'A report that takes 300 ms to build (a task when the client allows it).',
        mimeType: 'text/plain',
        run: async (ctx) => {
          ctx.report('building report');
          await ctx.sleep(300);
          return {
            contents: [
              { uri: 'demo://slow-report', mimeType: 'text/plain', text: 'Quarterly report: all green.' },
            ],
          };
        },
      },
    ],
    prompts: [
      {
        name: 'summarize',
        description: 'Asks the model to summarize a text.',
        arguments: [{ name: 'text', required: true }],
        run: async (ctx) => ({
          messages: [
            {
              role: 'user',
              content: { type: 'text', text: `Summarize:\n${stringArg(ctx.args, 'text', '')}` },
            },
          ],
        }),
      },
      {
        name: 'slow_briefing',
        description: 'A briefing prompt that takes 300 ms to assemble (a task when the client allows it).',
        arguments: [{ name: 'topic', required: false }],
        run: async (ctx) => {
          const topic = stringArg(ctx.args, 'topic', 'the project');
          await ctx.sleep(300);
          return { messages: [{ role: 'user', content: { type: 'text', text: `Brief me on ${topic}.` } }] };
        },
      },
    ],
  };
}
