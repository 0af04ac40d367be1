/**
 * Shared pieces of the durability tests: extra reference-server tools, a temporary store folder, and small waits.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { StreamableHttpTransport, TaskClient, type TaskClientOptions } from '../../src/index.js';
import {
  createTaskServer,
  elicitForm,
  readElicitAnswer,
  stringArg,
  textResult,
  type TaskServer,
  type TaskServerOptions,
  type ToolDefinition,
} from '../../src/testing/index.js';
import { createFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import '../helpers/no-jitter.js';

/**
 * `two_step_release {version}`: task-only; 100 ms, asks `approve`, 300 ms, asks `window`, 50 ms, completes with
 * "released <version>". Two questions in sequence, so a crash can fall between an answered one and an open one.
 */
export const twoStepRelease: ToolDefinition = {
  name: 'two_step_release',
  description: 'Asks for approval, works, asks for a deployment window, then finishes.',
  inputSchema: { type: 'object', properties: { version: { type: 'string' } }, required: ['version'] },
  annotations: { destructiveHint: true, idempotentHint: false },
  taskSupport: 'required',
  requiredCapabilities: ['elicitation'],
  run: async (ctx) => {
    const version = stringArg(ctx.args, 'version');
    await ctx.sleep(100);
    const approve = await ctx.input({
      approve: elicitForm(`Approve ${version}?`, { confirm: { type: 'boolean' } }, ['confirm']),
    });
    if (readElicitAnswer(approve.approve).content.confirm !== true)
      return textResult(`${version} not approved`, { isError: true });
    ctx.report(`approved ${version}`);
    await ctx.sleep(300);
    const window = await ctx.input({
      window: elicitForm(`Window for ${version}?`, { confirm: { type: 'boolean' } }, ['confirm']),
    });
    if (readElicitAnswer(window.window).content.confirm !== true)
      return textResult(`${version}: no window`, { isError: true });
    await ctx.sleep(50);
    return textResult(`released ${version}`);
  },
};

/**
 * `send_invoice {to}`: no annotations at all (neither `idempotentHint` nor `readOnlyHint`), so a client may not
 * re-send it without a key. Works `ms` (default 800) nominal milliseconds.
 */
export const sendInvoice: ToolDefinition = {
  name: 'send_invoice',
  description: 'Sends an invoice. Not idempotent: every call sends one.',
  inputSchema: {
    type: 'object',
    properties: { to: { type: 'string' }, ms: { type: 'number' } },
    required: ['to'],
  },
  run: async (ctx) => {
    const to = stringArg(ctx.args, 'to');
    const ms = typeof ctx.args.ms === 'number' ? ctx.args.ms : 800;
    await ctx.sleep(ms);
    return textResult(`invoice sent to ${to}`, { structuredContent: { to } });
  },
};

/** A fresh temporary folder; `remove()` deletes it. */
export async function tempDir(prefix: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `mcp-tasks-${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** The text of a `CallToolResult`. */
export function textOf(result: { content?: Array<Record<string, unknown>> }): string {
  return (result.content ?? []).map((c) => String(c.text ?? '')).join('');
}

/** A reference server behind a fresh fault proxy per test, and clients that talk through the proxy. */
export interface ProxiedServer {
  readonly server: TaskServer;
  readonly proxy: FaultProxy;
  /** A client through the proxy (jitter off); closed after each test. */
  newClient(options?: Partial<TaskClientOptions>): TaskClient;
}

/**
 * Registers the vitest hooks for a suite: one server (`options`) for the file, one proxy per test, every client
 * closed after its test.
 */
export function useProxiedServer(
  options: TaskServerOptions,
  clientDefaults: Partial<TaskClientOptions> = {},
): ProxiedServer {
  let server: TaskServer | undefined;
  let proxy: FaultProxy | undefined;
  const clients: TaskClient[] = [];
  beforeAll(async () => {
    server = await createTaskServer(options);
  });
  beforeEach(async () => {
    proxy = await createFaultProxy((server as TaskServer).url);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await proxy?.close();
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    get server() {
      return server as TaskServer;
    },
    get proxy() {
      return proxy as FaultProxy;
    },
    newClient(overrides = {}) {
      const client = new TaskClient({
        transport: new StreamableHttpTransport((proxy as FaultProxy).url),
        ...clientDefaults,
        ...overrides,
      });
      clients.push(client);
      return client;
    },
  };
}
