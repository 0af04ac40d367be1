/**
 * Shared pieces of the durability tests: extra reference-server tools, a temporary store folder, and small waits.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { elicitForm, readElicitAnswer, stringArg, textResult, type ToolDefinition } from '../../src/testing/index.js';

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
    const approve = await ctx.input({ approve: elicitForm(`Approve ${version}?`, { confirm: { type: 'boolean' } }, ['confirm']) });
    if (readElicitAnswer(approve.approve).content.confirm !== true) return textResult(`${version} not approved`, { isError: true });
    ctx.report(`approved ${version}`);
    await ctx.sleep(300);
    const window = await ctx.input({ window: elicitForm(`Window for ${version}?`, { confirm: { type: 'boolean' } }, ['confirm']) });
    if (readElicitAnswer(window.window).content.confirm !== true) return textResult(`${version}: no window`, { isError: true });
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
  inputSchema: { type: 'object', properties: { to: { type: 'string' }, ms: { type: 'number' } }, required: ['to'] },
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
