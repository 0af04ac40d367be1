/**
 * URL-mode elicitation: show the server's message, the URL and where it really leads (see {@link urlTarget}), ask
 * before opening it (never open without consent),
 * then ask how it went (accept / decline / cancel).
 *
 * @module
 */
import { safeLine, safeText } from 'mcp-tasks-client';
import { spawn } from 'node:child_process';
import { confirm, select } from '@inquirer/prompts';
import type { ElicitRequestParams, ElicitResult } from 'mcp-tasks-client';
import type { PromptContext } from './form-prompt.js';
import { urlTarget } from './url-target.js';

/** Opens `url` with the platform's opener, detached. Only `http:` and `https:` URLs are opened. */
export function openInBrowser(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [parsed.href]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', parsed.href]]
        : ['xdg-open', [parsed.href]];
  try {
    const child = spawn(command, args as string[], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs a URL-mode elicitation with a person.
 *
 * @param open how to open the URL once the person agreed. @default openInBrowser
 */
export async function promptUrl(
  params: ElicitRequestParams,
  ctx: PromptContext,
  open: (url: string) => boolean = openInBrowser,
): Promise<ElicitResult> {
  const url = params.url ?? '';
  const out = ctx.output ?? process.stdout;
  // The full URL as the server sent it, and beside it where it really leads (with any warning), before any question.
  const target = urlTarget(url);
  out.write(
    `The server asks you to visit a URL:\n  ${safeText(params.message)}\n  ${safeLine(url)}\n${target.lines.map((line) => `  ${line}\n`).join('')}`,
  );
  const consent =
    target.openable &&
    (await confirm(
      { message: `Open this URL in your browser? (it leads to ${target.host})`, default: false },
      ctx,
    ));
  if (consent) out.write(open(url) ? 'Opened it.\n' : 'Could not open it; copy it into a browser.\n');
  else out.write('Not opened.\n');
  const action = await select(
    {
      message: 'When you are done:',
      choices: [
        { name: 'Accept (I completed it)', value: 'accept' as const },
        { name: 'Decline', value: 'decline' as const },
        { name: 'Cancel (dismiss without choosing)', value: 'cancel' as const },
      ],
    },
    ctx,
  );
  return { action };
}
