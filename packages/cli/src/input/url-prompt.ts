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

/** How a URL is handed to the platform's opener: a program and its argument vector, run without a shell. */
export interface OpenCommand {
  command: string;
  args: string[];
}

/**
 * The argument vector that opens `url` on `platform`. No command interpreter ever parses the URL: it is one argument
 * to a launcher that takes it as data (`open` on macOS, `xdg-open` elsewhere, and on Windows `rundll32` with
 * `url.dll,FileProtocolHandler`, the shell's URL handler, instead of `cmd /c start`, where `&`, `|` and `^` in a
 * server's URL would run commands). Only `http:` and `https:` URLs are opened; anything else gives `undefined`.
 */
export function openCommand(
  url: string,
  platform: NodeJS.Platform = process.platform,
): OpenCommand | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  // The WHATWG serialisation percent-encodes spaces and quotes, so the URL is one argument on every platform.
  if (platform === 'darwin') return { command: 'open', args: [parsed.href] };
  if (platform === 'win32')
    return { command: 'rundll32', args: ['url.dll,FileProtocolHandler', parsed.href] };
  return { command: 'xdg-open', args: [parsed.href] };
}

/**
 * Opens `url` with the platform's opener (see {@link openCommand}), detached, with `shell: false`.
 *
 * @returns false when the URL is not http(s) or the opener could not be started.
 */
export function openInBrowser(
  url: string,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const opener = openCommand(url, platform);
  if (!opener) return false;
  try {
    const child = spawn(opener.command, opener.args, { detached: true, stdio: 'ignore', shell: false, env });
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
