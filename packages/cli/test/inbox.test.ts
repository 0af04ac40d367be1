/**
 * `mcp-tasks inbox` in a real browser (headless Chromium through playwright-core) against the reference server on
 * loopback: the built CLI serves the page over a temporary record store; tasks are started by a client that then
 * goes away, so the inbox follows them itself. A person answers, declines and cancels in the page; two browsers
 * race on one question; a hostile server's text stays text; requests without the session or from another origin
 * are refused.
 */
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTaskStore } from '../../../src/file-store.js';
import { StreamableHttpTransport, TaskClient } from '../../../src/index.js';
import { createTaskServer, elicitForm, textResult, type TaskServer } from '../../../src/testing/index.js';
import { ensureCliBuilt, killLeftovers, runCli, tempHome } from './helpers.js';
import {
  launchBrowser,
  openInbox,
  rawRequest,
  startInbox,
  startTask,
  taskItem,
  type RunningInbox,
} from './inbox-fixtures.js';

const SKIP = process.env.MCP_SKIP_BROWSER === '1';
const EVIL = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
const BIDI = 'abc\u202Egnp.exe\u2066';
/** A link that reads like Google's but leads to `аpple.com` written with a Cyrillic `а` (punycode `xn--pple-43d`). */
const DECEPTIVE = 'https://accounts.google.com@xn--pple-43d.com/login';

describe.skipIf(SKIP)('mcp-tasks inbox in Chromium (file store)', () => {
  let server: TaskServer;
  let home = '';
  let inbox: RunningInbox;
  let browser: Browser;
  const pages: Page[] = [];

  beforeAll(async () => {
    await ensureCliBuilt();
    home = tempHome();
    server = await createTaskServer({
      pollIntervalMs: 100,
      ttlMs: 120_000,
      inputTimeoutMs: 60_000,
      catalog: {
        tools: [
          {
            name: 'link_account',
            description: 'asks the person to visit a deceptive link and a plain one',
            inputSchema: { type: 'object', properties: {} },
            taskSupport: 'required',
            run: async (ctx) => {
              const answers = await ctx.input({
                deceptive: {
                  method: 'elicitation/create',
                  params: { mode: 'url', message: 'Sign in', url: DECEPTIVE, elicitationId: 'e-1' },
                },
                plain: {
                  method: 'elicitation/create',
                  params: {
                    mode: 'url',
                    message: 'Pay',
                    url: 'https://pay.example/checkout',
                    elicitationId: 'e-2',
                  },
                },
              });
              return textResult('linked', { structuredContent: { answers } });
            },
          },
          {
            name: `hostile${EVIL}${BIDI}`,
            description: 'text fields full of markup',
            inputSchema: { type: 'object', properties: {} },
            taskSupport: 'required',
            run: async (ctx) => {
              ctx.report(`status ${EVIL} ${BIDI} <a href="javascript:window.__pwned=3">click</a>`);
              await ctx.sleep(20);
              const answers = await ctx.input({
                [`form${EVIL}`]: elicitForm(`question ${EVIL} ${BIDI}`, {
                  pick: {
                    type: 'string',
                    title: `title ${EVIL}${BIDI}`,
                    description: `description ${EVIL}`,
                    oneOf: [
                      { const: 'a', title: `enum ${EVIL}` },
                      { const: '<b>b</b>', title: `javascript:window.__pwned=4 ${BIDI}` },
                    ],
                  },
                }),
                visit: {
                  method: 'elicitation/create',
                  params: {
                    mode: 'url',
                    message: `go ${EVIL}`,
                    url: 'javascript:window.__pwned=5',
                    elicitationId: 'e-js',
                  },
                },
              });
              return textResult('done', { structuredContent: { answers } });
            },
          },
        ],
      },
    });
    browser = await launchBrowser();
    inbox = await startInbox([], home);
    pages.push(await openInbox(browser, inbox.link));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await inbox?.stop();
    await server?.close();
    await killLeftovers();
  });

  it('answers a deploy_release question in the page; the task completes and the record keeps the answer', async () => {
    const page = pages[0] as Page;
    const taskId = await startTask(server, home, 'deploy_release', { version: '7.1.0' });
    const item = taskItem(page, 'deploy_release');
    const form = item.locator('form.question[data-key="confirm"]');
    await form.waitFor({ timeout: 20_000 });
    expect(await form.locator('.question-text').textContent()).toBe('Deploy 7.1.0 to production?');
    // Page-side validation: the required checkbox is a boolean, so the form is valid once a note is typed
    await form.locator('[data-field="confirm"] input').check();
    await form.locator('[data-field="note"] input').fill('approved in the inbox');
    await form.locator('button.accept').click();
    await expect.poll(() => item.locator('.status').textContent(), { timeout: 20_000 }).toBe('completed');
    expect(await item.locator('.page-note').textContent()).toMatch(
      /^The server took the answer \(accept\) at /,
    );
    expect(await item.locator('.answer').textContent()).toMatch(
      /^\[confirm\] accept by browser-1 at .*taken by the server at/,
    );
    const updates = server.stats.taskUpdates(taskId);
    expect(updates.map((u) => u.inputResponses)).toEqual([
      { confirm: { action: 'accept', content: { confirm: true, note: 'approved in the inbox' } } },
    ]);
    const stored = () => new FileTaskStore(join(home, 'tasks')).get(taskId);
    // The acknowledgement of tasks/update and the poll that saw the end may land in either order
    await expect.poll(async () => (await stored())?.answeredKeys).toEqual(['confirm']);
    const record = await stored();
    expect(record?.outcome).toMatchObject({ status: 'completed' });
    expect(record?.answers).toEqual([
      { key: 'confirm', action: 'accept', answeredBy: 'browser-1', answeredAt: expect.any(Number) },
    ]);
    // Nobody awaited it: it waits for a person, in the page and in `ls --uncollected`
    expect(record?.uncollected).toBe(true);
    expect(await item.locator('.badge.uncollected').count()).toBe(1);
    const listed = async () =>
      (await runCli(['ls', '--uncollected', '--json'], home)).stdout
        .split('\n')
        .filter((line) => line.includes(taskId))
        .map((line) => JSON.parse(line) as { uncollected?: boolean });
    expect(await listed()).toEqual([expect.objectContaining({ uncollected: true })]);
    await item.locator('button.open-details').click();
    await expect.poll(() => page.locator('#details-outcome').textContent()).toContain('deployed 7.1.0');
    await page.locator('#close-details').click();
    await expect.poll(() => item.locator('.badge.uncollected').count()).toBe(0);
    expect((await new FileTaskStore(join(home, 'tasks')).get(taskId))?.uncollected).toBeUndefined();
    expect(await listed()).toEqual([]);
  }, 60_000);

  it('declines a question: the server gets decline and ends the task', async () => {
    const page = pages[0] as Page;
    const taskId = await startTask(server, home, 'deploy_release', { version: '7.2.0' });
    const item = page
      .locator('li.task', { hasText: 'deploy_release' })
      .filter({ has: page.locator('form.question') });
    await item.locator('form.question button.decline').click({ timeout: 20_000 });
    await expect
      .poll(async () => (await new FileTaskStore(join(home, 'tasks')).get(taskId))?.outcome?.status, {
        timeout: 20_000,
      })
      .toBe('completed');
    expect(server.stats.taskUpdates(taskId).map((u) => u.inputResponses)).toEqual([
      { confirm: { action: 'decline' } },
    ]);
  }, 60_000);

  it('cancels a running task: "cancel requested" until the server says cancelled', async () => {
    const page = pages[0] as Page;
    const taskId = await startTask(server, home, 'reindex_corpus', { documents: 1_000_000 });
    const item = taskItem(page, 'reindex_corpus');
    await item.locator('button.cancel-task').waitFor({ timeout: 20_000 });
    await item.evaluate((li) => {
      const seen: string[] = [];
      (window as unknown as { __seen: string[] }).__seen = seen;
      const note = () => {
        const text = li.querySelector('.status')?.textContent ?? '';
        if (seen.at(-1) !== text) seen.push(text);
      };
      note();
      new MutationObserver(note).observe(li, { subtree: true, childList: true, characterData: true });
    });
    await item.locator('button.cancel-task').click();
    await expect.poll(() => item.locator('.status').textContent(), { timeout: 20_000 }).toBe('cancelled');
    const seen = await page.evaluate(() => (window as unknown as { __seen: string[] }).__seen);
    expect(seen).toEqual(['working', 'cancel requested', 'cancelled']);
    expect(server.stats.count('tasks/cancel')).toBe(1);
    const record = await new FileTaskStore(join(home, 'tasks')).get(taskId);
    expect(record?.outcome).toEqual({ status: 'cancelled' });
  }, 60_000);

  it('two browsers answering the same question send one tasks/update', async () => {
    const first = pages[0] as Page;
    await first.locator('#new-link').click();
    await expect
      .poll(() => first.locator('#link').textContent())
      .toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login\?token=/);
    const second = await openInbox(browser, (await first.locator('#link').textContent()) as string);
    pages.push(second);
    const taskId = await startTask(server, home, 'deploy_release', { version: '7.3.0' });
    const forms = [first, second].map((p) =>
      p.locator('li.task', { hasText: 'deploy_release' }).locator('form.question[data-key="confirm"]'),
    );
    await Promise.all(forms.map((f) => f.waitFor({ timeout: 20_000 })));
    for (const f of forms) await f.locator('[data-field="confirm"] input').check();
    // Both answers leave their browsers before either reaches the inbox: otherwise the first answer can re-render
    // the second page (question gone) before its click lands, and the race this test is about never happens.
    const held: Array<() => Promise<void>> = [];
    let bothHeld: () => void = () => undefined;
    const answersHeld = new Promise<void>((resolve) => {
      bothHeld = resolve;
    });
    for (const p of [first, second]) {
      await p.route('**/api/answer', async (route) => {
        held.push(() => route.continue());
        if (held.length === 2) bothHeld();
      });
    }
    await Promise.all(forms.map((f) => f.locator('button.accept').click({ noWaitAfter: true })));
    await answersHeld;
    await Promise.all(held.map((send) => send()));
    for (const p of [first, second]) await p.unroute('**/api/answer');
    await expect
      .poll(async () => (await new FileTaskStore(join(home, 'tasks')).get(taskId))?.outcome?.status, {
        timeout: 20_000,
      })
      .toBe('completed');
    expect(server.stats.taskUpdates(taskId)).toHaveLength(1);
    const notes = await Promise.all(
      [first, second].map((p) =>
        p.locator('li.task', { hasText: 'deploy_release' }).first().locator('.page-note').textContent(),
      ),
    );
    expect(notes.filter((n) => n?.startsWith('The server took the answer')).length).toBe(1);
    expect(notes.filter((n) => n === 'This question was already answered elsewhere.').length).toBe(1);
  }, 60_000);

  // Needs the file store's follower leases (one follower per task across processes)
  const leases = 'leases' in new FileTaskStore(tmpdir());
  it.runIf(leases)(
    'a task another process follows gets the answer through the store; that process sends it',
    async () => {
      const page = pages[0] as Page;
      // A host following its own task (it holds the task's lease in the shared store) and asking nobody
      const host = new TaskClient({
        transport: new StreamableHttpTransport(server.url),
        store: new FileTaskStore(join(home, 'tasks')),
        capabilities: { elicitation: { form: {} } },
      });
      host.on('inputRequired', () => undefined);
      try {
        const start = await host.startTool('deploy_release', { version: '7.4.0' });
        if (start.resultType !== 'task') throw new Error('expected a task');
        const outcome = start.task.result();
        const item = page
          .locator('li.task', { hasText: 'deploy_release' })
          .filter({ has: page.locator('form.question') });
        await item
          .locator('form.question[data-key="confirm"] [data-field="confirm"] input')
          .check({ timeout: 20_000 });
        expect(await item.locator('.follower').textContent()).toMatch(/^followed by: other \(.+\)$/);
        await item.locator('form.question button.accept').click();
        const result = await outcome;
        expect(result.content).toEqual([{ type: 'text', text: 'deployed 7.4.0' }]);
        expect(server.stats.taskUpdates(start.task.taskId).map((u) => u.inputResponses)).toEqual([
          { confirm: { action: 'accept', content: { confirm: true } } },
        ]);
        const record = await new FileTaskStore(join(home, 'tasks')).get(start.task.taskId);
        expect(record?.answers).toEqual([
          {
            key: 'confirm',
            action: 'accept',
            answeredBy: expect.stringMatching(/^browser-\d$/),
            answeredAt: expect.any(Number),
          },
        ]);
        expect(record?.uncollected).toBeUndefined(); // the host awaited it
      } finally {
        await host.close();
      }
    },
    60_000,
  );

  it("a hostile server's markup, javascript: links and bidi controls stay inert text", async () => {
    const page = pages[0] as Page;
    await startTask(server, home, `hostile${EVIL}${BIDI}`);
    const item = page.locator('li.task', { hasText: 'hostile' });
    await item.locator('form.question').nth(1).waitFor({ timeout: 20_000 });
    const dom = await page.evaluate(() => ({
      scripts: [...document.querySelectorAll('script')].map((s) => s.getAttribute('src')),
      images: document.querySelectorAll('img').length,
      bolds: document.querySelectorAll('li.task b').length,
      links: [...document.querySelectorAll('a')].map((a) => a.getAttribute('href')),
      pwned: (window as unknown as { __pwned?: number }).__pwned,
      text: document.querySelector('ol#tasks')?.textContent ?? '',
      options: [...document.querySelectorAll('select option')].map((o) => [
        (o as HTMLOptionElement).value,
        o.textContent,
      ]),
    }));
    expect(dom.scripts).toEqual(['/app.js']);
    expect(dom.images).toBe(0);
    expect(dom.bolds).toBe(0);
    expect(dom.links).toEqual([]); // the javascript: URL is shown, never linked
    expect(dom.pwned).toBeUndefined();
    expect(dom.text).toContain(`hostile${EVIL}abc\\u202egnp.exe\\u2066`); // the tool name, as text
    expect(dom.text).toContain(`status ${EVIL}`);
    expect(dom.text).toContain(`question ${EVIL}`);
    expect(dom.text).toContain(`title ${EVIL}`);
    expect(dom.text).toContain('Opens a page on (no host: a javascript: URL)');
    expect(dom.text).toContain('javascript:window.__pwned=5 (not an http(s) link: not opened)');
    expect(dom.text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(dom.options).toEqual([
      ['', ''],
      ['a', `enum ${EVIL}`],
      ['<b>b</b>', 'javascript:window.__pwned=4 abc\\u202egnp.exe\\u2066'],
    ]);
    // Opening the details shows the record as text too
    await item.locator('button.open-details').click();
    await expect
      .poll(() => page.locator('#details-record').textContent())
      .toContain('<script>window.__pwned = 1</script>');
    expect(await page.locator('#details-record').textContent()).toContain('abc\\u202egnp.exe\\u2066');
    expect(await page.evaluate(() => document.querySelectorAll('img, dialog script').length)).toBe(0);
    await page.locator('#close-details').click();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  }, 60_000);

  it('a URL question warns before its link about a host-like user name and a non-ASCII host (4.6a)', async () => {
    const page = pages[0] as Page;
    await startTask(server, home, 'link_account');
    const item = taskItem(page, 'link_account');
    const deceptive = item.locator('form.question[data-key="deceptive"]');
    await deceptive.waitFor({ timeout: 20_000 });
    const warnings = [
      `warning: the host is written with non-ASCII letters (\u0430pple.com); the real host is xn--pple-43d.com. Letters of other scripts can look exactly like Latin ones: open it only if xn--pple-43d.com is the site you expect.`,
      'warning: "accounts.google.com" before the @ is a user name, not the site: this URL leads to xn--pple-43d.com.',
    ];
    // The page, in reading order: the host, the warnings (prominent, announced), then the link
    const shown = await deceptive.evaluate((form) =>
      [...form.querySelectorAll('.url-host, .url-warnings, .url-warning, .url-text')].map((node) => [
        node.className,
        node.className === 'url-warnings' ? node.getAttribute('role') : node.textContent,
      ]),
    );
    expect(shown).toEqual([
      ['url-host', 'Opens a page on xn--pple-43d.com'],
      ['url-warnings', 'alert'],
      ['url-warning', warnings[0]],
      ['url-warning', warnings[1]],
      ['url-text', DECEPTIVE],
    ]);
    expect(await deceptive.locator('a.url-text').getAttribute('href')).toBe(DECEPTIVE);
    // A plain https link carries no warning and may be accepted
    const plain = item.locator('form.question[data-key="plain"]');
    expect(await plain.locator('.url-warning').count()).toBe(0);
    expect(await plain.locator('button').allTextContents()).toEqual(['Done (accept)', 'Decline', 'Cancel']);
    // /api/tasks carries the same warnings, as text
    const api = await page.evaluate(async () => (await fetch('/api/tasks')).json());
    const questions = (
      api as { tasks: { tool: string; questions: { key: string; urlWarnings?: string[] }[] }[] }
    ).tasks
      .find((t) => t.tool === 'link_account')
      ?.questions.map((q) => [q.key, q.urlWarnings]);
    expect(questions).toEqual([
      ['deceptive', warnings],
      ['plain', []],
    ]);
  }, 60_000);

  it('a javascript: URL question offers decline and cancel only; an accept sent anyway is refused (4.6)', async () => {
    const page = pages[0] as Page;
    await startTask(server, home, `hostile${EVIL}${BIDI}`);
    const item = page.locator('li.task', { hasText: 'hostile' }).first();
    const visit = item.locator('form.question[data-key="visit"]');
    await visit.waitFor({ timeout: 20_000 });
    expect(await visit.locator('button').allTextContents()).toEqual(['Decline', 'Cancel']);
    expect(await visit.locator('.url-warning').allTextContents()).toEqual([
      'warning: a javascript: URL; only http and https URLs are opened',
    ]);
    // Enter in the form submits nothing
    await visit.evaluate((form) => (form as HTMLFormElement).requestSubmit());
    // The inbox server refuses an accept the page would not offer
    const id = await item.getAttribute('data-id');
    const refused = await page.evaluate(async (taskId) => {
      const csrf = document.querySelector<HTMLMetaElement>('meta[name="inbox-csrf"]')?.content ?? '';
      const response = await fetch('/api/answer', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Inbox-CSRF': csrf },
        body: JSON.stringify({ id: taskId, key: 'visit', action: 'accept' }),
      });
      return [response.status, await response.json()];
    }, id);
    expect(refused).toEqual([
      422,
      {
        result: 'invalid',
        problems: ['this URL is not opened (only http and https URLs are): decline or cancel instead'],
      },
    ]);
    expect(await item.locator('.page-note').count()).toBe(0);
    expect(await visit.count()).toBe(1); // still open: neither the page nor the server answered it
  }, 60_000);

  it('refuses requests without the session, reused links, other hosts and cross-origin posts', async () => {
    const page = pages[0] as Page;
    expect((await rawRequest(`${inbox.base}/`)).status).toBe(401);
    expect((await rawRequest(`${inbox.base}/api/tasks`)).status).toBe(401);
    expect((await rawRequest(`${inbox.base}/events`)).status).toBe(401);
    expect((await rawRequest(inbox.link)).status).toBe(403); // the printed link was spent by the first page
    // A fresh link for this check, exchanged for a cookie outside the browser
    // The page may still show the link made for the second browser (already spent): wait for a new one
    const spent = (await page.locator('#link').textContent()) ?? '';
    await page.locator('#new-link').click();
    await expect
      .poll(async () => {
        const shown = (await page.locator('#link').textContent()) ?? '';
        return shown !== spent && /token=/.test(shown);
      })
      .toBe(true);
    const link = (await page.locator('#link').textContent()) as string;
    const login = await rawRequest(link);
    expect(login.status).toBe(303);
    const setCookie = String(login.headers['set-cookie']);
    expect(setCookie).toMatch(/^mcp_inbox_\d+=[\w-]+; HttpOnly; SameSite=Strict; Path=\/$/);
    const cookie = setCookie.split(';')[0] as string;
    const shell = await rawRequest(`${inbox.base}/`, { headers: { cookie } });
    expect(shell.status).toBe(200);
    expect(shell.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(shell.headers['referrer-policy']).toBe('no-referrer');
    const csrf = /name="inbox-csrf" content="([\w-]+)"/.exec(shell.body)?.[1] as string;
    const port = new URL(inbox.base).port;
    // DNS rebinding: a hostile name resolving to 127.0.0.1 sends its own Host
    expect(
      (await rawRequest(`${inbox.base}/api/tasks`, { headers: { cookie, host: `evil.example:${port}` } }))
        .status,
    ).toBe(421);
    const post = (headers: Record<string, string>) =>
      rawRequest(`${inbox.base}/api/link`, { method: 'POST', headers: { cookie, ...headers }, body: '{}' });
    const json = { 'content-type': 'application/json' };
    expect((await post({ ...json, origin: inbox.base, 'x-inbox-csrf': csrf })).status).toBe(200);
    expect((await post({ ...json, origin: 'http://evil.example', 'x-inbox-csrf': csrf })).status).toBe(403);
    expect((await post({ ...json, 'x-inbox-csrf': csrf })).status).toBe(403); // no Origin
    expect((await post({ ...json, origin: inbox.base })).status).toBe(403); // no CSRF token
    expect(
      (await post({ origin: inbox.base, 'x-inbox-csrf': csrf, 'content-type': 'text/plain' })).status,
    ).toBe(415);
    expect(
      (
        await rawRequest(`${inbox.base}/api/link`, {
          headers: { cookie, origin: inbox.base, 'x-inbox-csrf': csrf },
        })
      ).status,
    ).toBe(404); // a GET changes nothing
    // From a page of another origin in the browser: another port of 127.0.0.1 is the same site, so the
    // SameSite=Strict cookie is sent with a POST that needs no preflight; the foreign Origin is refused
    const running = await startTask(server, home, 'reindex_corpus', { documents: 1_000_000 });
    await taskItem(page, 'reindex_corpus').locator('button.cancel-task').waitFor({ timeout: 20_000 });
    const id = await taskItem(page, 'reindex_corpus').getAttribute('data-id');
    const cancels = server.stats.count('tasks/cancel');
    const otherSite = createServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>other</title>'),
    );
    await new Promise<void>((resolve) => otherSite.listen(0, '127.0.0.1', resolve));
    const other = await page.context().newPage();
    await other.goto(`http://127.0.0.1:${(otherSite.address() as AddressInfo).port}/`);
    const type = await other.evaluate(
      async ([base, taskKey]) => {
        try {
          const r = await fetch(`${base}/api/cancel`, {
            method: 'POST',
            credentials: 'include',
            mode: 'no-cors',
            headers: { 'Content-Type': 'text/plain' },
            body: JSON.stringify({ id: taskKey }),
          });
          return r.type;
        } catch (error) {
          return String(error);
        }
      },
      [inbox.base, id] as const,
    );
    expect(type).toBe('TypeError: Failed to fetch'); // refused, and Cross-Origin-Resource-Policy hides even that
    await new Promise((r) => setTimeout(r, 500));
    expect(server.stats.count('tasks/cancel')).toBe(cancels);
    expect((await new FileTaskStore(join(home, 'tasks')).get(running))?.cancelRequested).toBeUndefined();
    await other.close();
    otherSite.close();
  }, 60_000);
});

describe('the inbox script', () => {
  it('is bundled with the CLI and builds the page from text only (no innerHTML, no eval)', async () => {
    await ensureCliBuilt();
    const script = await readFile(new URL('../dist/inbox-app.js', import.meta.url), 'utf8');
    expect(script).not.toMatch(
      /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/,
    );
  });
});
