/**
 * The client in a real browser: headless Debian Chromium, driven by playwright-core, opens a page served
 * from loopback whose script (the client bundled for the browser by esbuild) calls the reference server on another
 * origin (CORS, preflights with the Mcp-* headers), gets a `deploy_release` task, answers its one `input_required`
 * with a click, and shows the result; the test reads it from the DOM. On failure a screenshot is saved to
 * `test-artifacts/`. Without Chromium the test fails and says how to install it; `MCP_SKIP_BROWSER=1` skips it.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { CHROMIUM, launchChromium } from '../helpers/chromium.js';

const SKIP = process.env.MCP_SKIP_BROWSER === '1';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcp-tasks-client browser test</title></head>
<body>
  <h1>deploy_release</h1>
  <p>Task: <code id="task"></code> · Status: <span id="status">loading</span></p>
  <p id="question"></p>
  <button id="approve" hidden disabled>Approve</button>
  <pre id="result"></pre>
  <pre id="error"></pre>
  <script type="module" src="/app.js"></script>
</body></html>`;

describe.skipIf(SKIP)('the client in a real browser (Chromium, playwright-core)', () => {
  let pageServer: Server;
  let taskServer: TaskServer;
  let browser: Browser;
  let origin = '';
  const consoleLines: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium not found at ${CHROMIUM}. Install it (Debian: \`apt-get update && apt-get install -y chromium\`), ` +
          'set MCP_CHROMIUM_PATH to another binary, or set MCP_SKIP_BROWSER=1 to skip the browser test.',
      );
    }
    const bundle = await build({
      entryPoints: [fileURLToPath(new URL('./page/app.ts', import.meta.url))],
      absWorkingDir: ROOT,
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    const js = bundle.outputFiles[0]?.text ?? '';
    pageServer = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path === '/') res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(HTML);
      else if (path === '/app.js')
        res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(js);
      else if (path === '/favicon.ico') res.writeHead(204).end();
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
    taskServer = await createTaskServer({ cors: origin, pollIntervalMs: 100, inputTimeoutMs: 15_000 });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await taskServer?.close();
    await new Promise((resolve) => (pageServer ? pageServer.close(resolve) : resolve(undefined)));
  });

  /** Runs `body`; on failure saves a screenshot and adds the page's console to the error. */
  async function withScreenshot(page: Page, name: string, body: () => Promise<void>): Promise<void> {
    try {
      await body();
    } catch (error) {
      await mkdir(ARTIFACTS, { recursive: true });
      const file = `${ARTIFACTS}${name}.png`;
      await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      const detail = `\nscreenshot: ${file}\npage console:\n${consoleLines.join('\n') || '(empty)'}`;
      if (error instanceof Error) error.message += detail;
      throw error;
    }
  }

  it('completes a deploy_release task whose input_required is answered by a click', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => consoleLines.push(`[pageerror] ${e.message}`));
    const crossOrigin: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(taskServer.url))
        crossOrigin.push(`${r.method()} ${r.headers()['mcp-method'] ?? ''}`.trim());
    });
    try {
      await withScreenshot(page, 'browser-deploy-release', async () => {
        await page.goto(`${origin}/?server=${encodeURIComponent(taskServer.url)}`);
        const approve = page.locator('#approve:enabled');
        await approve.waitFor({ state: 'visible', timeout: 10_000 });
        expect(await page.textContent('#question')).toMatch(/2\.0\.0/);
        expect(await page.textContent('#status')).toBe('input_required');
        await approve.click();
        await page.waitForFunction(
          () =>
            (document.getElementById('result')?.textContent ?? '') !== '' ||
            (document.getElementById('error')?.textContent ?? '') !== '',
          undefined,
          {
            timeout: 10_000,
          },
        );
        expect(await page.textContent('#error')).toBe('');
        expect(await page.textContent('#result')).toMatch(/^deployed 2\.0\.0$/i);
        expect(await page.textContent('#status')).toBe('completed');
        const taskId = (await page.textContent('#task')) ?? '';
        expect(taskId).not.toBe('');
        expect(taskServer.stats.taskUpdates(taskId)).toHaveLength(1);
        expect(taskServer.stats.taskUpdates(taskId)[0]?.inputResponses).toEqual({
          confirm: { action: 'accept', content: { confirm: true } },
        });
        expect(crossOrigin).toEqual(
          expect.arrayContaining(['POST tools/call', 'POST tasks/get', 'POST tasks/update']),
        );
      });
    } finally {
      await context.close();
    }
  });
});

describe('CORS of the reference server for browser pages', () => {
  it('answers a preflight for the Mcp-* headers and rejects other origins', async () => {
    const page = 'http://127.0.0.1:5173';
    const server = await createTaskServer({ cors: page });
    try {
      const preflight = await fetch(server.url, {
        method: 'OPTIONS',
        headers: {
          Origin: page,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers':
            'content-type,mcp-method,mcp-name,mcp-protocol-version,authorization',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(page);
      expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('mcp-method');
      const other = await fetch(server.url, {
        method: 'POST',
        headers: { Origin: 'https://evil.example', 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(other.status).toBe(403);
    } finally {
      await server.close();
    }
  });
});
