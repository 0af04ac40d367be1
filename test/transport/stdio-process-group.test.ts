/**
 * A stdio server started through a wrapper (`npx`, `sh -c`, `uv run`): the real server is the wrapper's child. Closing
 * the transport must end it too (CLIENT-REQUIREMENTS 3.4; MCP stdio transport § Shutdown), and nothing it left
 * behind may keep this process running. Real processes: a node wrapper that starts the server as its child and
 * writes the server's pid to a file.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { StdioTransport } from '../../src/stdio.js';

const dir = mkdtempSync(join(tmpdir(), 'stdio-group-'));

/**
 * The real server: answers every request line with `{ pid }`; flags make it ignore the end of stdin (like a server
 * that keeps timers running) or SIGTERM.
 */
const SERVER = join(dir, 'server.cjs');
writeFileSync(
  SERVER,
  String.raw`
const flags = new Set(process.argv.slice(2));
if (flags.has('--ignore-term')) process.on('SIGTERM', () => {});
if (flags.has('--ignore-eof')) setInterval(() => {}, 60_000);
let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let i;
  while ((i = buffered.indexOf('\n')) !== -1) {
    const m = JSON.parse(buffered.slice(0, i));
    buffered = buffered.slice(i + 1);
    if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { pid: process.pid } }) + '\n');
  }
});
`,
);

/**
 * The wrapper (what `npx` does): starts the server with inherited stdio, writes its pid to argv[2], and exits with its
 * code. With `--leave`, it exits when its own stdin ends and leaves the server running (stdin not shared).
 */
const WRAPPER = join(dir, 'wrapper.cjs');
writeFileSync(
  WRAPPER,
  String.raw`
const { spawn } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const [pidFile, ...rest] = process.argv.slice(2);
const leave = rest[0] === '--leave';
const flags = leave ? rest.slice(1) : rest;
const server = spawn(process.execPath, [${JSON.stringify(SERVER)}, ...flags], { stdio: leave ? ['ignore', 'inherit', 'inherit'] : 'inherit' });
writeFileSync(pidFile, String(server.pid));
if (leave) {
  process.stdin.on('data', (chunk) => process.stdout.write(chunk.toString().split('\n').filter(Boolean).map((l) => JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(l).id, result: { pid: server.pid } }) + '\n').join('')));
  process.stdin.on('end', () => process.exit(0));
} else server.on('exit', (code) => process.exit(code ?? 1));
`,
);

/** Whether `pid` is a running process: a zombie (killed, not yet reaped by a parent that is gone) counts as gone. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    if (process.platform === 'linux') return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

const started: number[] = [];
const transports: StdioTransport[] = [];
let files = 0;

/** A new file for a wrapper to write its server's pid into (the server is killed after the test if still there). */
function newPidFile(): string {
  const file = join(dir, `pid-${++files}`);
  pidFiles.push(file);
  return file;
}
const pidFiles: string[] = [];

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  for (const file of pidFiles.splice(0))
    if (existsSync(file)) started.push(Number(readFileSync(file, 'utf8')));
  for (const pid of started.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `command args…` through the transport, sends one request, and returns the real server's pid. */
async function startThroughWrapper(
  command: string,
  args: (pidFile: string) => string[],
): Promise<{ t: StdioTransport; serverPid: number }> {
  const pidFile = newPidFile();
  const t = new StdioTransport({ command, args: args(pidFile), restart: false });
  transports.push(t);
  await expect(t.request({ jsonrpc: '2.0', id: 1, method: 'ping' })).resolves.toHaveProperty('pid');
  const serverPid = Number(readFileSync(pidFile, 'utf8'));
  expect(alive(serverPid)).toBe(true);
  return { t, serverPid };
}

describe.skipIf(process.platform === 'win32')('stdio server started through a wrapper', () => {
  it('close() ends the real server (the wrapper’s child) too, not only the wrapper (like npx …)', async () => {
    const { t, serverPid } = await startThroughWrapper(process.execPath, (f) => [WRAPPER, f, '--ignore-eof']);
    await t.close();
    await expect.poll(() => alive(serverPid)).toBe(false);
  });

  it('through sh -c, with a server that ignores SIGTERM: SIGKILL reaches it', async () => {
    const { t, serverPid } = await startThroughWrapper('sh', (f) => [
      '-c',
      `"${process.execPath}" "${WRAPPER}" "${f}" --ignore-eof --ignore-term; echo wrapper done >&2`,
    ]);
    await t.close();
    await expect.poll(() => alive(serverPid)).toBe(false);
  }, 20_000);

  it('a wrapper that exits when its stdin ends but leaves the server running: close() resolves, and the server is ended', async () => {
    const { t, serverPid } = await startThroughWrapper(process.execPath, (f) => [
      WRAPPER,
      f,
      '--leave',
      '--ignore-eof',
    ]);
    await t.close();
    await expect.poll(() => alive(serverPid)).toBe(false);
  });

  it('a program that closes its transport exits on its own: nothing the wrapper started keeps it running', async () => {
    const pidFile = newPidFile();
    const script = join(dir, 'program.mts');
    const stdio = resolve(import.meta.dirname, '../../src/stdio.ts');
    writeFileSync(
      script,
      `import { StdioTransport } from ${JSON.stringify(stdio)};
const t = new StdioTransport({ command: process.execPath, args: ${JSON.stringify([WRAPPER, pidFile, '--ignore-eof'])} });
await t.request({ jsonrpc: '2.0', id: 1, method: 'ping' });
await t.close();
`,
    );
    const program = spawn(process.execPath, ['--import', 'tsx', script], { stdio: 'inherit' });
    if (program.pid !== undefined) started.push(program.pid); // killed after a timeout
    const code = await new Promise<number | null>((r) => program.once('exit', (c) => r(c)));
    const serverPid = Number(readFileSync(pidFile, 'utf8'));
    expect(code).toBe(0);
    await expect.poll(() => alive(serverPid)).toBe(false);
  }, 20_000);
});
