/**
 * Where sign-in state lives and how the sign-in comes back: tokens keyed by the whole server URL (its query
 * included), token files never read or written through a symbolic link, another user's file or directory refused,
 * loose modes made private; and the loopback redirect ignoring an `error=` response without this sign-in's `state`
 * (RFC 6749 § 4.1.2.1). (issue 24 items 5 and 6)
 */
import {
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LoopbackRedirect } from '../src/auth/loopback-redirect.js';
import { AuthFile, TokenFileError } from '../src/auth/token-file.js';

const root = mkdtempSync(join(tmpdir(), 'mcp-tasks-auth-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = (): string => join(root, `d${++n}`);
const tokens = { access_token: 'at-1', token_type: 'Bearer', refresh_token: 'rt-1' };

describe('the loopback redirect', () => {
  it('ignores an error= response without the right state, then takes the real one', async () => {
    const redirect = await LoopbackRedirect.start();
    try {
      redirect.expectState('s-1');
      const waiting = redirect.wait(new AbortController().signal, 10_000);
      const forged = await fetch(`${redirect.url}?error=access_denied&state=not-ours`);
      expect(forged.status).toBe(400);
      const noState = await fetch(`${redirect.url}?error=access_denied`);
      expect(noState.status).toBe(400);
      await fetch(`${redirect.url}?code=c-1&state=s-1&iss=https%3A%2F%2Fas.example`);
      await expect(waiting).resolves.toEqual({ code: 'c-1', iss: 'https://as.example' });
    } finally {
      redirect.close();
    }
  });

  it('an error= response with the right state ends the sign-in', async () => {
    const redirect = await LoopbackRedirect.start();
    try {
      redirect.expectState('s-2');
      const refused = expect(redirect.wait(new AbortController().signal, 10_000)).rejects.toThrow(
        /refused the sign-in/,
      );
      await fetch(`${redirect.url}?error=access_denied&state=s-2`);
      await refused;
    } finally {
      redirect.close();
    }
  });
});

describe('token files', () => {
  it('are keyed by the whole server URL: ?tenant=a and ?tenant=b never share tokens', async () => {
    const dir = freshDir();
    const a = new AuthFile('https://mcp.example.com/mcp?tenant=a', dir);
    const b = new AuthFile('https://mcp.example.com/mcp?tenant=b', dir);
    expect(a.path).not.toBe(b.path);
    expect(a.server).toBe('https://mcp.example.com/mcp?tenant=a');
    await a.update((d) => void (d.tokens = tokens));
    expect((await b.read()).tokens).toBeUndefined();
    expect((await new AuthFile('https://mcp.example.com/mcp?tenant=a', dir).read()).tokens).toEqual(tokens);
  });

  it('are never read or written through a symbolic link', async () => {
    const dir = freshDir();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const elsewhere = join(root, `victim-${n}`);
    writeFileSync(elsewhere, JSON.stringify({ server: 'https://mcp.example.com/mcp', tokens }));
    const file = new AuthFile('https://mcp.example.com/mcp', dir);
    symlinkSync(elsewhere, file.path);
    await expect(new AuthFile('https://mcp.example.com/mcp', dir).read()).rejects.toThrow(TokenFileError);
    await expect(file.update((d) => void (d.tokens = { ...tokens, access_token: 'at-2' }))).rejects.toThrow(
      /symbolic link/,
    );
    expect(JSON.parse(readFileSync(elsewhere, 'utf8')).tokens.access_token).toBe('at-1');
  });

  it('a directory or file others can read is made private again (0700 / 0600)', async () => {
    const dir = freshDir();
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    const file = new AuthFile('https://mcp.example.com/mcp', dir);
    writeFileSync(file.path, JSON.stringify({ server: file.server, tokens }), { mode: 0o644 });
    expect((await file.read()).tokens).toEqual(tokens);
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
    await file.update((d) => void (d.codeVerifier = 'v'));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it.runIf(process.getuid?.() === 0)("another user's file or directory is refused", async () => {
    const dir = freshDir();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = new AuthFile('https://mcp.example.com/mcp', dir);
    writeFileSync(file.path, JSON.stringify({ server: file.server, tokens }), { mode: 0o600 });
    chownSync(file.path, 65534, 65534);
    await expect(file.read()).rejects.toThrow(/belongs to another user/);
    const other = freshDir();
    mkdirSync(other, { recursive: true, mode: 0o700 });
    chownSync(other, 65534, 65534);
    await expect(
      new AuthFile('https://mcp.example.com/mcp', other).update((d) => void (d.tokens = tokens)),
    ).rejects.toThrow(/belongs to another user/);
  });
});
