/**
 * Shared pieces of the inbox tests: the built CLI's `inbox` command as a child process, headless Chromium through
 * playwright-core (as test/browser does), and tasks started on the reference server by a client that records them
 * in the inbox's store and then goes away (so nobody follows them but the inbox).
 */
import { request } from 'node:http';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../../test/helpers/chromium.js';
import { StreamableHttpTransport, TaskClient } from '../../../src/index.js';
import { FileTaskStore } from '../../../src/file-store.js';
import type { TaskServer } from '../../../src/testing/index.js';
import { startCli, type CliProcess } from './helpers.js';

/** Launches headless Chromium (as test/browser does). */
export const launchBrowser = launchChromium;

/** A running `mcp-tasks inbox`. */
export interface RunningInbox {
  cli: CliProcess;
  /** e.g. http://127.0.0.1:43117 */
  base: string;
  /** The one-time sign-in link it printed. */
  link: string;
  stop(): Promise<void>;
}

/** Starts `mcp-tasks inbox …` and waits for its sign-in link. */
export async function startInbox(args: string[], home: string): Promise<RunningInbox> {
  const cli = startCli(['inbox', ...args], home);
  const match = await cli.waitFor(/Open \(the link works once\): (http:\/\/[^\s]+)/);
  const link = match[1] as string;
  return {
    cli,
    link,
    base: new URL(link).origin,
    async stop() {
      if (cli.child.exitCode === null) cli.child.kill('SIGINT');
      await cli.done;
    },
  };
}

/** Opens a page signed in with `link` (a fresh browser context: its own cookies). */
export async function openInbox(browser: Browser, link: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(link);
  await page.waitForSelector('#connection.live');
  return page;
}

/** Starts `tool` on the reference server through a client recording into `home`'s store, then closes the client. */
export async function startTask(
  server: TaskServer,
  home: string,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  const client = new TaskClient({
    transport: new StreamableHttpTransport(server.url),
    store: new FileTaskStore(join(home, 'tasks')),
    capabilities: { elicitation: { form: {}, url: {} } },
  });
  try {
    const start = await client.startTool(tool, args);
    if (start.resultType !== 'task') throw new Error(`${tool} answered inline`);
    return start.task.taskId;
  } finally {
    await client.close();
  }
}

/** The list item of a task on the page. */
export const taskItem = (page: Page, tool: string) => page.locator('li.task', { hasText: tool }).first();

/** A raw HTTP request (node:http, so Host and Origin can be set freely). */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
