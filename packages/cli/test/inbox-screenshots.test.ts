/**
 * The screenshots of docs/inbox.md (`INBOX_SCREENSHOTS=1 npx vitest run packages/cli/test/inbox-screenshots.test.ts`):
 * the list with a question waiting, a task running and tasks that ended, and a form with every field kind. Skipped
 * otherwise; the behaviour is tested in inbox.test.ts.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createTaskServer, type TaskServer } from '../../../src/testing/index.js';
import { surveyTool } from './fixtures.js';
import { ensureCliBuilt, killLeftovers, tempHome } from './helpers.js';
import { launchBrowser, openInbox, startInbox, startTask, type RunningInbox } from './inbox-fixtures.js';

const IMAGES = fileURLToPath(new URL('../../../docs/images/', import.meta.url));

describe.runIf(process.env.INBOX_SCREENSHOTS === '1')('inbox screenshots for docs/inbox.md', () => {
  let server: TaskServer | undefined;
  let inbox: RunningInbox | undefined;
  afterAll(async () => {
    await inbox?.stop();
    await server?.close();
    await killLeftovers();
  });

  it('takes the list and a question', async () => {
    await ensureCliBuilt();
    const home = tempHome();
    server = await createTaskServer({
      pollIntervalMs: 200,
      ttlMs: 900_000,
      inputTimeoutMs: 600_000,
      catalog: { tools: [surveyTool] },
    });
    await startTask(server, home, 'flaky_job');
    await startTask(server, home, 'reindex_corpus', { documents: 300_000 });
    await startTask(server, home, 'deploy_release', { version: '2.4.0' });
    await startTask(server, home, 'survey');
    inbox = await startInbox([], home);
    const browser = await launchBrowser();
    try {
      const page = await openInbox(browser, inbox.link);
      await page.setViewportSize({ width: 1100, height: 900 });
      await page.locator('form.question[data-key="profile"]').waitFor({ timeout: 20_000 });
      await page.locator('form.question[data-key="confirm"]').waitFor({ timeout: 20_000 });
      await expect
        .poll(() => page.locator('li.task', { hasText: 'flaky_job' }).locator('.status').textContent())
        .toBe('failed');
      await page.screenshot({ path: `${IMAGES}inbox-list.png`, fullPage: true });
      const survey = page.locator('li.task', { hasText: 'survey' });
      await survey.locator('[data-field="name"] input').fill('spring');
      await survey.locator('[data-field="contact"] input').fill('not-an-email');
      await survey.locator('button.accept').click();
      await expect
        .poll(() => survey.locator('.problems').textContent())
        .toContain('contact: must be an email address');
      await survey.screenshot({ path: `${IMAGES}inbox-question.png` });
    } finally {
      await browser.close();
    }
  }, 120_000);
});
