/**
 * Opening a server's URL (URL-mode elicitation) never goes through a command interpreter: the argument vector of
 * each platform's opener, asserted exactly, and a real opener process on this machine receiving the URL as one
 * argument. (issue 24 item 3: `cmd /c start "" <url>` let `&` and `|` in a server's URL run commands on Windows)
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openCommand, openInBrowser } from '../src/input/url-prompt.js';

const HOSTILE = 'https://evil.example/cb?a=1&calc.exe&x=|whoami^&y=%26';

describe('the opener argument vector', () => {
  it('win32: rundll32 url.dll,FileProtocolHandler <url>, no cmd.exe', () => {
    const opener = openCommand(HOSTILE, 'win32');
    expect(opener).toEqual({ command: 'rundll32', args: ['url.dll,FileProtocolHandler', HOSTILE] });
    expect(JSON.stringify(opener)).not.toMatch(/cmd|start|powershell/i);
  });

  it('darwin: open <url>; linux and others: xdg-open <url>', () => {
    expect(openCommand(HOSTILE, 'darwin')).toEqual({ command: 'open', args: [HOSTILE] });
    expect(openCommand(HOSTILE, 'linux')).toEqual({ command: 'xdg-open', args: [HOSTILE] });
    expect(openCommand(HOSTILE, 'freebsd')).toEqual({ command: 'xdg-open', args: [HOSTILE] });
  });

  it('spaces and quotes are percent-encoded, so the URL stays one argument; other schemes are not opened', () => {
    expect(openCommand('https://e.example/a b"c', 'win32')?.args[1]).toBe('https://e.example/a%20b%22c');
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'ms-settings:', 'not a url'])
      expect(openCommand(url, 'win32')).toBeUndefined();
  });
});

describe('a real opener process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-opener-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gets the URL as one argument and no shell runs any part of it', async () => {
    const seen = join(dir, 'argv.json');
    const opener = join(dir, 'xdg-open');
    writeFileSync(
      opener,
      `#!${process.execPath}\nrequire('fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify(process.argv.slice(2)));\n`,
    );
    chmodSync(opener, 0o755);
    const marker = join(dir, 'pwned');
    const url = `https://evil.example/?q=$(touch ${marker})&x=\`touch ${marker}\`;touch ${marker}`;
    expect(openInBrowser(url, 'linux', { PATH: dir })).toBe(true);
    while (!existsSync(seen)) await new Promise((r) => setTimeout(r, 20));
    const argv = JSON.parse(readFileSync(seen, 'utf8')) as string[];
    expect(argv).toEqual([new URL(url).href]);
    expect(existsSync(marker)).toBe(false);
  });
});
