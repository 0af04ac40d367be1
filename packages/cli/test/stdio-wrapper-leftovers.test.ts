/**
 * `--stdio "npx some-server"`: the real server is the wrapper's child. Whether the CLI gives up on it (a server that
 * never answers) or is interrupted (Ctrl-C), it ends that child too: nothing is left running with parent 1. The built
 * CLI as a child process; a node wrapper that starts the server as its child and writes the server's pid to a file.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, killLeftovers, runCli, startCli, tempHome } from './helpers.js';

let home: string;
let dir: string;
let wrapper: string;
let files = 0;
const servers: number[] = [];

beforeAll(async () => {
  await ensureCliBuilt();
  home = tempHome();
  dir = mkdtempSync(join(tmpdir(), 'stdio-wrapper-'));
  // A server in the wrong mode: reads its input, never answers, keeps running after its stdin ends.
  const server = join(dir, 'silent-server.cjs');
  writeFileSync(server, `process.stdin.resume(); setInterval(() => {}, 60_000);`);
  wrapper = join(dir, 'wrapper.cjs');
  writeFileSync(
    wrapper,
    `const { spawn } = require('node:child_process');
const child = spawn(process.execPath, [${JSON.stringify(server)}], { stdio: 'inherit' });
require('node:fs').writeFileSync(process.argv[2], String(child.pid));
child.on('exit', (code) => process.exit(code ?? 1));`,
  );
}, 120_000);
afterAll(async () => {
  for (const pid of servers) if (alive(pid)) process.kill(pid, 'SIGKILL');
  await killLeftovers();
});

/** Whether `pid` runs: a zombie (killed, its parent gone, not yet reaped) counts as gone. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** A pid file for one run; its server's pid is read back once the wrapper wrote it. */
function pidFile(): { path: string; serverPid(): Promise<number> } {
  const path = join(dir, `pid-${++files}`);
  const serverPid = async (): Promise<number> => {
    await expect.poll(() => readFileSync(path, 'utf8').length, { timeout: 10_000 }).toBeGreaterThan(0);
    const pid = Number(readFileSync(path, 'utf8'));
    servers.push(pid);
    return pid;
  };
  writeFileSync(path, '');
  return { path, serverPid };
}

describe.skipIf(process.platform !== 'linux')('--stdio through a wrapper leaves nothing running', () => {
  it('a server that never answers: the CLI gives up with an error, and the wrapper’s child is gone', async () => {
    const file = pidFile();
    const run = await runCli(
      ['call', '--stdio', `node ${wrapper} ${file.path}`, '--timeout', '1s', 'echo', 'text=hi'],
      home,
    );
    expect(run.code).not.toBe(0);
    expect(run.code).not.toBeNull();
    const pid = await file.serverPid();
    await expect.poll(() => alive(pid)).toBe(false);
  }, 60_000);

  it('Ctrl-C (SIGINT to the CLI only, as the server no longer shares its terminal group): the server is ended', async () => {
    const file = pidFile();
    const cli = startCli(['call', '--stdio', `node ${wrapper} ${file.path}`, 'echo', 'text=hi'], home);
    const pid = await file.serverPid();
    expect(alive(pid)).toBe(true);
    cli.child.kill('SIGINT');
    const run = await cli.done;
    expect(run.code).not.toBeNull();
    await expect.poll(() => alive(pid)).toBe(false);
  }, 60_000);
});
