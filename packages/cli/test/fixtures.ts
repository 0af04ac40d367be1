/**
 * Extra reference-server tools for the CLI tests: a form with every field kind, a sampling question, a roots
 * question and a URL-mode elicitation. Each is task-only and echoes the answers it got as structured content.
 */
import { afterAll, beforeAll } from 'vitest';
import {
  createTaskServer,
  elicitForm,
  textResult,
  type TaskServer,
  type ToolDefinition,
} from '../../../src/testing/index.js';
import { ensureCliBuilt, killLeftovers, tempHome } from './helpers.js';

const answersEcho = (answers: unknown): Record<string, unknown> =>
  textResult('answers received', { structuredContent: { answers } });

/** `survey`: one form with a string (length and format), an integer with bounds, a number, a boolean, enums. */
export const surveyTool: ToolDefinition = {
  name: 'survey',
  description: 'Asks a form with every field kind.',
  inputSchema: { type: 'object', properties: {} },
  taskSupport: 'required',
  requiredCapabilities: ['elicitation'],
  run: async (ctx) => {
    await ctx.sleep(50);
    const answers = await ctx.input({
      profile: elicitForm(
        'Tell us about the release',
        {
          name: { type: 'string', title: 'Release name', minLength: 3, maxLength: 20 },
          contact: { type: 'string', title: 'Contact', format: 'email' },
          replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 9, default: 3 },
          ratio: { type: 'number', title: 'Canary ratio', minimum: 0, maximum: 1 },
          notify: { type: 'boolean', title: 'Notify the team', default: true },
          region: {
            type: 'string',
            title: 'Region',
            oneOf: [
              { const: 'eu', title: 'Europe' },
              { const: 'us', title: 'United States' },
            ],
            default: 'eu',
          },
          channels: {
            type: 'array',
            title: 'Channels',
            minItems: 1,
            items: {
              anyOf: [
                { const: 'mail', title: 'E-mail' },
                { const: 'chat', title: 'Chat' },
                { const: 'pager', title: 'Pager' },
              ],
            },
          },
          comment: { type: 'string', title: 'Comment' },
        },
        ['name', 'contact', 'replicas', 'region', 'channels'],
      ),
    });
    return answersEcho(answers);
  },
};

/** `ask_model`: a sampling request. */
export const samplingTool: ToolDefinition = {
  name: 'ask_model',
  description: 'Asks the client for a model completion.',
  inputSchema: { type: 'object', properties: {} },
  taskSupport: 'required',
  run: async (ctx) => {
    const answers = await ctx.input({
      draft: {
        method: 'sampling/createMessage',
        params: {
          messages: [{ role: 'user', content: { type: 'text', text: 'Write a haiku' } }],
          maxTokens: 50,
        },
      },
    });
    return answersEcho(answers);
  },
};

/** `list_roots`: a roots request. */
export const rootsTool: ToolDefinition = {
  name: 'list_roots',
  description: 'Asks the client for its roots.',
  inputSchema: { type: 'object', properties: {} },
  taskSupport: 'required',
  run: async (ctx) => answersEcho(await ctx.input({ roots: { method: 'roots/list' } })),
};

/** `authorize`: a URL-mode elicitation. */
export const urlTool: ToolDefinition = {
  name: 'authorize',
  description: 'Sends the user to a URL.',
  inputSchema: { type: 'object', properties: {} },
  taskSupport: 'required',
  run: async (ctx) =>
    answersEcho(
      await ctx.input({
        login: {
          method: 'elicitation/create',
          params: {
            mode: 'url',
            message: 'Sign in to the registry',
            url: 'https://example.com/login',
            elicitationId: 'e1',
          },
        },
      }),
    ),
};

/** Every fixture tool. */
export const fixtureTools = [surveyTool, samplingTool, rootsTool, urlTool];

/** The reference server with the fixture tools, and a temporary CLI home, for one test file. */
export interface CliServer {
  readonly server: TaskServer;
  readonly home: string;
}

/**
 * Registers the hooks of a CLI test file: builds the CLI if needed, starts the reference server (polls every
 * 100 ms) with {@link fixtureTools}, and cleans up leftover CLI processes and the server afterwards.
 */
export function useCliServer(): CliServer {
  let server: TaskServer | undefined;
  let home = '';
  beforeAll(async () => {
    await ensureCliBuilt();
    home = tempHome();
    server = await createTaskServer({
      pollIntervalMs: 100,
      ttlMs: 60_000,
      inputTimeoutMs: 30_000,
      catalog: { tools: fixtureTools },
    });
  }, 120_000);
  afterAll(async () => {
    await killLeftovers();
    await server?.close();
  });
  return {
    get server() {
      return server as TaskServer;
    },
    get home() {
      return home;
    },
  };
}
