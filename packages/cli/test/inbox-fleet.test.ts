/**
 * `mcp-tasks inbox --redis`: the inbox joins a Redis fleet as a listener (`runFleet({ claim: false })`); a question
 * of a task another worker holds is answered in the page (Chromium), recorded once for the fleet, and sent by the
 * lease holder: one `tasks/update`, and the task completes. Real redis-server and reference server on loopback.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '../../../src/index.js';
import { fleetEnv, type FleetEnv } from '../../../test/fleet/fleet-fixtures.js';
import { ensureCliBuilt, killLeftovers, tempHome } from './helpers.js';
import { launchBrowser, openInbox, startInbox, type RunningInbox } from './inbox-fixtures.js';

const SKIP = process.env.MCP_SKIP_BROWSER === '1';

describe.skipIf(SKIP)('mcp-tasks inbox over a Redis fleet', () => {
  let env: FleetEnv;
  let inbox: RunningInbox;
  let browser: Browser;

  beforeAll(async () => {
    await ensureCliBuilt();
    env = await fleetEnv({ leaseMs: 2_000, server: { pollIntervalMs: 100, inputTimeoutMs: 60_000 } });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await inbox?.stop();
    await env?.close();
    await killLeftovers();
  });

  it('answers a question of a task another worker holds; the holder sends it once', async () => {
    const holder = await env.worker('holder');
    holder.client.on('inputRequired', () => undefined); // declares elicitation; the holder never answers itself
    const fleet = holder.client.runFleet({ claimIntervalMs: 50 });
    const start = await fleet.startTool(
      'deploy_release',
      { version: '8.0.0' },
      { idempotencyKey: 'deploy-8' },
    );
    if (start.resultType !== 'task') throw new Error('expected a task');
    inbox = await startInbox(['--redis', env.redis.url, '--prefix', env.prefix], tempHome());
    const page = await openInbox(browser, inbox.link);
    const item = page.locator('li.task', { hasText: 'deploy_release' });
    const form = item.locator('form.question[data-key="confirm"]');
    await form.waitFor({ timeout: 20_000 });
    expect(await item.locator('.follower').textContent()).toBe('followed by: fleet');
    await form.locator('[data-field="confirm"] input').check();
    await form.locator('button.accept').click();
    await expect.poll(() => item.locator('.status').textContent(), { timeout: 20_000 }).toBe('completed');
    expect(await item.locator('.answer').textContent()).toMatch(/^\[confirm\] accept by browser-1 at /);
    const result = await holder.client.resultOf<CallToolResult>(start.taskId, { checkIntervalMs: 50 });
    expect(result.content).toEqual([{ type: 'text', text: 'deployed 8.0.0' }]);
    const updates = env.server.stats.taskUpdates(start.taskId);
    expect(updates.map((u) => u.inputResponses)).toEqual([
      { confirm: { action: 'accept', content: { confirm: true } } },
    ]);
    expect((await holder.store.get(start.taskId))?.answeredKeys).toEqual(['confirm']);
  }, 90_000);
});
